package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/sortid/sortid/idtype"
)

// keyKind is one primary-key representation of the load benchmark.
type keyKind struct {
	name    string
	table   string // one table per kind: pgx caches statement descriptions by SQL text
	sqlType string
	// ids returns n fresh keys, in the order they are loaded, as the Go
	// values pgx encodes in binary: int64 for bigint, pgtype.UUID for uuid,
	// []byte for bytea. Plain pgx types, so the numbers do not depend on
	// pgxtype's codecs.
	ids func(n int) []any
}

// keyKinds are the contenders; the baseline, UUIDv4, comes first. Keys are
// made in a tight loop, as fast as the generator goes (HUID: thousands per
// millisecond), which is the worst case for HUID's random low bits.
var keyKinds = []keyKind{
	{"uuidv4 uuid", "bench_uuidv4", "uuid", each(func() any { return pgtype.UUID{Bytes: uuid.New(), Valid: true} })},
	{"uuidv7 uuid", "bench_uuidv7", "uuid", each(func() any { return pgtype.UUID{Bytes: must(uuid.NewV7()), Valid: true} })},
	{"huid bigint", "bench_huid", "bigint", each(func() any { return int64(idtype.NewHUID()) })},
	{"huid bigint, sorted", "bench_huid_sorted", "bigint", sortedHUIDs},
	{"bigint 1..n (reference)", "bench_bigint_seq", "bigint", sequential},
	{"scru128 uuid", "bench_scru128", "uuid", each(func() any { return pgtype.UUID{Bytes: idtype.NewSCRU128(), Valid: true} })},
	{"scru128 bytea", "bench_scru128_bytea", "bytea", each(func() any { id := idtype.NewSCRU128(); return id[:] })},
}

const loadBaseline = "uuidv4 uuid"

func each(next func() any) func(int) []any {
	return func(n int) []any {
		ids := make([]any, n)
		for i := range ids {
			ids[i] = next()
		}
		return ids
	}
}

// sortedHUIDs are NewHUIDs loaded in ascending order: what a generator that
// is monotonic within a millisecond would give, to price HUID's random
// within-millisecond order against it.
func sortedHUIDs(n int) []any {
	hs := make([]int64, n)
	for i := range hs {
		hs[i] = int64(idtype.NewHUID())
	}
	slices.Sort(hs)
	ids := make([]any, n)
	for i, h := range hs {
		ids[i] = h
	}
	return ids
}

