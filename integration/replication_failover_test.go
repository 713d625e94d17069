package integration_test

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sortid/sortid/idtype"
	"github.com/sortid/sortid/integration/internal/pgcluster"
)

// ack is one insert the failover client saw acknowledged.
type ack struct {
	seq  int
	id   int64
	port int // the server that acknowledged it
	at   time.Time
}

// failoverClient inserts rows with DEFAULT keys, one transaction each,
// through a multi-host DSN, reconnecting after every error; it never
// retries an insert, so each error is a row in doubt.
type failoverClient struct {
	dsn    string
	mu     sync.Mutex
	acks   []ack
	failed []int // seqs whose insert returned an error
	stop   chan struct{}
	done   chan struct{}
}

func startFailoverClient(dsn string) *failoverClient {
	c := &failoverClient{dsn: dsn, stop: make(chan struct{}), done: make(chan struct{})}
	go c.run()
	return c
}

func (c *failoverClient) run() {
	defer close(c.done)
	var conn *pgx.Conn
	defer func() {
		if conn != nil {
			conn.Close(context.Background())
		}
	}()
	for seq := 1; ; seq++ {
		select {
		case <-c.stop:
			return
		default:
		}
		if conn == nil {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			var err error
			conn, err = pgx.Connect(ctx, c.dsn)
			cancel()
			if err != nil {
				conn = nil
				seq-- // nothing was sent
				time.Sleep(50 * time.Millisecond)
				continue
			}
		}
		var a ack
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		err := conn.QueryRow(ctx, `INSERT INTO failover_rows (seq) VALUES ($1) RETURNING id, inet_server_port()`, seq).Scan(&a.id, &a.port)
		cancel()
		c.mu.Lock()
		if err != nil {
			c.failed = append(c.failed, seq)
			conn.Close(context.Background())
			conn = nil
		} else {
			a.seq, a.at = seq, time.Now()
			c.acks = append(c.acks, a)
		}
		c.mu.Unlock()
		time.Sleep(2 * time.Millisecond) // a steady load, not a saturating one
	}
}

// waitAckFrom waits until the client has an acknowledgement from port
// made after since, and returns the time of the first.
func (c *failoverClient) waitAckFrom(t *testing.T, port int, since time.Time, timeout time.Duration) time.Time {
	t.Helper()
	var first time.Time
	pgcluster.Eventually(t, timeout, 20*time.Millisecond, fmt.Sprintf("an acknowledged insert from port %d", port), func() (bool, error) {
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, a := range c.acks {
			if a.port == port && a.at.After(since) {
				first = a.at
				return true, nil
			}
		}
		return false, nil
	})
	return first
}

// finish stops the client and returns what it saw.
func (c *failoverClient) finish() ([]ack, []int) {
	close(c.stop)
	<-c.done
	return c.acks, c.failed
}

// autoFailover is a pg_auto_failover formation: a monitor and two nodes.
type autoFailover struct {
	h       *pgcluster.Host
	monitor *pgx.Conn
	ports   map[string]int // node name to port
	procs   map[string]*pgcluster.Process
	dirs    map[string]string
}

