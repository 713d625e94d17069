package integration_test

import (
	"strings"
	"testing"

	"github.com/sortid/sortid/integration/internal/pgtest"
)

// TestSQLInlined checks docs/SQL.md's "Inlining": called on columns, the
// functions it names are inlined (EXPLAIN VERBOSE shows their expression,
// not a call), and the ones it says are not, are not; the native generators
// are C functions, called as such.
func TestSQLInlined(t *testing.T) {
	t.Parallel()
	conn := pgtest.Conn(t)
	ctx := t.Context()
	if _, err := conn.Exec(ctx, `CREATE TEMPORARY TABLE inl (id bigint, u uuid, b bytea, s text, ts timestamptz)`); err != nil {
		t.Fatal(err)
	}
	native := nativeInstalled(t, conn)
	tests := []struct {
		expr, function string
		inlined        bool
	}{
		{"huid_timestamp(id)", "huid_timestamp", true},
		{"huid_min(ts)", "huid_min", true},
		{"huid_max(ts)", "huid_max", true},
		{"huid_generate_at(ts)", "huid_generate_at", !native},
		{"huid_generate()", "huid_generate", !native},
		{"scru128_timestamp(u)", "scru128_timestamp", true},
		{"scru128_timestamp(b)", "scru128_timestamp", true},
		{"scru128_timestamp(s)", "scru128_timestamp", true},
		{"scru128_min(ts)", "scru128_min", true},
		{"scru128_max(ts)", "scru128_max", true},
		{"scru128_min_bytea(ts)", "scru128_min", true},
		{"scru128_max_bytea(ts)", "scru128_max", true},
		{"scru128_generate_bytea()", "scru128_generate_bytea", !native},
		{"huid_min(huid_timestamp(id))", "huid_min", true},
		{"scru128_to_text(u)", "scru128_to_text", false},
		{"scru128_from_text(s)", "scru128_from_text", false},
		{"scru128_generate_at(ts)", "scru128_generate_at", false},
	}
	for _, tt := range tests {
		rows, err := conn.Query(ctx, "EXPLAIN VERBOSE SELECT "+tt.expr+" FROM inl")
		if err != nil {
			t.Fatal(err)
		}
		var plan strings.Builder
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			plan.WriteString(line + "\n")
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if called := strings.Contains(plan.String(), tt.function+"("); called == tt.inlined {
			t.Errorf("SELECT %s: inlined %v, want %v; plan:\n%s", tt.expr, !called, tt.inlined, plan.String())
		}
	}
}

// TestSQLNullInNullOut checks docs/SQL.md's promise that every function
// taking an argument (the internal sortid_ ones aside) returns NULL for
// NULL, STRICT or not: each is called with NULL of its argument types.
func TestSQLNullInNullOut(t *testing.T) {
	t.Parallel()
	conn := pgtest.Conn(t)
	ctx := t.Context()
	rows, err := conn.Query(ctx, `
		SELECT format('%s(%s)', p.oid::regproc, string_agg(format('NULL::%s', format_type(a, NULL)), ', '))
		FROM unnest(sortid_objects()) AS e
		JOIN pg_proc p ON e LIKE 'function %' AND p.oid = to_regprocedure(substr(e, 10))
		CROSS JOIN LATERAL unnest(p.proargtypes::oid[]) AS a
		WHERE p.proname NOT LIKE 'sortid\_%'
		GROUP BY p.oid`)
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			t.Fatal(err)
		}
		calls = append(calls, c)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(calls) < 15 {
		t.Fatalf("only %d functions with arguments: %v", len(calls), calls)
	}
	for _, c := range calls {
		var isNull bool
		if err := conn.QueryRow(ctx, "SELECT "+c+" IS NULL").Scan(&isNull); err != nil || !isNull {
			t.Errorf("SELECT %s: NULL %v, err %v; want NULL", c, isNull, err)
		}
	}
}

// TestSQLNotStrictPartialIndex checks what docs/SQL.md says of the
// functions not being STRICT: from huid_timestamp(col) >= x, strict
// arithmetic, the planner infers col IS NOT NULL and a partial index WHERE
// col IS NOT NULL serves the query; from scru128_timestamp(col) >= x on
// bytea, which holds a CASE, it does not, so that query must say so itself.
func TestSQLNotStrictPartialIndex(t *testing.T) {
	t.Parallel()
	conn := pgtest.Conn(t)
	ctx := t.Context()
	for _, q := range []string{
		`CREATE TEMPORARY TABLE pi (parent bigint, b bytea)`,
		`CREATE INDEX pi_parent ON pi (parent) WHERE parent IS NOT NULL`,
		`CREATE INDEX pi_b ON pi (b) WHERE b IS NOT NULL`,
		`SET enable_seqscan = off`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	plan := func(where string) string {
		var b strings.Builder
		rows, err := conn.Query(ctx, "EXPLAIN SELECT count(*) FROM pi WHERE "+where)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			b.WriteString(line + "\n")
		}
		return b.String()
	}
	tests := []struct {
		cond, col, index string
		inferred         bool
	}{
		{"huid_timestamp(parent) >= '2026-01-01 00:01:00+00'", "parent", "pi_parent", true},
		{"scru128_timestamp(b) >= '2026-01-01 00:01:00+00'", "b", "pi_b", false},
	}
	for _, tt := range tests {
		if p := plan(tt.cond); strings.Contains(p, tt.index) != tt.inferred {
			t.Errorf("%s alone: partial index %s used %v, want %v:\n%s", tt.cond, tt.index, !tt.inferred, tt.inferred, p)
		}
		if p := plan(tt.cond + " AND " + tt.col + " IS NOT NULL"); !strings.Contains(p, tt.index) {
			t.Errorf("the partial index does not serve the query that says %s IS NOT NULL:\n%s", tt.col, p)
		}
	}
}
