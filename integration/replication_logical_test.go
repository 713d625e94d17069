package integration_test

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sortid/sortid/integration/internal/pgcluster"
)

// mergeSetup is two publishers and a hub that subscribes to both
// (subscriptions sub1 and sub2, publication pub on each publisher) into the
// same table: merged writes, every session on every node writing one table.
type mergeSetup struct {
	pubs [2]*pgcluster.Cluster
	pc   [2]*pgx.Conn // to the publishers, pc[0] is node 1
	hub  *pgcluster.Cluster
	hc   *pgx.Conn
	// stats: the server has pg_stat_subscription_stats and the
	// subscription option disable_on_error, both new in PostgreSQL 15.
	stats bool
	// major is the clusters' major version.
	major int
}

// newMerge starts the three clusters, installs the sortid SQL in each with
// migrations.Apply, creates the table that ddl(node) makes on node 1, node 2
// and the hub (node 0), publishes it and subscribes the hub to both
// publishers, with the subscription option disable_on_error where the
// version has it, and waits until both subscriptions have synchronized it.
func newMerge(t *testing.T, ddl func(node int) string, disableOnError bool) *mergeSetup {
	t.Helper()
	h := pgcluster.NewHost(t)
	m := &mergeSetup{major: h.Major, stats: h.Major >= 15}
	opts := ""
	if m.stats {
		opts = fmt.Sprintf(" WITH (disable_on_error = %t)", disableOnError)
	}
	// A failed apply worker is restarted after wal_retrieve_retry_interval
	// (5 s by default): shortened, so that the test sees it loop quickly.
	m.hub = h.Primary(t, "hub", "wal_retrieve_retry_interval = '200ms'")
	for i := range m.pubs {
		m.pubs[i] = h.Primary(t, fmt.Sprintf("pub%d", i+1))
	}
	for i, c := range []*pgcluster.Cluster{m.hub, m.pubs[0], m.pubs[1]} {
		pgcluster.Migrate(t, c.URL("postgres"))
		conn := c.Connect(t, "postgres")
		execAll(t, conn, ddl(i))
		if i == 0 {
			m.hc = conn
			continue
		}
		m.pc[i-1] = conn
		execAll(t, conn, "CREATE PUBLICATION pub FOR TABLE merged")
	}
	for i, p := range m.pubs {
		execAll(t, m.hc, fmt.Sprintf(
			"CREATE SUBSCRIPTION sub%d CONNECTION 'host=127.0.0.1 port=%d user=postgres dbname=postgres' PUBLICATION pub%s",
			i+1, p.Port, opts))
	}
	pgcluster.Eventually(t, 30*time.Second, 50*time.Millisecond, "both subscriptions synchronizing the table", func() (bool, error) {
		var ready int
		err := m.hc.QueryRow(t.Context(), "SELECT count(*) FROM pg_subscription_rel WHERE srsubstate = 'r'").Scan(&ready)
		return ready == 2, err
	})
	return m
}