// startAutoFailover starts a monitor, tunes its health checks to notice a
// dead primary in seconds rather than the default ~50 s, and starts node1
// (which becomes the primary) and node2 (its synchronous standby).
func startAutoFailover(t *testing.T) *autoFailover {
	t.Helper()
	h := pgcluster.NewHost(t, "pg_autoctl")
	if _, err := os.Stat(filepath.Join(h.PkgLibDir(t), "pgautofailover.so")); err != nil {
		pgcluster.Missing(t, h.Major, "pg_auto_failover", fmt.Sprintf("PostgreSQL %d has no pgautofailover extension; install postgresql-%d-auto-failover; .ci/run does this for the system's version", h.Major, h.Major))
	}
	f := &autoFailover{h: h, ports: map[string]int{}, procs: map[string]*pgcluster.Process{}, dirs: map[string]string{}}
	monPort := pgcluster.FreePort(t)
	common := []string{"--hostname", "127.0.0.1", "--listen", "127.0.0.1", "--auth", "trust", "--no-ssl", "--run"}
	f.procs["monitor"] = h.Start(t, "monitor.out", "pg_autoctl", append([]string{"create", "monitor",
		"--pgdata", h.Dir("monitor"), "--pgport", strconv.Itoa(monPort)}, common...)...)
	monURL := fmt.Sprintf("postgres://autoctl_node@127.0.0.1:%d/pg_auto_failover?sslmode=disable", monPort)
	adminURL := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/pg_auto_failover?sslmode=disable&connect_timeout=2", monPort)
	pgcluster.Eventually(t, 90*time.Second, 200*time.Millisecond, "the monitor accepting connections", func() (bool, error) {
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, adminURL)
		if err != nil {
			return false, err
		}
		if _, err := conn.Exec(ctx, "SELECT count(*) FROM pgautofailover.node"); err != nil {
			conn.Close(context.Background())
			return false, err
		}
		f.monitor = conn
		return true, nil
	})
	t.Cleanup(func() { f.monitor.Close(context.Background()) })
	// The defaults docs/SCALE.md quotes, before they are shortened here.
	var unhealthy, demote string
	if err := f.monitor.QueryRow(t.Context(), `SELECT current_setting('pgautofailover.node_considered_unhealthy_timeout'),
		current_setting('pgautofailover.primary_demote_timeout')`).Scan(&unhealthy, &demote); err != nil ||
		unhealthy != "20s" || demote != "30s" {
		t.Errorf("monitor defaults: node_considered_unhealthy_timeout %q, primary_demote_timeout %q, %v; want 20s and 30s", unhealthy, demote, err)
	}
	for _, set := range []string{
		"health_check_period = 1000", "health_check_timeout = 1000", "health_check_max_retries = 1",
		"health_check_retry_delay = 500", "node_considered_unhealthy_timeout = 2000", "primary_demote_timeout = 3000",
	} {
		execAll(t, f.monitor, "ALTER SYSTEM SET pgautofailover."+set)
	}
	execAll(t, f.monitor, "SELECT pg_reload_conf()")
	for _, name := range []string{"node1", "node2"} {
		f.ports[name] = pgcluster.FreePort(t)
		f.dirs[name] = h.Dir(name)
		f.procs[name] = h.Start(t, name+".out", "pg_autoctl", append([]string{"create", "postgres",
			"--pgdata", f.dirs[name], "--pgport", strconv.Itoa(f.ports[name]), "--name", name,
			"--monitor", monURL}, common...)...)
		if name == "node1" {
			f.waitStates(t, 90*time.Second, map[string]string{"node1": "single"})
		}
	}
	f.waitStates(t, 120*time.Second, map[string]string{"node1": "primary", "node2": "secondary"})
	return f
}

// waitStates waits until each named node has reported, and been assigned,
// the given state.
func (f *autoFailover) waitStates(t *testing.T, timeout time.Duration, want map[string]string) {
	t.Helper()
	pgcluster.Eventually(t, timeout, 100*time.Millisecond, fmt.Sprintf("node states %v", want), func() (bool, error) {
		rows, err := f.monitor.Query(t.Context(), `SELECT nodename, reportedstate::text, goalstate::text FROM pgautofailover.node`)
		if err != nil {
			return false, err
		}
		got := map[string]string{}
		for rows.Next() {
			var name, reported, goal string
			if err := rows.Scan(&name, &reported, &goal); err != nil {
				return false, err
			}
			if reported == goal {
				got[name] = reported
			}
		}
		if err := rows.Err(); err != nil {
			return false, err
		}
		for name, state := range want {
			if got[name] != state {
				return false, fmt.Errorf("states %v", got)
			}
		}
		return true, nil
	})
}

