// Package pgcluster starts throwaway PostgreSQL clusters for one test:
// initdb, pg_ctl and pg_basebackup of the version under test (the
// directory SORTID_TEST_PGBIN names, else `pg_config --bindir`), run as the
// postgres OS user when the test runs as root (initdb refuses root), data
// under a temporary directory that user owns, servers listening on free
// ports of 127.0.0.1 only. Every process it starts is stopped, and the
// directory removed, when the test ends.
//
// It never touches a server it did not start, such as the shared test
// server of package pgtest.
package pgcluster

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/sortid/sortid/integration/internal/pgtest"
	"github.com/sortid/sortid/migrations"
)

// EnvCI is set to "true" by CI, where a missing component fails a test
// instead of skipping it.
const EnvCI = "CI"

// StartTimeout bounds starting, stopping and promoting a cluster, and
// waiting for it to accept connections.
const StartTimeout = 60 * time.Second

// Missing reports a component the test needs that this machine lacks for
// PostgreSQL major (0 when unknown): a listed exception (pgtest.Exceptions)
// skips tb with pgtest.ExceptionMarker; otherwise under CI=true it fails tb,
// elsewhere it skips it, naming the fix either way.
func Missing(tb testing.TB, major int, what, fix string) {
	tb.Helper()
	if e, ok := pgtest.Excepted(tb.Name(), major, what); ok {
		tb.Skip(e.SkipMessage(tb.Name(), major))
	}
	if os.Getenv(EnvCI) == "true" {
		tb.Fatalf("pgcluster: %s is missing and %s=true: %s", what, EnvCI, fix)
	}
	tb.Skipf("pgcluster: %s is missing (%s; under %s=true this fails)", what, fix, EnvCI)
}

// Host runs PostgreSQL's programs for one test, as the postgres OS user
// when the test runs as root, inside a temporary directory Root that the
// user owns.
type Host struct {
	// Bindir holds the server programs under test (pgtest.PGBin): initdb,
	// pg_ctl, postgres, and pg_basebackup where the version ships it.
	Bindir string
	// Major is the major version of Bindir's postgres.
	Major int
	// Root holds the clusters' data directories, logs and HOME.
	Root string
	cred *syscall.Credential
	uid  int
	gid  int
	tb   testing.TB
}

// NewHost finds the server programs, and the given programs of the same
// version, in Bindir and makes Root. A missing Bindir, program or postgres
// user is reported with Missing. Root is removed when the test ends, after
// every cluster and process has stopped.
func NewHost(tb testing.TB, programs ...string) *Host {
	tb.Helper()
	bindir, err := pgtest.PGBin()
	if err != nil {
		Missing(tb, 0, "pg_config", fmt.Sprintf("install PostgreSQL's server packages, on Debian apt-get install postgresql-15, or set %s (%v)", pgtest.EnvPGBin, err))
	}
	h := &Host{Bindir: bindir, uid: os.Getuid(), gid: os.Getgid(), tb: tb}
	if h.Major, err = pgtest.BinMajor(bindir); err != nil {
		Missing(tb, 0, "postgres", fmt.Sprintf("no server programs in %s: %v", bindir, err))
	}
	// The server programs only from Bindir: another version's on PATH would
	// not work with this version's clusters. Client programs such as
	// pg_autoctl may live on PATH.
	for _, p := range []string{"initdb", "pg_ctl", "postgres"} {
		if !isExecutable(filepath.Join(h.Bindir, p)) {
			Missing(tb, h.Major, p, fmt.Sprintf("%s has no %s; install postgresql-%d's server programs, or set %s", h.Bindir, p, h.Major, pgtest.EnvPGBin))
		}
	}
	for _, p := range programs {
		if _, err := h.LookPath(p); err != nil {
			Missing(tb, h.Major, p, fmt.Sprintf("neither %s nor PATH has %s; install the package that provides it (pg_autoctl: pg-auto-failover-cli); .ci/run does this", h.Bindir, p))
		}
	}
	if os.Geteuid() == 0 {
		// initdb and postgres refuse to run as root.
		u, err := user.Lookup("postgres")
		if err != nil {
			Missing(tb, 0, "the postgres OS user", "a test run as root starts its clusters as postgres; install postgresql-15, which creates it")
		}
		h.uid, _ = strconv.Atoi(u.Uid)
		h.gid, _ = strconv.Atoi(u.Gid)
		h.cred = &syscall.Credential{Uid: uint32(h.uid), Gid: uint32(h.gid)}
	}
	root, err := os.MkdirTemp("", "sortid-pgcluster-")
	if err != nil {
		tb.Fatal(err)
	}
	h.Root = root
	// Registered first, so it runs after every cluster's and process's cleanup.
	tb.Cleanup(func() {
		releaseSharedMemory(root)
		if err := os.RemoveAll(root); err != nil {
			tb.Errorf("pgcluster: remove %s: %v", root, err)
		}
	})
	if err := os.Chown(root, h.uid, h.gid); err != nil {
		tb.Fatal(err)
	}
	return h
}

