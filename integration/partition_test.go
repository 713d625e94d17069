package integration_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sortid/sortid/idtype"
	"github.com/sortid/sortid/integration/internal/pgcluster"
	"github.com/sortid/sortid/integration/internal/pgtest"
)

// partitionedEvents is the native daily partitioning of
// docs/recipes/partitioning.md.
const partitionedEvents = `
CREATE TABLE events (
  id   bigint NOT NULL DEFAULT huid_generate(),
  body text   NOT NULL,
  PRIMARY KEY (id)
) PARTITION BY RANGE (id);
CREATE TABLE events_2026_11_30 PARTITION OF events
  FOR VALUES FROM (huid_min('2026-11-30+00')) TO (huid_min('2026-12-01+00'));
CREATE TABLE events_2026_12_01 PARTITION OF events
  FOR VALUES FROM (huid_min('2026-12-01+00')) TO (huid_min('2026-12-02+00'));
CREATE TABLE events_2026_12_02 PARTITION OF events
  FOR VALUES FROM (huid_min('2026-12-02+00')) TO (huid_min('2026-12-03+00'));`

// planRelations returns the relations a plan reads, and the total of its
// "Subplans Removed" (partitions pruned when the plan ran), from EXPLAIN
// (FORMAT JSON) of query run on conn.
func planRelations(t *testing.T, conn *sql.Conn, query string, args ...any) ([]string, int) {
	t.Helper()
	var out string
	if err := conn.QueryRowContext(t.Context(), "EXPLAIN (FORMAT JSON) "+query, args...).Scan(&out); err != nil {
		t.Fatalf("EXPLAIN %s: %v", query, err)
	}
	var plans []struct{ Plan planNode }
	if err := json.Unmarshal([]byte(out), &plans); err != nil {
		t.Fatalf("EXPLAIN output: %v", err)
	}
	var rels []string
	removed := 0
	var walk func(n planNode)
	walk = func(n planNode) {
		if n.Relation != "" {
			rels = append(rels, n.Relation)
		}
		removed += n.SubplansRemoved
		for _, c := range n.Plans {
			walk(c)
		}
	}
	walk(plans[0].Plan)
	slices.Sort(rels)
	return slices.Compact(rels), removed
}

// planNode is the part of an EXPLAIN (FORMAT JSON) node that pruning shows in.
type planNode struct {
	Relation        string     `json:"Relation Name"`
	SubplansRemoved int        `json:"Subplans Removed"`
	Plans           []planNode `json:"Plans"`
}