// asyncWindow is a span in which the monitor had a node in wait_primary,
// the state in which pg_auto_failover turns synchronous replication off
// (the standby judged unhealthy): rows that node acknowledged then need
// not be on a standby promoted later. The span runs from the assignment of
// wait_primary to the node's next report of another state, which brackets
// the node's own switching off and on.
type asyncWindow struct {
	node     string
	from, to time.Time // to is zero while the window is open
}

// covers reports whether a row acknowledged by node at ack may have been
// committed inside w: an acknowledgement reaches the client after the
// commit, so it may arrive a little after the window closed.
func (w asyncWindow) covers(node string, ack time.Time) bool {
	const ackDelay = time.Second
	return w.node == node && !ack.Before(w.from) && (w.to.IsZero() || ack.Before(w.to.Add(ackDelay)))
}

// events returns the monitor's event log as lines, and the spans in which
// a node was in wait_primary.
func (f *autoFailover) events(t *testing.T) (lines []string, windows []asyncWindow) {
	t.Helper()
	rows, err := f.monitor.Query(context.Background(), `SELECT eventtime, nodename, reportedstate::text, goalstate::text, description
		FROM pgautofailover.event ORDER BY eventid`)
	if err != nil {
		t.Fatalf("monitor events: %v", err)
	}
	defer rows.Close()
	open := map[string]int{} // node to index in windows
	for rows.Next() {
		var at time.Time
		var node, reported, goal, desc string
		if err := rows.Scan(&at, &node, &reported, &goal, &desc); err != nil {
			t.Fatalf("monitor events: %v", err)
		}
		lines = append(lines, fmt.Sprintf("%s %s reported %s, goal %s: %s", at.Format("15:04:05.000"), node, reported, goal, desc))
		i, isOpen := open[node]
		switch {
		case !isOpen && (goal == "wait_primary" || reported == "wait_primary"):
			open[node] = len(windows)
			windows = append(windows, asyncWindow{node: node, from: at})
		case isOpen && reported != "wait_primary" && goal != "wait_primary":
			windows[i].to = at
			delete(open, node)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("monitor events: %v", err)
	}
	return lines, windows
}

func (f *autoFailover) url(node string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable&connect_timeout=2", f.ports[node])
}

// TestReplicationFailoverAutoFailover runs a pg_auto_failover formation (a
// monitor and two nodes, synchronous replication) under a client inserting
// DEFAULT HUID keys through a multi-host DSN with
// target_session_attrs=read-write, across a planned failover (pg_autoctl
// perform switchover) and an unplanned one (the primary's pg_autoctl and
// PostgreSQL killed). Every row acknowledged under synchronous replication
// is on the final primary with the key the client was given (0 lost), no
// key repeats, and every key acknowledged after a switch sorts after every
// key acknowledged before it. Rows a node acknowledged while the monitor
// had it in wait_primary (synchronous replication off, as pg_auto_failover
// does when it judges the standby unhealthy) may be lost; the monitor's
// event log tells when that was, and they are counted, not failed.
//
// It also makes two in-doubt commits: inserts waiting for the standby
// (synchronous_commit = remote_apply while the standby's replay is paused,
// their commit records flushed on the standby) when the primary dies. Each client gets an error, yet both rows are on
// the new primary. A blind retry with a DEFAULT key stores the row a second
// time under a new key; the recipe — a key made by the client once,
// INSERT … ON CONFLICT (id) DO NOTHING, then a check that the row with that
// key is there — stores it once.
func TestReplicationFailoverAutoFailover(t *testing.T) {
	t.Parallel()
	f := startAutoFailover(t)
	ctx := t.Context()
	pgcluster.Migrate(t, f.url("node1"))
	primary := pgcluster.Connect(t, f.url("node1"))
	execAll(t, primary,
		`CREATE TABLE failover_rows (id huid PRIMARY KEY DEFAULT huid_generate(), seq int NOT NULL)`,
		`CREATE TABLE failover_orders (id huid PRIMARY KEY, payload text NOT NULL)`)
	var syncState, syncCommit string
	if err := primary.QueryRow(ctx, `SELECT sync_state, current_setting('synchronous_commit') FROM pg_stat_replication`).Scan(&syncState, &syncCommit); err != nil ||
		(syncState != "sync" && syncState != "quorum") || syncCommit != "on" {
		t.Fatalf("node1's standby: sync_state %q, synchronous_commit %q, %v; want synchronous replication, commits waiting for the standby's flush", syncState, syncCommit, err)
	}
	primary.Close(ctx)

	dsn := fmt.Sprintf("postgres://postgres@127.0.0.1:%d,127.0.0.1:%d/postgres?sslmode=disable&connect_timeout=2&target_session_attrs=read-write",
		f.ports["node1"], f.ports["node2"])
	client := startFailoverClient(dsn)
	start := time.Now()
	client.waitAckFrom(t, f.ports["node1"], start, 30*time.Second)
	time.Sleep(time.Second)

	// Planned: node2 becomes the primary.
	switchStart := time.Now()
	f.h.Run(t, 120*time.Second, "pg_autoctl", "perform", "switchover", "--pgdata", f.dirs["node1"])
	f.waitStates(t, 60*time.Second, map[string]string{"node2": "primary", "node1": "secondary"})
	switchover := time.Since(switchStart)
	client.waitAckFrom(t, f.ports["node2"], switchStart, 30*time.Second)
	time.Sleep(time.Second)

	// Two inserts in doubt: replay paused on the standby, they wait in
	// COMMIT for remote_apply when the primary dies.
	standby := pgcluster.Connect(t, f.url("node1"))
	execAll(t, standby, `SELECT pg_wal_replay_pause()`)
	orderKey := idtype.NewHUID()
	doubt := map[string]chan error{"default": make(chan error, 1), "recipe": make(chan error, 1)}
	for kind, sql := range map[string]string{
		"default": `INSERT INTO failover_rows (seq) VALUES (-1)`,
		"recipe":  `INSERT INTO failover_orders (id, payload) VALUES ($1, 'order') ON CONFLICT (id) DO NOTHING`,
	} {
		conn := pgcluster.Connect(t, f.url("node2"))
		execAll(t, conn, `SET synchronous_commit = remote_apply`)
		go func() {
			var args []any
			if kind == "recipe" {
				args = append(args, orderKey)
			}
			_, err := conn.Exec(context.Background(), sql, args...)
			doubt[kind] <- err
		}()
	}
	watcher := pgcluster.Connect(t, f.url("node2"))
	pgcluster.Eventually(t, 30*time.Second, 20*time.Millisecond, "both inserts waiting for the standby", func() (bool, error) {
		var n int
		err := watcher.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep' AND query LIKE 'INSERT%'`).Scan(&n)
		return n == 2, err
	})
	// Waiting in COMMIT, their commit records are written on node2 but may
	// not have reached the standby yet: wait until it has flushed them, so
	// that both commits are on the standby when node2 dies.
	var written string
	if err := watcher.QueryRow(ctx, `SELECT pg_current_wal_lsn()::text`).Scan(&written); err != nil {
		t.Fatal(err)
	}
	pgcluster.Eventually(t, 30*time.Second, 20*time.Millisecond, "the standby flushing the in-doubt commits", func() (bool, error) {
		var flushed bool
		err := standby.QueryRow(ctx, `SELECT pg_last_wal_receive_lsn() >= $1::pg_lsn`, written).Scan(&flushed)
		return flushed, err
	})
	watcher.Close(ctx)

	// Unplanned: node2 crashes, pg_autoctl and PostgreSQL alike.
	killed := time.Now()
	f.procs["node2"].Kill()
	for kind, ch := range doubt {
		select {
		case err := <-ch:
			if err == nil || sqlState(err) != "" {
				t.Errorf("%s insert waiting for the standby when the primary died: %v; want a connection error with no SQLSTATE (in doubt)", kind, err)
			} else {
				t.Logf("in-doubt %s insert: the client got %v", kind, err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%s insert still waiting 30 s after the primary died", kind)
		}
	}
	promotedAck := client.waitAckFrom(t, f.ports["node1"], killed, 90*time.Second)
	unplanned := promotedAck.Sub(killed)
	time.Sleep(time.Second)
	acks, failed := client.finish()

	final := pgcluster.Connect(t, f.url("node1"))
	rows, err := final.Query(ctx, `SELECT seq, id FROM failover_rows`)
	if err != nil {
		t.Fatal(err)
	}
	stored := map[int][]int64{}
	for rows.Next() {
		var seq int
		var id int64
		if err := rows.Scan(&seq, &id); err != nil {
			t.Fatal(err)
		}
		stored[seq] = append(stored[seq], id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}

	// Rows acknowledged while the primary ran synchronously are all kept;
	// rows a node acknowledged in wait_primary may be lost, and are counted.
	events, windows := f.events(t)
	nodeOf := map[int]string{f.ports["node1"]: "node1", f.ports["node2"]: "node2"}
	lost, lostAsync, ids := 0, 0, map[int64]bool{}
	for _, a := range acks {
		if ids[a.id] {
			t.Errorf("key %d acknowledged twice", a.id)
		}
		ids[a.id] = true
		if !slices.Equal(stored[a.seq], []int64{a.id}) {
			if slices.ContainsFunc(windows, func(w asyncWindow) bool { return w.covers(nodeOf[a.port], a.at) }) {
				lostAsync++
				continue
			}
			lost++
			if lost <= 5 {
				t.Errorf("acknowledged insert %d (key %d, from %s at %s, synchronous) is stored as %v on the final primary",
					a.seq, a.id, nodeOf[a.port], a.at.Format("15:04:05.000"), stored[a.seq])
			}
		}
	}
	if lost > 0 || lostAsync > 0 {
		t.Logf("%d acknowledged inserts lost while synchronous, %d while in wait_primary; the monitor's events:\n%s",
			lost, lostAsync, strings.Join(events, "\n"))
	}
	if lost > 0 {
		t.Errorf("%d inserts acknowledged under synchronous replication are not on the final primary", lost)
	}
	committedUnacked := 0
	for _, seq := range failed {
		if len(stored[seq]) > 0 {
			committedUnacked++
		}
	}

	// Runs of acknowledgements from one server: node1, node2, node1.
	var runs [][]ack
	for i, a := range acks {
		if i == 0 || a.port != acks[i-1].port {
			runs = append(runs, nil)
		}
		runs[len(runs)-1] = append(runs[len(runs)-1], a)
	}
	if len(runs) != 3 || runs[0][0].port != f.ports["node1"] || runs[1][0].port != f.ports["node2"] || runs[2][0].port != f.ports["node1"] {
		t.Fatalf("acknowledgements came from %d runs of servers; want node1, node2, node1", len(runs))
	}
	var gaps []time.Duration
	for i := 1; i < len(runs); i++ {
		before, after := runs[i-1], runs[i]
		byID := func(a, b ack) int { return cmp.Compare(a.id, b.id) }
		hi, lo := slices.MaxFunc(before, byID), slices.MinFunc(after, byID)
		if lo.id <= hi.id {
			t.Errorf("switch %d: key %d acknowledged after it sorts below key %d acknowledged before it", i, lo.id, hi.id)
		}
		gaps = append(gaps, after[0].at.Sub(before[len(before)-1].at))
	}

	// The in-doubt rows: both committed; a blind retry doubles one, the recipe does not.
	if n := len(stored[-1]); n != 1 {
		t.Errorf("the in-doubt DEFAULT-key insert is stored %d times on the new primary, want 1 (committed though the client got an error)", n)
	}
	execAll(t, final, `INSERT INTO failover_rows (seq) VALUES (-1)`) // the blind retry
	var copies int
	if err := final.QueryRow(ctx, `SELECT count(*) FROM failover_rows WHERE seq = -1`).Scan(&copies); err != nil || copies != 2 {
		t.Errorf("after a blind retry the row is stored %d times, %v; want 2, under two keys", copies, err)
	}
	tag, err := final.Exec(ctx, `INSERT INTO failover_orders (id, payload) VALUES ($1, 'order') ON CONFLICT (id) DO NOTHING`, orderKey)
	if err != nil || tag.RowsAffected() != 0 {
		t.Errorf("recipe retry: %v, %d rows inserted; want 0, the in-doubt commit having stored it", err, tag.RowsAffected())
	}
	var payload string
	var orders int
	if err := final.QueryRow(ctx, `SELECT max(payload), count(*) FROM failover_orders WHERE id = $1`, orderKey).Scan(&payload, &orders); err != nil ||
		payload != "order" || orders != 1 {
		t.Errorf("recipe check: %d rows with payload %q, %v; want the order stored once", orders, payload, err)
	}

	t.Logf("%d acknowledged inserts (%d on node1, %d on node2, %d on node1 again), %d lost (%d more acknowledged in wait_primary), %d duplicate keys; "+
		"%d inserts failed, %d of them committed without an acknowledgement",
		len(acks), len(runs[0]), len(runs[1]), len(runs[2]), lost, lostAsync, len(acks)-len(ids), len(failed), committedUnacked)
	t.Logf("planned failover: perform switchover took %v, write gap %v; unplanned: kill to first write on the new primary %v (write gap %v)",
		switchover.Round(10*time.Millisecond), gaps[0].Round(10*time.Millisecond), unplanned.Round(10*time.Millisecond),
		gaps[1].Round(10*time.Millisecond))
}

// TestReplicationFailoverAsyncPromoteLosesRows promotes an asynchronous
// pg_basebackup standby with pg_ctl promote while the old primary keeps
// running, as a failover without fencing does: inserts the old primary
// acknowledges after the promotion exist only on its timeline, none on the
// new primary, which takes writes of its own; the acknowledged rows from
// before, replayed in time, are there.
func TestReplicationFailoverAsyncPromoteLosesRows(t *testing.T) {
	t.Parallel()
	h := pgcluster.NewHost(t)
	old := h.Primary(t, "old")
	standby := old.Standby(t, "standby")
	pgcluster.Migrate(t, old.URL("postgres"))
	oc := old.Connect(t, "postgres")
	execAll(t, oc, `CREATE TABLE async_rows (id huid PRIMARY KEY DEFAULT huid_generate(), phase text NOT NULL)`,
		`INSERT INTO async_rows (phase) SELECT 'before' FROM generate_series(1, 100)`)
	sc := standby.Connect(t, "postgres")
	waitReplayed(t, oc, sc)
	standby.Promote(t)
	for range 50 { // each acknowledged by the old primary, which nothing stopped
		execAll(t, oc, `INSERT INTO async_rows (phase) VALUES ('old primary, after')`)
	}
	execAll(t, sc, `INSERT INTO async_rows (phase) SELECT 'new primary' FROM generate_series(1, 30)`)
	counts := func(conn *pgx.Conn) map[string]int {
		rows, err := conn.Query(t.Context(), `SELECT phase, count(*) FROM async_rows GROUP BY phase`)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		for rows.Next() {
			var phase string
			var n int
			if err := rows.Scan(&phase, &n); err != nil {
				t.Fatal(err)
			}
			got[phase] = n
		}
		return got
	}
	onOld, onNew := counts(oc), counts(sc)
	if onOld["old primary, after"] != 50 || onNew["old primary, after"] != 0 {
		t.Errorf("rows acknowledged by the old primary after the promotion: %d on it, %d on the new primary; want 50 and 0 (lost to the new timeline)",
			onOld["old primary, after"], onNew["old primary, after"])
	}
	if onNew["before"] != 100 || onNew["new primary"] != 30 {
		t.Errorf("new primary holds %v; want the 100 rows from before and its own 30", onNew)
	}
	t.Logf("async promote: %d acknowledged rows, %d lost", onOld["before"]+onOld["old primary, after"], onOld["old primary, after"]-onNew["old primary, after"])
}