// LookPath finds program in Bindir, then in PATH.
func (h *Host) LookPath(program string) (string, error) {
	if p := filepath.Join(h.Bindir, program); isExecutable(p) {
		return p, nil
	}
	return exec.LookPath(program)
}

func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// Command returns program with args, to be run as the host's user with HOME
// and pg_autoctl's XDG directories in Root, Bindir first in PATH, in a
// process group of its own (so that Process.Kill reaches its children).
func (h *Host) Command(ctx context.Context, program string, args ...string) *exec.Cmd {
	path, err := h.LookPath(program)
	if err != nil {
		path = program // exec reports it
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = h.Root
	cmd.Env = append(os.Environ(),
		"HOME="+h.Root,
		"XDG_CONFIG_HOME="+filepath.Join(h.Root, ".config"),
		"XDG_DATA_HOME="+filepath.Join(h.Root, ".local"),
		"XDG_RUNTIME_DIR="+filepath.Join(h.Root, ".run"),
		"PATH="+h.Bindir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"PG_CONFIG="+filepath.Join(h.Bindir, "pg_config"),
		"LC_ALL=C", "PGTZ=UTC")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: h.cred, Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	return cmd
}

// Run runs program to completion within timeout and returns its combined
// output; it fails tb, quoting the output, when the program fails.
func (h *Host) Run(tb testing.TB, timeout time.Duration, program string, args ...string) string {
	tb.Helper()
	out, err := h.TryRun(tb, timeout, program, args...)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// TryRun is Run returning the failure instead of failing tb.
func (h *Host) TryRun(tb testing.TB, timeout time.Duration, program string, args ...string) (string, error) {
	// Not tb.Context(): it is canceled before the cleanups that stop clusters run.
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	out, err := h.Command(ctx, program, args...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("pgcluster: %s %s: %w\n%s", program, strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// Dir returns the path name under Root, for a program to create; its
// parent exists and belongs to the host's user.
func (h *Host) Dir(name string) string {
	return filepath.Join(h.Root, name)
}

// Process is a long-running program started by Host.Start.
type Process struct {
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	err  error
	once sync.Once
}

// Start starts program with args in the background, its output going to
// Root/logName. When the test ends it gets SIGINT (pg_autoctl then stops
// its PostgreSQL with a fast shutdown), and SIGKILL for its whole process
// group if it has not exited within StartTimeout.
func (h *Host) Start(tb testing.TB, logName, program string, args ...string) *Process {
	tb.Helper()
	logPath := filepath.Join(h.Root, logName)
	f, err := os.Create(logPath)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	cmd := h.Command(context.Background(), program, args...)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		tb.Fatalf("pgcluster: start %s: %v", program, err)
	}
	p := &Process{cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	tb.Cleanup(func() {
		if !p.Exited() { // an exited pid may belong to another process by now
			_ = syscall.Kill(cmd.Process.Pid, syscall.SIGINT)
			select {
			case <-p.done:
			case <-time.After(StartTimeout):
				tb.Errorf("pgcluster: %s did not stop within %v of SIGINT; killing it", program, StartTimeout)
			}
		}
		p.Kill()
		if tb.Failed() {
			tb.Logf("pgcluster: end of %s:\n%s", logPath, tail(logPath, 40))
		}
	})
	return p
}

// Kill sends SIGKILL to the process's group, children included, and waits
// for the process to exit: a crash, with no shutdown of any kind.
func (p *Process) Kill() {
	p.once.Do(func() {
		// The group outlives its leader while any member runs, so its id
		// is still ours even after the leader exited.
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	})
	<-p.done
}

// Exited reports whether the process has exited.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Log returns the last n lines of the process's output.
func (p *Process) Log(n int) string { return tail(p.log, n) }

// Cluster is a PostgreSQL cluster started by the host.
type Cluster struct {
	Host *Host
	// Name names the data directory Root/Name and the log Root/Name.log.
	Name string
	// Dir is the data directory, also the directory of its Unix socket.
	Dir string
	// Port is its port on 127.0.0.1.
	Port int
	// started records that Start registered the stop at the test's end.
	started bool
}

// PrimarySettings are written to every cluster's postgresql.conf by
// Primary: small, quick to start, able to stream and to publish logically,
// durable across a killed server but not an OS crash (fsync off).
var PrimarySettings = []string{
	"shared_buffers = '32MB'",
	"max_connections = 40",
	"wal_level = logical",
	"max_wal_senders = 10",
	"max_replication_slots = 10",
	"fsync = off",
	"full_page_writes = off",
	"log_line_prefix = '%m [%p] '",
}

// Primary creates a cluster with initdb (trust authentication, user
// postgres, UTF8, C locale) and PrimarySettings followed by settings, and
// starts it on a free port. It is stopped when the test ends.
func (h *Host) Primary(tb testing.TB, name string, settings ...string) *Cluster {
	tb.Helper()
	c := &Cluster{Host: h, Name: name, Dir: h.Dir(name), Port: FreePort(tb)}
	h.Run(tb, StartTimeout, "initdb", "-D", c.Dir, "-A", "trust", "-U", "postgres",
		"-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions")
	conf := append(append([]string{}, PrimarySettings...), settings...)
	if err := appendFile(filepath.Join(c.Dir, "postgresql.conf"), strings.Join(conf, "\n")+"\n"); err != nil {
		tb.Fatal(err)
	}
	c.Start(tb)
	return c
}

// Standby creates a hot standby of c with `pg_basebackup -R -X stream`
// (which writes primary_conninfo and standby.signal), or, where the version
// ships no pg_basebackup, with CopyBackup; with settings added, and starts
// it on a free port. It is stopped when the test ends.
func (c *Cluster) Standby(tb testing.TB, name string, settings ...string) *Cluster {
	tb.Helper()
	s := &Cluster{Host: c.Host, Name: name, Dir: c.Host.Dir(name), Port: FreePort(tb)}
	if isExecutable(filepath.Join(c.Host.Bindir, "pg_basebackup")) {
		c.Host.Run(tb, StartTimeout, "pg_basebackup", "-h", "127.0.0.1", "-p", strconv.Itoa(c.Port), "-U", "postgres",
			"-D", s.Dir, "-R", "-X", "stream", "-c", "fast", "--no-sync")
	} else {
		c.CopyBackup(tb, s.Dir, name)
	}
	if len(settings) > 0 {
		if err := appendFile(filepath.Join(s.Dir, "postgresql.conf"), strings.Join(settings, "\n")+"\n"); err != nil {
			tb.Fatal(err)
		}
	}
	s.Start(tb)
	return s
}

// backupNotCopied are the entries of a data directory that a base backup
// leaves out, as pg_basebackup does: a directory named here is copied
// empty.
var backupNotCopied = map[string]bool{
	"postmaster.pid": true, "postmaster.opts": true, "backup_label": true, "tablespace_map": true,
	"pg_wal": true, "pg_replslot": true, "pg_stat_tmp": true, "pg_dynshmem": true,
	"pg_notify": true, "pg_serial": true, "pg_snapshots": true, "pg_subtrans": true,
}

// CopyBackup makes dir a standby of c, set up as `pg_basebackup -R` sets
// one up, with the low-level backup API instead (pg_backup_start and
// pg_backup_stop; pg_start_backup and pg_stop_backup before PostgreSQL 15):
// a copy of the running cluster's files and the backup_label the stop
// returns. WAL from the backup's start on is kept for the standby by a
// physical replication slot named slot, which it streams from.
func (c *Cluster) CopyBackup(tb testing.TB, dir, slot string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(tb.Context(), StartTimeout)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		tb.Fatalf("pgcluster: connect to %s: %v", c.Name, err)
	}
	defer conn.Close(context.Background())
	start, stop := "SELECT pg_backup_start('pgcluster', true)", "SELECT labelfile, spcmapfile FROM pg_backup_stop(true)"
	if c.Host.Major < 15 {
		start, stop = "SELECT pg_start_backup('pgcluster', true, false)", "SELECT labelfile, spcmapfile FROM pg_stop_backup(false, true)"
	}
	for _, q := range []string{"SELECT pg_create_physical_replication_slot($1, true)", start} {
		args := []any{}
		if strings.Contains(q, "$1") {
			args = append(args, slot)
		}
		if _, err := conn.Exec(ctx, q, args...); err != nil {
			tb.Fatalf("pgcluster: %s on %s: %v", q, c.Name, err)
		}
	}
	if err := c.Host.copyTree(c.Dir, dir); err != nil {
		tb.Fatalf("pgcluster: copy %s: %v", c.Dir, err)
	}
	var label, spcmap string
	if err := conn.QueryRow(ctx, stop).Scan(&label, &spcmap); err != nil {
		tb.Fatalf("pgcluster: %s on %s: %v", stop, c.Name, err)
	}
	conf := fmt.Sprintf("primary_conninfo = 'host=127.0.0.1 port=%d user=postgres'\nprimary_slot_name = '%s'\n", c.Port, slot)
	files := map[string]string{"backup_label": label, "standby.signal": ""}
	if spcmap != "" {
		files["tablespace_map"] = spcmap
	}
	for name, text := range files {
		if err := c.Host.writeFile(filepath.Join(dir, name), text); err != nil {
			tb.Fatal(err)
		}
	}
	if err := appendFile(filepath.Join(dir, "postgresql.auto.conf"), conf); err != nil {
		tb.Fatal(err)
	}
}

// copyTree copies the data directory src, a running cluster's, to dst, owned
// by the host's user, leaving out backupNotCopied; files the server removes
// while it runs are skipped.
func (h *Host) copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if errors.Is(err, os.ErrNotExist) {
			return nil
		} else if err != nil {
			return err
		}
		if d.IsDir() {
			if err := os.Mkdir(target, info.Mode().Perm()); err != nil {
				return err
			}
			if err := os.Chown(target, h.uid, h.gid); err != nil {
				return err
			}
			if rel != "." && backupNotCopied[rel] {
				return filepath.SkipDir
			}
			return nil
		}
		// The data directory is also the cluster's socket directory.
		if backupNotCopied[rel] || !info.Mode().IsRegular() || strings.HasPrefix(d.Name(), ".s.PGSQL.") ||
			strings.HasPrefix(d.Name(), "pgsql_tmp") {
			return nil
		}
		data, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			return nil
		} else if err != nil {
			return err
		}
		if err := os.WriteFile(target, data, info.Mode().Perm()); err != nil {
			return err
		}
		return os.Chown(target, h.uid, h.gid)
	})
}