// hubCount is the number of rows on the hub that query (a SELECT count(*))
// finds.
func (m *mergeSetup) hubCount(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	if err := m.hc.QueryRow(t.Context(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// waitHub waits until the hub's count by query is want.
func (m *mergeSetup) waitHub(t *testing.T, what string, want int, query string, args ...any) {
	t.Helper()
	pgcluster.Eventually(t, 30*time.Second, 50*time.Millisecond, what, func() (bool, error) {
		var n int
		err := m.hc.QueryRow(t.Context(), query, args...).Scan(&n)
		return n == want, err
	})
}

// subscriptionState is one subscription as the monitoring query of
// docs/SCALE.md reports it.
type subscriptionState struct {
	name            string
	enabled         bool
	running         bool
	applyErrorCount int64
}

// monitoringQueryRE finds the monitoring query in docs/SCALE.md: the SQL
// block that reads pg_stat_subscription_stats.
var monitoringQueryRE = regexp.MustCompile("(?s)```sql\n([^`]*pg_stat_subscription_stats[^`]*)```")

// halted runs docs/SCALE.md's monitoring query on the hub and returns the
// subscriptions it reports, by name. Before PostgreSQL 15, which has no
// pg_stat_subscription_stats for it to read, it reports nothing.
func (m *mergeSetup) halted(t *testing.T) map[string]subscriptionState {
	t.Helper()
	got := map[string]subscriptionState{}
	if !m.stats {
		t.Logf("PostgreSQL %d has no pg_stat_subscription_stats: docs/SCALE.md's monitoring query is not run", m.major)
		return got
	}
	page, err := os.ReadFile("../docs/SCALE.md")
	if err != nil {
		t.Fatal(err)
	}
	match := monitoringQueryRE.FindSubmatch(page)
	if match == nil {
		t.Fatal("docs/SCALE.md has no sql block reading pg_stat_subscription_stats (the monitoring query)")
	}
	rows, err := m.hc.Query(t.Context(), string(match[1]))
	if err != nil {
		t.Fatalf("docs/SCALE.md's monitoring query: %v", err)
	}
	for rows.Next() {
		var s subscriptionState
		if err := rows.Scan(&s.name, &s.enabled, &s.running, &s.applyErrorCount); err != nil {
			t.Fatalf("docs/SCALE.md's monitoring query: %v", err)
		}
		got[s.name] = s
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return got
}

// applyErrors is the hub's pg_stat_subscription_stats.apply_error_count of
// subscription sub; before PostgreSQL 15, the restarts of its apply worker
// in the hub's log.
func (m *mergeSetup) applyErrors(t *testing.T, sub string) int64 {
	t.Helper()
	if !m.stats {
		starts := strings.Count(m.hub.Log(), fmt.Sprintf(`logical replication apply worker for subscription "%s" has started`, sub))
		return int64(max(starts-1, 0))
	}
	var n int64
	if err := m.hc.QueryRow(t.Context(), `SELECT apply_error_count FROM pg_stat_subscription_stats WHERE subname = $1`, sub).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestReplicationLogicalHUIDCollisionHaltsHub merges two publishers whose
// table is keyed by a HUID alone and forces one collision: the same key,
// inserted on both publishers, where both inserts succeed (there is nothing
// for a client to retry). The hub applies the first; sub2's apply worker
// fails with the unique violation (23505 in the hub's log), is restarted,
// fails again, and apply_error_count climbs while every later change from
// that publisher waits (none arrives, its slot falls behind); the other
// publisher's changes keep arriving. docs/SCALE.md's monitoring query
// reports sub2 and not sub1. With disable_on_error = true the subscription
// is disabled at the next error instead, and the count stops climbing.
func TestReplicationLogicalHUIDCollisionHaltsHub(t *testing.T) {
	t.Parallel()
	m := newMerge(t, func(int) string {
		return `CREATE TABLE merged (id huid PRIMARY KEY DEFAULT huid_generate(), node int NOT NULL, n int NOT NULL)`
	}, false)
	ctx := t.Context()
	for i, pc := range m.pc {
		execAll(t, pc, fmt.Sprintf(`INSERT INTO merged (node, n) SELECT %d, g FROM generate_series(1, 100) g`, i+1))
	}
	m.waitHub(t, "200 rows from the two publishers", 200, `SELECT count(*) FROM merged`)
	if got := m.halted(t); len(got) != 0 {
		t.Fatalf("monitoring query before the collision reports %v, want nothing", got)
	}

	// The forced collision: a key made on node 1, inserted on both. Node 1's
	// copy reaches the hub first, so node 2's is the one refused.
	var key int64
	if err := m.pc[0].QueryRow(ctx, `INSERT INTO merged (node, n) VALUES (1, 0) RETURNING id`).Scan(&key); err != nil {
		t.Fatal(err)
	}
	m.waitHub(t, "node 1's copy of the key", 1, `SELECT count(*) FROM merged WHERE id = $1`, key)
	if _, err := m.pc[1].Exec(ctx, `INSERT INTO merged (id, node, n) VALUES ($1, 2, 0)`, key); err != nil {
		t.Fatalf("node 2's insert of the same key failed on its own primary: %v; want it to succeed", err)
	}
	for i, pc := range m.pc { // later writes, each in its own transaction
		for n := 101; n <= 110; n++ {
			execAll(t, pc, fmt.Sprintf(`INSERT INTO merged (node, n) VALUES (%d, %d)`, i+1, n))
		}
	}

	first := int64(0)
	pgcluster.Eventually(t, 30*time.Second, 50*time.Millisecond, "sub2's apply worker failing", func() (bool, error) {
		first = m.applyErrors(t, "sub2")
		return first >= 1, nil
	})
	pgcluster.Eventually(t, 30*time.Second, 50*time.Millisecond, "sub2's apply_error_count climbing", func() (bool, error) {
		return m.applyErrors(t, "sub2") >= first+2, nil
	})
	log := m.hub.Log()
	for _, want := range uniqueViolationLog(m.major) {
		if !strings.Contains(log, want) {
			t.Errorf("the hub's log does not show the unique violation (%s); its end:\n%s", want, log[max(0, len(log)-2000):])
		}
	}
	m.waitHub(t, "node 1's later rows", 110, `SELECT count(*) FROM merged WHERE node = 1 AND n > 0`)
	if n := m.hubCount(t, `SELECT count(*) FROM merged WHERE node = 2`); n != 100 {
		t.Errorf("hub holds %d rows of node 2, want its 100 from before the collision and none after", n)
	}
	if n := m.applyErrors(t, "sub1"); n != 0 {
		t.Errorf("sub1 apply_error_count = %d, want 0", n)
	}
	var behind bool
	if err := m.pc[1].QueryRow(ctx, `SELECT confirmed_flush_lsn < pg_current_wal_lsn() FROM pg_replication_slots WHERE slot_name = 'sub2'`).Scan(&behind); err != nil || !behind {
		t.Errorf("node 2's slot sub2 is not behind its WAL (err %v): it should be holding the unapplied changes", err)
	}
	if !m.stats {
		t.Logf("PostgreSQL %d has neither pg_stat_subscription_stats nor disable_on_error: sub2 restarted %d times", m.major, first+2)
		return
	}
	got := m.halted(t)
	if s, ok := got["sub2"]; !ok || !s.enabled || s.applyErrorCount < first+2 {
		t.Errorf("monitoring query reports %v; want sub2, enabled, with apply_error_count ≥ %d", got, first+2)
	}
	if _, ok := got["sub1"]; ok {
		t.Errorf("monitoring query reports sub1, which is healthy: %v", got)
	}

	// disable_on_error: the next failure disables the subscription.
	execAll(t, m.hc, `ALTER SUBSCRIPTION sub2 SET (disable_on_error = true)`)
	pgcluster.Eventually(t, 30*time.Second, 50*time.Millisecond, "sub2 disabling itself", func() (bool, error) {
		var enabled bool
		err := m.hc.QueryRow(ctx, `SELECT subenabled FROM pg_subscription WHERE subname = 'sub2'`).Scan(&enabled)
		return err == nil && !enabled, err
	})
	// The error that disabled it may reach the statistics a moment after.
	settled := int64(-1)
	pgcluster.Eventually(t, 30*time.Second, time.Second, "sub2's apply_error_count settling", func() (bool, error) {
		n := m.applyErrors(t, "sub2")
		stable := n == settled
		settled = n
		return stable, nil
	})
	time.Sleep(time.Second) // five restart intervals
	if n := m.applyErrors(t, "sub2"); n != settled {
		t.Errorf("disabled sub2's apply_error_count went from %d to %d; want it to stop climbing", settled, n)
	}
	if s, ok := m.halted(t)["sub2"]; !ok || s.enabled || s.running {
		t.Errorf("monitoring query reports sub2 as %+v (found %v); want it disabled and not running", s, ok)
	}
	if n := m.hubCount(t, `SELECT count(*) FROM merged WHERE node = 2`); n != 100 {
		t.Errorf("hub holds %d rows of node 2 after disabling, want 100", n)
	}
	t.Logf("sub2: apply_error_count %d when looping was seen, %d when disable_on_error stopped it", first+2, settled)
}

// uniqueViolationLog is how an apply worker of PostgreSQL major logs the
// collision in the hub's log: from PostgreSQL 18 as a conflict, with the
// index in its DETAIL.
func uniqueViolationLog(major int) []string {
	if major >= 18 {
		return []string{`ERROR:  conflict detected on relation "public.merged": conflict=insert_exists`,
			`DETAIL:  Key already exists in unique index "merged_pkey"`}
	}
	return []string{`ERROR:  duplicate key value violates unique constraint "merged_pkey"`}
}

// TestReplicationLogicalCompositeKeyMerges: with the key (node_id, id) on
// both publishers and the hub, each node's node_id its column DEFAULT, the
// same HUID inserted on both publishers is two rows on the hub; the
// primary key is the replica identity, so updates and deletes of either
// arrive too, and no apply worker fails (the monitoring query reports
// nothing).
func TestReplicationLogicalCompositeKeyMerges(t *testing.T) {
	t.Parallel()
	m := newMerge(t, func(node int) string {
		def := ""
		if node > 0 {
			def = fmt.Sprintf(" DEFAULT %d CHECK (node_id = %d)", node, node)
		}
		return `CREATE TABLE merged (node_id smallint NOT NULL` + def + `,
			id huid NOT NULL DEFAULT huid_generate(), payload text NOT NULL, PRIMARY KEY (node_id, id))`
	}, true)
	ctx := t.Context()
	var key int64
	if err := m.pc[0].QueryRow(ctx, `SELECT huid_generate()`).Scan(&key); err != nil {
		t.Fatal(err)
	}
	for i, pc := range m.pc {
		execAll(t, pc, fmt.Sprintf(`INSERT INTO merged (id, payload) VALUES (%d, 'node %d')`, key, i+1),
			`INSERT INTO merged (payload) SELECT 'more' FROM generate_series(1, 100)`)
	}
	m.waitHub(t, "both copies of the key and 200 more rows", 202, `SELECT count(*) FROM merged`)
	if n := m.hubCount(t, `SELECT count(*) FROM merged WHERE id = $1`, key); n != 2 {
		t.Errorf("hub holds %d rows with the shared id, want 2 (one per node)", n)
	}
	for i, pc := range m.pc {
		execAll(t, pc, fmt.Sprintf(`UPDATE merged SET payload = 'node %d, updated' WHERE id = %d`, i+1, key))
	}
	m.waitHub(t, "both updates", 2, `SELECT count(*) FROM merged WHERE id = $1 AND payload = 'node ' || node_id || ', updated'`, key)
	execAll(t, m.pc[1], fmt.Sprintf(`DELETE FROM merged WHERE id = %d`, key))
	m.waitHub(t, "node 2's delete", 1, `SELECT count(*) FROM merged WHERE id = $1`, key)
	if n := m.hubCount(t, `SELECT count(*) FROM merged WHERE id = $1 AND node_id = 1`, key); n != 1 {
		t.Errorf("node 1's row with the shared id is gone from the hub after node 2's delete")
	}
	if got := m.halted(t); len(got) != 0 {
		t.Errorf("monitoring query reports %v, want nothing", got)
	}
	for _, sub := range []string{"sub1", "sub2"} {
		if n := m.applyErrors(t, sub); n != 0 {
			t.Errorf("%s apply_error_count = %d, want 0", sub, n)
		}
	}
}

// TestReplicationLogicalSCRU128KeysMerge runs a load under which HUID keys
// collide for certain — node 2 inserts every HUID node 1 made — keyed by
// scru128_generate() instead, the HUID kept as a plain column: all rows of
// both nodes arrive at the hub, the SCRU128 keys all distinct while every
// HUID is there twice, and no apply worker fails.
func TestReplicationLogicalSCRU128KeysMerge(t *testing.T) {
	t.Parallel()
	const rows = 5000
	m := newMerge(t, func(int) string {
		return `CREATE TABLE merged (id uuid PRIMARY KEY DEFAULT scru128_generate(), huid bigint NOT NULL, node int NOT NULL)`
	}, true)
	ctx := t.Context()
	hrows, err := m.pc[0].Query(ctx, fmt.Sprintf(`INSERT INTO merged (huid, node) SELECT huid_generate(), 1 FROM generate_series(1, %d) RETURNING huid`, rows))
	if err != nil {
		t.Fatal(err)
	}
	huids, err := pgx.CollectRows(hrows, pgx.RowTo[int64])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.pc[1].Exec(ctx, `INSERT INTO merged (huid, node) SELECT h, 2 FROM unnest($1::bigint[]) h`, huids); err != nil {
		t.Fatal(err)
	}
	m.waitHub(t, "both nodes' rows", 2*rows, `SELECT count(*) FROM merged`)
	var distinctIDs, distinctHUIDs int
	if err := m.hc.QueryRow(ctx, `SELECT count(DISTINCT id), count(DISTINCT huid) FROM merged`).Scan(&distinctIDs, &distinctHUIDs); err != nil {
		t.Fatal(err)
	}
	if distinctIDs != 2*rows || distinctHUIDs != rows {
		t.Errorf("hub: %d distinct SCRU128 keys and %d distinct HUIDs in %d rows; want %d and %d", distinctIDs, distinctHUIDs, 2*rows, 2*rows, rows)
	}
	for node := 1; node <= 2; node++ {
		if n := m.hubCount(t, `SELECT count(*) FROM merged WHERE node = $1`, node); n != rows {
			t.Errorf("hub holds %d rows of node %d, want %d", n, node, rows)
		}
	}
	if got := m.halted(t); len(got) != 0 {
		t.Errorf("monitoring query reports %v, want nothing", got)
	}
}
