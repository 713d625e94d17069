package pgcluster

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestClusterLifecycle: a primary and its pg_basebackup standby run as the
// host's user on 127.0.0.1 only, the standby replays the primary's writes,
// a promoted standby takes writes, and when the test that made them ends
// both servers are gone (a killed postmaster's shared memory segment too)
// and so is Root.
func TestClusterLifecycle(t *testing.T) {
	t.Parallel()
	var root string
	var ports []int
	var killedShm int
	t.Run("inner", func(t *testing.T) {
		h := NewHost(t)
		root = h.Root
		if st, err := os.Stat(root); err != nil || st.Sys().(*syscall.Stat_t).Uid != uint32(h.uid) {
			t.Fatalf("Root %s: %v, want it owned by uid %d", root, err, h.uid)
		}
		p := h.Primary(t, "p")
		s := p.Standby(t, "s")
		ports = []int{p.Port, s.Port}
		pc := p.Connect(t, "postgres")
		var user, addr string
		if err := pc.QueryRow(t.Context(), "SELECT current_user, host(inet_server_addr()) FROM pg_stat_activity LIMIT 1").Scan(&user, &addr); err != nil {
			t.Fatal(err)
		}
		if user != "postgres" || addr != "127.0.0.1" {
			t.Errorf("connected as %q to %q, want postgres at 127.0.0.1", user, addr)
		}
		var listen string
		if err := pc.QueryRow(t.Context(), "SHOW listen_addresses").Scan(&listen); err != nil || listen != "127.0.0.1" {
			t.Errorf("listen_addresses = %q, %v; want 127.0.0.1", listen, err)
		}
		if _, err := pc.Exec(t.Context(), "CREATE TABLE t AS SELECT 42 AS n"); err != nil {
			t.Fatal(err)
		}
		sc := s.Connect(t, "postgres")
		Eventually(t, 30*time.Second, 50*time.Millisecond, "the standby replaying CREATE TABLE", func() (bool, error) {
			var n int
			err := sc.QueryRow(t.Context(), "SELECT n FROM t").Scan(&n)
			return err == nil && n == 42, err
		})
		s.Promote(t)
		if _, err := sc.Exec(t.Context(), "INSERT INTO t VALUES (43)"); err != nil {
			t.Errorf("insert on the promoted standby: %v", err)
		}

		// A crash leaves the postmaster's segment; the host removes it.
		k := h.Primary(t, "k")
		ports = append(ports, k.Port)
		pid, shmid := postmasterPID(t, k.Dir)
		killedShm = shmid
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		Eventually(t, 10*time.Second, 20*time.Millisecond, "the killed postmaster exiting", func() (bool, error) {
			return syscall.Kill(pid, 0) != nil, nil
		})
	})
	if _, err := os.Stat(root); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Root %s after the test: %v, want it removed", root, err)
	}
	for _, port := range ports {
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
		conn, err := pgx.Connect(ctx, "postgres://postgres@127.0.0.1:"+strconv.Itoa(port)+"/postgres?sslmode=disable")
		cancel()
		if err == nil {
			conn.Close(context.Background())
			t.Errorf("a server still answers on port %d after the test", port)
		}
	}
	if shmExists(t, killedShm) {
		t.Errorf("shared memory segment %d of the killed postmaster still exists", killedShm)
	}
}

// TestProcessKillReachesChildren: Process.Kill ends the program's whole
// process group, so a supervisor's children (pg_autoctl's postgres) die too.
func TestProcessKillReachesChildren(t *testing.T) {
	t.Parallel()
	h := NewHost(t)
	pidFile := filepath.Join(h.Root, "child.pid")
	p := h.Start(t, "sh.log", "sh", "-c", "sleep 300 & echo $! > "+pidFile+"; wait")
	var child int
	Eventually(t, 10*time.Second, 20*time.Millisecond, "the child's pid", func() (bool, error) {
		data, err := os.ReadFile(pidFile)
		if err != nil {
			return false, err
		}
		child, err = strconv.Atoi(strings.TrimSpace(string(data)))
		return err == nil, err
	})
	p.Kill()
	if !p.Exited() {
		t.Fatal("Kill returned before the process exited")
	}
	Eventually(t, 10*time.Second, 20*time.Millisecond, "the child dying with its group", func() (bool, error) {
		// A zombie until reaped by init counts as gone: its state is Z.
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(child) + "/stat")
		return err != nil || strings.Contains(string(stat), ") Z "), nil
	})
}

// postmasterPID reads the postmaster's pid and its shared memory id from
// the data directory's postmaster.pid.
func postmasterPID(t *testing.T, dir string) (pid, shmid int) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "postmaster.pid"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	if len(lines) < 7 {
		t.Fatalf("postmaster.pid has %d lines", len(lines))
	}
	pid, err = strconv.Atoi(strings.TrimSpace(lines[0]))
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(lines[6])
	if len(fields) != 2 {
		t.Fatalf("postmaster.pid line 7 = %q, want key and shmid", lines[6])
	}
	if shmid, err = strconv.Atoi(fields[1]); err != nil {
		t.Fatal(err)
	}
	return pid, shmid
}

// shmExists reports whether the System V shared memory segment shmid
// exists, from /proc/sysvipc/shm (key, then shmid, on each line).
func shmExists(t *testing.T, shmid int) bool {
	t.Helper()
	data, err := os.ReadFile("/proc/sysvipc/shm")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n")[1:] {
		if f := strings.Fields(line); len(f) > 1 && f[1] == strconv.Itoa(shmid) {
			return true
		}
	}
	return false
}