// writeFile writes a file of mode 0600 owned by the host's user.
func (h *Host) writeFile(path, text string) error {
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		return err
	}
	return os.Chown(path, h.uid, h.gid)
}

// Start starts the cluster with pg_ctl and waits until it accepts
// connections; the first Start registers its stop for the end of the test.
func (c *Cluster) Start(tb testing.TB) {
	tb.Helper()
	// Port and socket directory on the command line, so that a standby's
	// copy of its primary's postgresql.conf cannot point it elsewhere.
	opts := fmt.Sprintf("-p %d -c listen_addresses=127.0.0.1 -c unix_socket_directories=%s", c.Port, c.Dir)
	c.Host.Run(tb, StartTimeout, "pg_ctl", "-D", c.Dir, "-l", c.Dir+".log", "-w", "-t", strconv.Itoa(int(StartTimeout.Seconds())),
		"-o", opts, "start")
	if !c.started {
		c.started = true
		tb.Cleanup(func() {
			if tb.Failed() {
				tb.Logf("pgcluster: end of %s.log:\n%s", c.Dir, tail(c.Dir+".log", 40))
			}
			c.Stop(tb, "immediate")
		})
	}
}

// Stop stops the cluster with pg_ctl stop -m mode ("fast", "immediate"); a
// cluster that is not running, or whose postmaster was killed, is left as
// it is.
func (c *Cluster) Stop(tb testing.TB, mode string) {
	tb.Helper()
	if _, err := os.Stat(filepath.Join(c.Dir, "postmaster.pid")); err != nil {
		return
	}
	if out, err := c.Host.TryRun(tb, StartTimeout, "pg_ctl", "-D", c.Dir, "-m", mode, "-w", "stop"); err != nil &&
		!strings.Contains(out, "Is server running?") && !strings.Contains(out, "No such process") {
		tb.Error(err)
	}
}

