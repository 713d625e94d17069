package main

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// extractPair is a sortid function applied to a column of every row, and
// the bare expression of its result branch, the price of the function's
// work without its input check or call.
type extractPair struct {
	call, bare string
}

var extractPairs = []extractPair{
	{"huid_timestamp(id)",
		"(TIMESTAMP '2026-01-01 00:00:00' + INTERVAL '1 millisecond' * (id >> 21)) AT TIME ZONE 'UTC'"},
	{"huid_min(ts)",
		"(floor(EXTRACT(EPOCH FROM (ts AT TIME ZONE 'UTC')) * 1000) - 1767225600000)::bigint << 21"},
	{"scru128_timestamp(u)",
		"(TIMESTAMP '2020-01-01 00:00:00' + INTERVAL '1 millisecond' * ('x' || left(replace(u::text, '-', ''), 11))::bit(44)::bigint) AT TIME ZONE 'UTC'"},
	{"scru128_timestamp(b)",
		"(TIMESTAMP '2020-01-01 00:00:00' + INTERVAL '1 millisecond' * ('x' || left(replace(encode(b, 'hex')::uuid::text, '-', ''), 11))::bit(44)::bigint) AT TIME ZONE 'UTC'"},
	{"scru128_min(ts)",
		"(lpad(to_hex((floor(EXTRACT(EPOCH FROM (ts AT TIME ZONE 'UTC')) * 1000) - 1577836800000)::bigint), 11, '0') || '000000000000000000000')::uuid"},
}

const bareName = "bare expression"

// extractBench times SELECT count(expr) over a table of n rows, one table
// of results per pair, baseline the bare expression.
type extractBench struct {
	tables []*table
}

func setupExtract(ctx context.Context, conn *pgx.Conn, n int) (*extractBench, error) {
	for _, q := range []string{
		"DROP TABLE IF EXISTS bench_extract",
		fmt.Sprintf(`CREATE TABLE bench_extract AS
		SELECT huid_generate() AS id, scru128_generate() AS u, scru128_generate_bytea() AS b,
		       timestamptz '2026-03-02 10:00:00+00' + g * interval '1 ms' AS ts
		FROM generate_series(1, %d) g`, n),
		"VACUUM ANALYZE bench_extract",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			return nil, fmt.Errorf("extract table: %w", err)
		}
	}
	e := &extractBench{}
	for _, p := range extractPairs {
		// The two must agree on every row, or the comparison means nothing.
		var differ int64
		q := fmt.Sprintf("SELECT count(*) FROM bench_extract WHERE (%s) IS DISTINCT FROM (%s)", p.call, p.bare)
		if err := conn.QueryRow(ctx, q).Scan(&differ); err != nil || differ != 0 {
			return nil, fmt.Errorf("extract %s: %d rows differ from the bare expression (%v)", p.call, differ, err)
		}
		e.tables = append(e.tables, newTable(fmt.Sprintf("SELECT count(%s) FROM %d rows", p.call, n), "ms", bareName))
	}
	return e, nil
}

// round times each pair once, the function and the expression in an order
// that alternates per round.
func (e *extractBench) round(ctx context.Context, conn *pgx.Conn, round int) error {
	for i, p := range extractPairs {
		order := []string{p.call, p.bare}
		if round%2 == 1 {
			order[0], order[1] = order[1], order[0]
		}
		for _, expr := range order {
			start := time.Now()
			if _, err := conn.Exec(ctx, "SELECT count("+expr+") FROM bench_extract"); err != nil {
				return fmt.Errorf("extract %s: %w", expr, err)
			}
			ms := float64(time.Since(start).Microseconds()) / 1000
			name := "function"
			if expr == p.bare {
				name = bareName
			}
			e.tables[i].add(name, ms)
		}
		logf("round %d: extract %s done", round+1, p.call)
	}
	return nil
}
