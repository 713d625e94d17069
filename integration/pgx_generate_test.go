package integration_test

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sortid/sortid/idtype"
	"github.com/sortid/sortid/integration/internal/pgtest"
	"github.com/sortid/sortid/pgxtype"
)

// generatedQuery makes 200 IDs of each kind in SQL, with the times that the
// SQL functions read back from them.
const generatedQuery = `SELECT h, huid_timestamp(h), s, scru128_timestamp(s), b, scru128_timestamp(b)
	FROM (SELECT huid_generate() AS h, scru128_generate() AS s, scru128_generate_bytea() AS b
	      FROM generate_series(1, 200) OFFSET 0) AS ids`

// generated is one row of generatedQuery.
type generated struct {
	h             idtype.HUID
	hTime         time.Time
	s             idtype.SCRU128
	sTime         time.Time
	b             idtype.SCRU128Bytes
	bTime         time.Time
	before, after time.Time
}

// check reports how g disagrees with itself: each ID's Time must be the
// time PostgreSQL reads from it and lie in the millisecond window
// [before, after] of the query.
func (g generated) check(t *testing.T) {
	t.Helper()
	for _, c := range []struct {
		name     string
		id       any
		got, sql time.Time
	}{
		{"HUID", g.h, g.h.Time(), g.hTime},
		{"SCRU128", g.s, g.s.Time(), g.sTime},
		{"SCRU128Bytes", g.b, g.b.ID().Time(), g.bTime},
	} {
		if !c.got.Equal(c.sql) {
			t.Errorf("%s %v: Time() = %v, PostgreSQL says %v", c.name, c.id, c.got, c.sql)
		}
		if c.got.Before(g.before.Truncate(time.Millisecond)) || c.got.After(g.after) {
			t.Errorf("%s %v: Time() = %v, outside the query's window [%v, %v]", c.name, c.id, c.got, g.before, g.after)
		}
	}
}

// TestPgxScansGeneratedIDs scans IDs made by huid_generate() and
// scru128_generate() through pgx, in binary (registered) and text
// (QueryExecModeExec) results, and checks them against huid_timestamp and
// scru128_timestamp.
func TestPgxScansGeneratedIDs(t *testing.T) {
	t.Parallel()
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeExec} {
		t.Run(mode.String(), func(t *testing.T) {
			t.Parallel()
			conn := registeredConn(t, mode)
			before := time.Now()
			rows, err := conn.Query(t.Context(), generatedQuery)
			if err != nil {
				t.Fatalf("query: %v", err)
			}
			all := scanGenerated(t, rows)
			after := time.Now()
			for i, g := range all {
				g.before, g.after = before, after
				g.check(t)
				if i > 0 && g.s.Compare(all[i-1].s) <= 0 {
					t.Errorf("scru128_generate() not ascending in a session: %v after %v", g.s, all[i-1].s)
				}
			}
		})
	}
}

// TestPgxLoadDomains checks that LoadDomains loads both domains, makes huid[]
// columns and huid parameters travel in binary, that values still
// round-trip, and that it reports missing domains.
func TestPgxLoadDomains(t *testing.T) {
	t.Parallel()
	table := tableName("dom")
	if _, err := pgtest.Conn(t).Exec(t.Context(), "CREATE TABLE "+table+" (h huid, a huid[])"); err != nil {
		t.Fatalf("create table: %v", err)
	}
	want := []idtype.HUID{0, idtype.MustParseHUID("258037077"), idtype.MaxHUID}
	for _, load := range []bool{false, true} {
		conn := registeredConn(t, pgx.QueryExecModeCacheStatement)
		if load {
			loaded, err := pgxtype.LoadDomains(t.Context(), conn)
			if err != nil || !slices.Equal(loaded, []string{"huid", "scru128_bytes"}) {
				t.Fatalf("LoadDomains = %v, %v; want [huid scru128_bytes]", loaded, err)
			}
		}
		if _, err := conn.Exec(t.Context(), "INSERT INTO "+table+" (h, a) VALUES ($1, $2)", want[1], want); err != nil {
			t.Fatalf("load=%v: insert: %v", load, err)
		}
		rows, err := conn.Query(t.Context(), "SELECT h, a FROM "+table+" LIMIT 1")
		if err != nil {
			t.Fatalf("query: %v", err)
		}
		var h idtype.HUID
		var a []idtype.HUID
		_, err = pgx.ForEachRow(rows, []any{&h, &a}, func() error { return nil })
		if err != nil || h != want[1] || !reflect.DeepEqual(a, want) {
			t.Errorf("load=%v: scanned %v, %v (%v); want %v, %v", load, h, a, err, want[1], want)
		}
		wantFormat := map[bool]int16{false: pgx.TextFormatCode, true: pgx.BinaryFormatCode}[load]
		if f := rows.FieldDescriptions()[1].Format; f != wantFormat {
			t.Errorf("load=%v: huid[] column in format %d, want %d", load, f, wantFormat)
		}
	}

	conn := pgtest.Conn(t)
	if _, err := conn.Exec(t.Context(), "SET search_path = pg_catalog"); err != nil {
		t.Fatalf("set search_path: %v", err)
	}
	if loaded, err := pgxtype.LoadDomains(t.Context(), conn); err != nil || len(loaded) != 0 {
		t.Errorf("LoadDomains without the domains on the search_path = %v, %v; want none, nil", loaded, err)
	}
}

// generatedRows is what pgx.Rows and *sql.Rows have in common.
type generatedRows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// scanGenerated reads the 200 rows of generatedQuery.
func scanGenerated(t *testing.T, rows generatedRows) []generated {
	t.Helper()
	var all []generated
	for rows.Next() {
		var g generated
		if err := rows.Scan(&g.h, &g.hTime, &g.s, &g.sTime, &g.b, &g.bTime); err != nil {
			t.Fatalf("scan: %v", err)
		}
		all = append(all, g)
	}
	if err := rows.Err(); err != nil || len(all) != 200 {
		t.Fatalf("rows: %d, %v", len(all), err)
	}
	return all
}
