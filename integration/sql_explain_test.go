package integration_test

import (
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sortid/sortid/integration/internal/pgtest"
)

// TestSQLTimeWindowUsesPrimaryKey: on 100 000 rows spread over ~28 hours,
// EXPLAIN of WHERE id BETWEEN huid_min($1) AND huid_max($2) for a one-minute
// window scans the primary-key index, with the bounds as index conditions,
// and the query returns exactly the rows of that window.
func TestSQLTimeWindowUsesPrimaryKey(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	conn := pgtest.Conn(t)
	execAll(t, conn,
		`CREATE TABLE sql_explain (id huid PRIMARY KEY, payload text NOT NULL)`,
		`INSERT INTO sql_explain
		 SELECT huid_generate_at(timestamptz '2026-06-01 00:00:00+00' + g * interval '1 second'), 'row ' || g
		 FROM generate_series(1, 100000) g`,
		`ANALYZE sql_explain`,
	)
	const query = `SELECT id, payload FROM sql_explain WHERE id BETWEEN huid_min($1) AND huid_max($2)`
	from := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	to := from.Add(time.Minute)
	var plan string
	if err := conn.QueryRow(ctx, "EXPLAIN (FORMAT JSON) "+query, from, to).Scan(&plan); err != nil {
		t.Fatalf("explain: %v", err)
	}
	if !strings.Contains(plan, `"Index Name": "sql_explain_pkey"`) || strings.Contains(plan, `"Seq Scan"`) {
		t.Errorf("plan does not scan sql_explain_pkey:\n%s", plan)
	}
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM ("+query+") q", from, to).Scan(&n); err != nil {
		t.Fatalf("count: %v", err)
	}
	if n != 61 { // seconds 43200..43260, both ends inclusive
		t.Errorf("window holds %d rows, want 61", n)
	}
}

// TestSQLHUIDGenerateInlined: the planner inlines the plain SQL
// huid_generate() (the plan shows its body, calling sortid_huid_mix, not the
// function itself), so a call costs no SQL-function invocation; the native
// one is a call of the C function.
func TestSQLHUIDGenerateInlined(t *testing.T) {
	t.Parallel()
	conn := pgtest.Conn(t)
	native := nativeInstalled(t, conn)
	rows, err := conn.Query(t.Context(), `EXPLAIN (VERBOSE, FORMAT TEXT) SELECT huid_generate()`)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	plan := strings.Join(lines, "\n")
	if inlined := !strings.Contains(plan, "huid_generate()") && strings.Contains(plan, "sortid_huid_mix("); inlined == native {
		t.Errorf("huid_generate(): inlined %v, want %v (native %v): %s", inlined, !native, native, plan)
	}
}