// sequential is 1..n: the best case of a bigint key (bigserial's order).
func sequential(n int) []any {
	ids := make([]any, n)
	for i := range ids {
		ids[i] = int64(i + 1)
	}
	return ids
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// makeRows builds the rows (key, n) before the clock starts, so the loads
// time PostgreSQL and the wire, not the generators.
func makeRows(k keyKind, n int) [][]any {
	ids := k.ids(n)
	rows := make([][]any, n)
	for i, id := range ids {
		rows[i] = []any{id, int32(i)}
	}
	return rows
}

// loadTables are the results of the load benchmark.
type loadTables struct {
	copyTime, insertTime, tableSize, indexSize *table
}

func newLoadTables(rows int) *loadTables {
	return &loadTables{
		copyTime:   newTable(fmt.Sprintf("Bulk load by COPY (pgx CopyFrom), %d rows", rows), "s", loadBaseline),
		insertTime: newTable(fmt.Sprintf("Bulk load by batched INSERT (1000-row VALUES, 10 per pgx.Batch), %d rows", rows), "s", loadBaseline),
		tableSize:  newTable(fmt.Sprintf("Table size after COPY, %d rows (id, n int)", rows), "MiB", loadBaseline),
		indexSize:  newTable(fmt.Sprintf("Primary-key index size after COPY, %d rows", rows), "MiB", loadBaseline),
	}
}

// loadRound loads every key kind once by COPY and once by INSERT, starting
// at a different contender each round so no one always runs first.
func loadRound(ctx context.Context, conn *pgx.Conn, round, n int, t *loadTables) error {
	for i := range keyKinds {
		k := keyKinds[(i+round)%len(keyKinds)]
		rows := makeRows(k, n)
		d, err := timedLoad(ctx, conn, k, func() error { return copyRows(ctx, conn, k.table, rows) })
		if err != nil {
			return fmt.Errorf("COPY %s: %w", k.name, err)
		}
		t.copyTime.add(k.name, d.Seconds())
		heap, idx, err := sizes(ctx, conn, k.table)
		if err != nil {
			return err
		}
		t.tableSize.add(k.name, heap)
		t.indexSize.add(k.name, idx)
		logf("round %d: COPY %-14s %6.2fs  table %.1f MiB  pkey %.1f MiB", round+1, k.name, d.Seconds(), heap, idx)

		rows = makeRows(k, n) // fresh IDs: the COPYed ones are in the dropped table
		d, err = timedLoad(ctx, conn, k, func() error { return insertRows(ctx, conn, k.table, rows) })
		if err != nil {
			return fmt.Errorf("INSERT %s: %w", k.name, err)
		}
		t.insertTime.add(k.name, d.Seconds())
		logf("round %d: INSERT %-14s %6.2fs", round+1, k.name, d.Seconds())
	}
	return nil
}

// timedLoad recreates the table, checkpoints (so the previous load's dirty
// pages are not written during this one) and times load.
func timedLoad(ctx context.Context, conn *pgx.Conn, k keyKind, load func() error) (time.Duration, error) {
	ddl := fmt.Sprintf("DROP TABLE IF EXISTS %[1]s; CREATE TABLE %[1]s (id %[2]s PRIMARY KEY, n int NOT NULL); CHECKPOINT", k.table, k.sqlType)
	if _, err := conn.Exec(ctx, ddl); err != nil {
		return 0, err
	}
	start := time.Now()
	err := load()
	return time.Since(start), err
}

func copyRows(ctx context.Context, conn *pgx.Conn, table string, rows [][]any) error {
	n, err := conn.CopyFrom(ctx, pgx.Identifier{table}, []string{"id", "n"}, pgx.CopyFromRows(rows))
	if err == nil && n != int64(len(rows)) {
		err = fmt.Errorf("copied %d rows of %d", n, len(rows))
	}
	return err
}

const (
	rowsPerInsert    = 1000 // 2000 parameters, far below the protocol's 65535
	insertsPerBatch  = 10
	rowsPerRoundTrip = rowsPerInsert * insertsPerBatch
)

// insertSQL returns INSERT INTO table (id, n) VALUES ($1, $2), ... for
// rowsPerInsert rows.
func insertSQL(table string) string {
	var b strings.Builder
	b.WriteString("INSERT INTO " + table + " (id, n) VALUES ")
	for i := range rowsPerInsert {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "($%d,$%d)", 2*i+1, 2*i+2)
	}
	return b.String()
}

// insertRows sends multi-row INSERTs, several per round trip, in one
// transaction per round trip, as a batch writer would.
func insertRows(ctx context.Context, conn *pgx.Conn, table string, rows [][]any) error {
	sql := insertSQL(table)
	for start := 0; start < len(rows); start += rowsPerRoundTrip {
		end := min(start+rowsPerRoundTrip, len(rows))
		batch := &pgx.Batch{}
		for s := start; s < end; s += rowsPerInsert {
			chunk := rows[s:min(s+rowsPerInsert, end)]
			if len(chunk) != rowsPerInsert {
				return fmt.Errorf("row count must be a multiple of %d", rowsPerInsert)
			}
			args := make([]any, 0, 2*rowsPerInsert)
			for _, r := range chunk {
				args = append(args, r...)
			}
			batch.Queue(sql, args...)
		}
		if err := conn.SendBatch(ctx, batch).Close(); err != nil {
			return err
		}
	}
	return nil
}

// sizes returns the heap and primary-key index sizes of table in MiB.
func sizes(ctx context.Context, conn *pgx.Conn, table string) (heap, index float64, err error) {
	var h, i int64
	err = conn.QueryRow(ctx, `SELECT pg_relation_size($1::regclass), pg_relation_size(($1 || '_pkey')::regclass)`, table).Scan(&h, &i)
	return float64(h) / (1 << 20), float64(i) / (1 << 20), err
}