// Promote promotes a standby with pg_ctl promote and waits until it is a
// primary.
func (c *Cluster) Promote(tb testing.TB) {
	tb.Helper()
	c.Host.Run(tb, StartTimeout, "pg_ctl", "-D", c.Dir, "-w", "-t", strconv.Itoa(int(StartTimeout.Seconds())), "promote")
}

// Log returns the cluster's server log so far.
func (c *Cluster) Log() string {
	data, _ := os.ReadFile(c.Dir + ".log")
	return string(data)
}

// URL is a postgres:// URL of database db on the cluster.
func (c *Cluster) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable&connect_timeout=5", c.Port, db)
}

// Connect connects to database db on the cluster, closed when the test ends.
func (c *Cluster) Connect(tb testing.TB, db string) *pgx.Conn {
	tb.Helper()
	return Connect(tb, c.URL(db))
}

// Connect connects to url, closed when the test ends.
func Connect(tb testing.TB, url string) *pgx.Conn {
	tb.Helper()
	ctx, cancel := context.WithTimeout(tb.Context(), 15*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		tb.Fatalf("pgcluster: connect: %v", err)
	}
	tb.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn
}

// Migrate installs the sortid SQL into the database at url with
// migrations.Apply.
func Migrate(tb testing.TB, url string) {
	tb.Helper()
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		tb.Fatal(err)
	}
	db := stdlib.OpenDB(*cfg)
	defer db.Close()
	ctx, cancel := context.WithTimeout(tb.Context(), StartTimeout)
	defer cancel()
	if err := migrations.Apply(ctx, db); err != nil {
		tb.Fatalf("pgcluster: migrations.Apply: %v", err)
	}
}

