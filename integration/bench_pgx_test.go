package integration_test

import (
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/sortid/sortid/idtype"
	"github.com/sortid/sortid/integration/internal/pgtest"
)

// benchRows is the number of rows each benchmark iteration moves.
const benchRows = 1_000_000

// benchConn connects for a benchmark, registering pgxtype when asked.
func benchConn(b *testing.B, register bool) *pgx.Conn {
	b.Helper()
	if register {
		return registeredConn(b, pgx.QueryExecModeCacheStatement)
	}
	return pgtest.Conn(b)
}

// scanConn is benchConn with bench_ids (benchRows rows of id bigint, trace
// uuid) in place; IF NOT EXISTS makes every call after the first a no-op.
func scanConn(b *testing.B, register bool) *pgx.Conn {
	conn := benchConn(b, register)
	if _, err := conn.Exec(b.Context(), `CREATE UNLOGGED TABLE IF NOT EXISTS bench_ids AS
		SELECT huid_generate() AS id, scru128_generate() AS trace FROM generate_series(1, 1000000)`); err != nil {
		b.Fatalf("create bench_ids: %v", err)
	}
	return conn
}

// scanAll scans column col of every row of bench_ids into dst.
func scanAll(b *testing.B, conn *pgx.Conn, col string, dst any) {
	rows, err := conn.Query(b.Context(), "SELECT "+col+" FROM bench_ids")
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(dst); err != nil {
			b.Fatal(err)
		}
		n++
	}
	if rows.Err() != nil || n != benchRows {
		b.Fatalf("scanned %d rows: %v", n, rows.Err())
	}
}

// BenchmarkPgxScan scans 1 000 000 rows per iteration: HUID against int64
// and SCRU128 against pgtype.UUID with pgxtype registered, and the ID types
// without it (their sql.Scanner fallback).
func BenchmarkPgxScan(b *testing.B) {
	cases := []struct {
		name     string
		col      string
		register bool
		dst      any
	}{
		{"int64", "id", true, new(int64)},
		{"HUID", "id", true, new(idtype.HUID)},
		{"HUID-unregistered", "id", false, new(idtype.HUID)},
		{"pgtype.UUID", "trace", true, new(pgtype.UUID)},
		{"SCRU128", "trace", true, new(idtype.SCRU128)},
		{"SCRU128-unregistered", "trace", false, new(idtype.SCRU128)},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			conn := scanConn(b, c.register)
			for b.Loop() {
				scanAll(b, conn, c.col, c.dst)
			}
		})
	}
}

// BenchmarkPgxCopyFrom copies 1 000 000 rows per iteration into an empty
// unlogged table: HUID against int64 and SCRU128 against pgtype.UUID with
// pgxtype registered, and the ID types without it (driver.Valuer fallback).
func BenchmarkPgxCopyFrom(b *testing.B) {
	huids, uuids := make([][]any, benchRows), make([][]any, benchRows)
	int64s, pgUUIDs := make([][]any, benchRows), make([][]any, benchRows)
	for i := range benchRows {
		h, id := idtype.NewHUID(), idtype.NewSCRU128()
		huids[i], int64s[i] = []any{h}, []any{int64(h)}
		uuids[i], pgUUIDs[i] = []any{id}, []any{pgtype.UUID{Bytes: id, Valid: true}}
	}
	cases := []struct {
		name, sqlType string
		register      bool
		rows          [][]any
	}{
		{"int64", "bigint", true, int64s},
		{"HUID", "bigint", true, huids},
		{"HUID-unregistered", "bigint", false, huids},
		{"pgtype.UUID", "uuid", true, pgUUIDs},
		{"SCRU128", "uuid", true, uuids},
		{"SCRU128-unregistered", "uuid", false, uuids},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			conn := benchConn(b, c.register)
			table := tableName("copy")
			if _, err := conn.Exec(b.Context(), "CREATE UNLOGGED TABLE "+table+" (v "+c.sqlType+")"); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := conn.Exec(b.Context(), "TRUNCATE "+table); err != nil {
					b.Fatal(err)
				}
				n, err := conn.CopyFrom(b.Context(), pgx.Identifier{table}, []string{"v"}, pgx.CopyFromRows(c.rows))
				if err != nil || n != benchRows {
					b.Fatalf("CopyFrom: %d rows, %v", n, err)
				}
			}
		})
	}
}