// TestPartitionByHUIDDay checks the native daily partitions of the recipe:
// rows go to the partition of their UTC day, up to the millisecond at the
// edges, and a one-day query reads only that day's partition, pruned at plan
// time with literal bounds and at run time in a generic plan, with the
// bounds as huid_min of timestamps or as HUIDRange's keys.
func TestPartitionByHUIDDay(t *testing.T) {
	t.Parallel()
	_, db := migratedDatabase(t)
	conn, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	page, err := os.ReadFile("../docs/recipes/partitioning.md")
	if err != nil || !strings.Contains(string(page), strings.TrimSpace(partitionedEvents)) {
		t.Fatalf("docs/recipes/partitioning.md does not show partitionedEvents as this test runs it (%v)", err)
	}
	// Bounds must mean the same instant in every session: in a zone far from
	// UTC, a bound written without its offset would route rows wrongly.
	if _, err := conn.ExecContext(t.Context(), "SET TimeZone = 'Pacific/Kiritimati'"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(t.Context(), partitionedEvents); err != nil {
		t.Fatal(err)
	}

	routes := []struct{ at, partition string }{
		{"2026-11-30 00:00:00+00", "events_2026_11_30"},
		{"2026-11-30 23:59:59.999+00", "events_2026_11_30"},
		{"2026-12-01 00:00:00+00", "events_2026_12_01"},
		{"2026-12-01 01:00:00+01", "events_2026_12_01"}, // the same instant as the row above
		{"2026-12-01 23:59:59.999+00", "events_2026_12_01"},
		{"2026-12-02 00:59:59.999+01", "events_2026_12_01"},
		{"2026-12-02 12:00:00+00", "events_2026_12_02"},
	}
	for _, r := range routes {
		var got string
		err := conn.QueryRowContext(t.Context(), `INSERT INTO events (id, body) VALUES (huid_generate_at($1), $1)
			RETURNING tableoid::regclass::text`, r.at).Scan(&got)
		if err != nil || got != r.partition {
			t.Errorf("row made at %s went to %q (%v), want %s", r.at, got, err, r.partition)
		}
	}
	_, err = conn.ExecContext(t.Context(), `INSERT INTO events (id, body) VALUES (huid_generate_at('2026-12-03+00'), 'no partition')`)
	if err == nil || !strings.Contains(err.Error(), "no partition of relation") {
		t.Errorf("insert past the last partition: %v, want no partition found", err)
	}
	if _, err := conn.ExecContext(t.Context(), "ANALYZE events"); err != nil {
		t.Fatal(err)
	}

	from, to := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	lo, hi, err := idtype.HUIDRange(from, to)
	if err != nil {
		t.Fatal(err)
	}
	var minFrom, minTo idtype.HUID
	if err := conn.QueryRowContext(t.Context(), "SELECT huid_min($1), huid_min($2)", from, to).Scan(&minFrom, &minTo); err != nil {
		t.Fatal(err)
	}
	if minFrom != lo || minTo != hi+1 {
		t.Errorf("huid_min of the day's edges = %d, %d; HUIDRange = %d, %d (to exclusive)", minFrom, minTo, lo, hi)
	}

	day := []string{"events_2026_12_01"}
	literal := []string{
		`SELECT * FROM events WHERE id >= huid_min('2026-12-01+00') AND id < huid_min('2026-12-02+00')`,
		`SELECT * FROM events WHERE id BETWEEN huid_min('2026-12-01+00') AND huid_max('2026-12-01 23:59:59.999+00')`,
		fmt.Sprintf(`SELECT * FROM events WHERE id BETWEEN %d AND %d`, lo, hi),
	}
	for _, q := range literal {
		if rels, removed := planRelations(t, conn, q); !slices.Equal(rels, day) || removed != 0 {
			t.Errorf("%s: plan reads %v (%d removed at run time), want %v pruned when planned", q, rels, removed, day)
		}
	}

	if _, err := conn.ExecContext(t.Context(), "SET plan_cache_mode = force_generic_plan"); err != nil {
		t.Fatal(err)
	}
	generic := []struct {
		prepare, execute string
	}{
		{`PREPARE by_time(timestamptz, timestamptz) AS SELECT * FROM events WHERE id >= huid_min($1) AND id < huid_min($2)`,
			`EXECUTE by_time('2026-12-01+00', '2026-12-02+00')`},
		{`PREPARE by_key(bigint, bigint) AS SELECT * FROM events WHERE id BETWEEN $1 AND $2`,
			fmt.Sprintf(`EXECUTE by_key(%d, %d)`, lo, hi)},
	}
	for _, g := range generic {
		if _, err := conn.ExecContext(t.Context(), g.prepare); err != nil {
			t.Fatal(err)
		}
		if rels, removed := planRelations(t, conn, g.execute); !slices.Equal(rels, day) || removed != 2 {
			t.Errorf("%s: generic plan reads %v with %d subplans removed, want %v and 2 removed at run time", g.execute, rels, removed, day)
		}
	}
}

// partmanDatabase is migratedDatabase with pg_partman created in schema
// partman, as the recipe does; without the extension it fails under CI=true
// and skips otherwise.
func partmanDatabase(t *testing.T) *sql.DB {
	t.Helper()
	_, db := migratedDatabase(t)
	needExtension(t, "pg_partman")
	if _, err := db.ExecContext(t.Context(), `CREATE SCHEMA partman; CREATE EXTENSION pg_partman SCHEMA partman`); err != nil {
		t.Fatal(err)
	}
	return db
}

// needExtension skips the test, or under CI=true fails it unless it is a
// listed exception (pgcluster.Missing), when the test server cannot create
// the extension name.
func needExtension(t *testing.T, name string) {
	t.Helper()
	ok, err := pgtest.CheckExtension(t.Context(), pgtest.URL(t), name, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		major, err := pgtest.ServerMajor(t.Context(), pgtest.URL(t))
		if err != nil {
			t.Fatal(err)
		}
		pgcluster.Missing(t, major, name, pgtest.ExtensionFix(name))
	}
}

// dayKeys is one UTC day of HUIDs, pg_partman's p_interval in the recipe.
const dayKeys = 86400000 << 21

// logsTable and createLogs are the recipe's pg_partman table, with the
// start partition and premake of the case.
const logsTable = `CREATE TABLE logs (
  id   bigint NOT NULL DEFAULT huid_generate() CHECK (id >= 0),
  line text   NOT NULL
) PARTITION BY RANGE (id)`

func createLogs(t *testing.T, db *sql.DB, premake int, start string) {
	t.Helper()
	if _, err := db.ExecContext(t.Context(), logsTable); err != nil {
		t.Fatal(err)
	}
	args := fmt.Sprintf(`p_parent_table := 'public.logs', p_control := 'id', p_type := 'native',
		p_interval := (86400000::bigint << 21)::text, p_premake := %d`, premake)
	if start != "" {
		args += ", p_start_partition := " + start
	}
	if _, err := db.ExecContext(t.Context(), "SELECT partman.create_parent("+args+")"); err != nil {
		t.Fatalf("create_parent: %v", err)
	}
}

// partitionDays returns the days, counted from today (UTC), that the
// partitions of logs start at, and checks that each is one whole UTC day.
func partitionDays(t *testing.T, db *sql.DB) []int {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), `SELECT i.child_start_id, i.child_end_id, huid_min(date_trunc('day', now(), 'UTC'))
		FROM partman.show_partitions('public.logs') p,
		     partman.show_partition_info(p.partition_schemaname || '.' || p.partition_tablename, p_parent_table := 'public.logs') i
		ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var days []int
	for rows.Next() {
		var start, end, today int64
		if err := rows.Scan(&start, &end, &today); err != nil {
			t.Fatal(err)
		}
		if start%dayKeys != 0 || end != start+dayKeys-1 {
			t.Errorf("partition [%d, %d] is not one UTC day of HUIDs", start, end)
		}
		days = append(days, int((start-today)/dayKeys))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return days
}

// insertLog inserts a row with key expr and returns the partition it went to.
func insertLog(t *testing.T, db *sql.DB, expr string) string {
	t.Helper()
	var part string
	err := db.QueryRowContext(t.Context(), "INSERT INTO logs (id, line) VALUES ("+expr+", $1) RETURNING tableoid::regclass::text", expr).Scan(&part)
	if err != nil {
		t.Fatalf("insert %s: %v", expr, err)
	}
	return part
}

// runMaintenance runs pg_partman's maintenance of logs.
func runMaintenance(ctx context.Context, db *sql.DB) error {
	_, err := db.ExecContext(ctx, "SELECT partman.run_maintenance('public.logs')")
	return err
}

// daysFrom returns the days first to last.
func daysFrom(first, last int) []int {
	var d []int
	for i := first; i <= last; i++ {
		d = append(d, i)
	}
	return d
}

// TestPartmanRecipe checks the pg_partman recipe of
// docs/recipes/partitioning.md and each limit it states.
func TestPartmanRecipe(t *testing.T) {
	t.Parallel()
	const today = "huid_min(date_trunc('day', now(), 'UTC'))"
	todayPart := func(t *testing.T, db *sql.DB) string {
		var id int64
		if err := db.QueryRowContext(t.Context(), "SELECT "+today).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("logs_p%d", id)
	}

	t.Run("daily from today", func(t *testing.T) {
		t.Parallel()
		db := partmanDatabase(t)
		createLogs(t, db, 3, today+"::text")
		if got, want := partitionDays(t, db), daysFrom(0, 3); !slices.Equal(got, want) {
			t.Errorf("partitions start %v days from today, want %v", got, want)
		}
		if got, want := insertLog(t, db, "DEFAULT"), todayPart(t, db); got != want {
			t.Errorf("a row made now went to %s, want %s", got, want)
		}
	})

	t.Run("refuses the huid domain", func(t *testing.T) {
		t.Parallel()
		db := partmanDatabase(t)
		if _, err := db.ExecContext(t.Context(), `CREATE TABLE logs (id huid NOT NULL DEFAULT huid_generate()) PARTITION BY RANGE (id)`); err != nil {
			t.Fatal(err)
		}
		_, err := db.ExecContext(t.Context(), `SELECT partman.create_parent('public.logs', 'id', 'native', (86400000::bigint << 21)::text)`)
		if err == nil || !strings.Contains(err.Error(), "only supports partitioning of data types that are integer or date/timestamp") {
			t.Errorf("create_parent on a huid column: %v, want pg_partman's refusal", err)
		}
	})

	t.Run("without a start partition", func(t *testing.T) {
		t.Parallel()
		db := partmanDatabase(t)
		createLogs(t, db, 3, "")
		var first, last time.Time
		err := db.QueryRowContext(t.Context(), `SELECT huid_timestamp(min(i.child_start_id)), huid_timestamp(max(i.child_end_id))
			FROM partman.show_partitions('public.logs') p,
			     partman.show_partition_info(p.partition_schemaname || '.' || p.partition_tablename, p_parent_table := 'public.logs') i`).Scan(&first, &last)
		if err != nil {
			t.Fatal(err)
		}
		if want := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC); !first.Equal(want) || last.After(want.AddDate(0, 0, 4)) {
			t.Errorf("partitions cover %v .. %v, want the first days from %v", first, last, want)
		}
		if got := insertLog(t, db, "DEFAULT"); got != "logs_default" {
			t.Errorf("a row made now went to %s, want logs_default", got)
		}
	})

	t.Run("premake counts from max(id)", func(t *testing.T) {
		t.Parallel()
		db := partmanDatabase(t)
		createLogs(t, db, 2, "huid_min(date_trunc('day', now(), 'UTC') - interval '10 days')::text")
		insertLog(t, db, "huid_generate_at(now() - interval '10 days')")
		if err := runMaintenance(t.Context(), db); err != nil {
			t.Fatal(err)
		}
		if got, want := partitionDays(t, db), daysFrom(-10, -8); !slices.Equal(got, want) {
			t.Errorf("after maintenance with the newest row 10 days old, partitions start %v days from today, want %v", got, want)
		}
		insertLog(t, db, "huid_generate_at(now() - interval '8 days')")
		if err := runMaintenance(t.Context(), db); err != nil {
			t.Fatal(err)
		}
		if got, want := partitionDays(t, db), daysFrom(-10, -6); !slices.Equal(got, want) {
			t.Errorf("after maintenance with the newest row 8 days old, partitions start %v days from today, want %v", got, want)
		}
		if got := insertLog(t, db, "DEFAULT"); got != "logs_default" {
			t.Errorf("a row made now went to %s, want logs_default", got)
		}
		err := runMaintenance(t.Context(), db)
		if err == nil || !strings.Contains(err.Error(), "updated partition constraint for default partition") {
			t.Errorf("maintenance with today's row in the default partition: %v, want the default partition's constraint violated", err)
		}
	})

	t.Run("retention counts from max(id)", func(t *testing.T) {
		t.Parallel()
		db := partmanDatabase(t)
		createLogs(t, db, 10, "huid_min(date_trunc('day', now(), 'UTC') - interval '10 days')::text")
		for _, age := range []string{"10 days", "5 days", "3 days"} {
			insertLog(t, db, "huid_generate_at(now() - interval '"+age+"')")
		}
		if got := insertLog(t, db, "DEFAULT"); got != todayPart(t, db) {
			t.Errorf("a row made now went to %s, want %s", got, todayPart(t, db))
		}
		_, err := db.ExecContext(t.Context(), `UPDATE partman.part_config
			SET retention = (3 * 86400000::bigint << 21)::text, retention_keep_table = false
			WHERE parent_table = 'public.logs'`)
		if err != nil {
			t.Fatal(err)
		}
		if err := runMaintenance(t.Context(), db); err != nil {
			t.Fatal(err)
		}
		// max(id) is now: a partition goes once its end is 3 days or more
		// below it (day -4 ends at midnight of day -3, before now - 3 days);
		// premake makes 10 days past today's.
		if got, want := partitionDays(t, db), daysFrom(-3, 10); !slices.Equal(got, want) {
			t.Errorf("after maintenance, partitions start %v days from today, want %v", got, want)
		}
		var n int
		if err := db.QueryRowContext(t.Context(), `SELECT count(*) FROM logs`).Scan(&n); err != nil || n != 2 {
			t.Errorf("%d rows left (%v), want the 2 of the last 3 days", n, err)
		}
		var dropped int
		err = db.QueryRowContext(t.Context(), `SELECT count(*) FROM pg_class WHERE relname LIKE 'logs\_p%' AND relkind = 'r'`).Scan(&dropped)
		if err != nil || dropped != 14 {
			t.Errorf("%d partition tables exist (%v), want 14: retention_keep_table = false drops the others", dropped, err)
		}
	})
}

func TestCheckExtension(t *testing.T) {
	t.Parallel()
	const missing = "sortid_no_such_extension"
	for _, ci := range []string{"", "true"} {
		ok, err := pgtest.CheckExtension(t.Context(), pgtest.URL(t), missing, func(k string) string {
			return map[string]string{pgtest.EnvCI: ci}[k]
		})
		if ok || (ci == "true") != (err != nil) {
			t.Errorf("CI=%q: CheckExtension(%s) = %v, %v; want false, and an error only under CI", ci, missing, ok, err)
		}
	}
	if ok, err := pgtest.CheckExtension(t.Context(), pgtest.URL(t), "plpgsql", os.Getenv); !ok || err != nil {
		t.Errorf("CheckExtension(plpgsql) = %v, %v; want true", ok, err)
	}
}