// OpenDB is a database/sql handle on url, closed when the test ends.
func OpenDB(tb testing.TB, url string) *sql.DB {
	tb.Helper()
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		tb.Fatal(err)
	}
	db := stdlib.OpenDB(*cfg)
	tb.Cleanup(func() { _ = db.Close() })
	return db
}

// FreePort returns a TCP port of 127.0.0.1 that nothing listened on a
// moment ago.
func FreePort(tb testing.TB) int {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Eventually calls cond every interval until it returns true, and fails tb
// with what and cond's last error when timeout passes first. It returns how
// long it waited.
func Eventually(tb testing.TB, timeout, interval time.Duration, what string, cond func() (bool, error)) time.Duration {
	tb.Helper()
	start := time.Now()
	var last error
	for time.Since(start) < timeout {
		ok, err := cond()
		if ok {
			return time.Since(start)
		}
		last = err
		select {
		case <-tb.Context().Done():
			tb.Fatalf("pgcluster: waiting for %s: %v", what, tb.Context().Err())
		case <-time.After(interval):
		}
	}
	tb.Fatalf("pgcluster: %s did not happen within %v (last error: %v)", what, timeout, last)
	return 0
}

func appendFile(path, text string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(text)
	return errors.Join(err, f.Close())
}

// tail returns the last n lines of the file at path.
func tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// releaseSharedMemory removes the System V shared memory segment that a
// killed postmaster leaves behind (a clean shutdown removes its own), for
// every data directory directly under root whose postmaster.pid names a
// postmaster that no longer runs.
func releaseSharedMemory(root string) {
	pids, _ := filepath.Glob(filepath.Join(root, "*", "postmaster.pid"))
	for _, path := range pids {
		f, err := os.Open(path)
		if err != nil {
			continue
		}
		var lines []string
		for s := bufio.NewScanner(f); s.Scan(); {
			lines = append(lines, s.Text())
		}
		f.Close()
		if len(lines) < 7 {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(lines[0]))
		if err != nil || syscall.Kill(pid, 0) == nil {
			continue // still running: not ours to touch
		}
		fields := strings.Fields(lines[6]) // "shmem key  shmid"
		if len(fields) != 2 {
			continue
		}
		if shmid, err := strconv.Atoi(fields[1]); err == nil {
			_, _, _ = syscall.Syscall(syscall.SYS_SHMCTL, uintptr(shmid), 0 /* IPC_RMID */, 0)
		}
	}
}
