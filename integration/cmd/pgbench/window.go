package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sortid/sortid/idtype"
	"github.com/sortid/sortid/integration/internal/stats"
)

// windowStart is the first instant of the hour of rows; any hour inside
// HUID's window would do, a fixed one keeps runs comparable.
var windowStart = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

// The queried minute, in the middle of the hour.
var (
	queryFrom = windowStart.Add(30 * time.Minute)
	queryTo   = queryFrom.Add(time.Minute)
)

// windowQuery is one way to select the minute's rows.
type windowQuery struct {
	name string
	sql  string
	args func(lo, hi idtype.HUID) []any
}

func byID(lo, hi idtype.HUID) []any       { return []any{int64(lo), int64(hi)} }
func byTS(idtype.HUID, idtype.HUID) []any { return []any{queryFrom, queryTo} }

// windowQueries: count(*) can be answered from the index alone; sum(n)
// must visit the heap for every row, as a query returning rows does.
var windowQueries = []windowQuery{
	{"count: created_at index", "SELECT count(*) FROM bench_window WHERE created_at >= $1 AND created_at < $2", byTS},
	{"count: id BETWEEN", "SELECT count(*) FROM bench_window WHERE id BETWEEN $1 AND $2", byID},
	{"sum(n): created_at index", "SELECT coalesce(sum(n), 0) FROM bench_window WHERE created_at >= $1 AND created_at < $2", byTS},
	{"sum(n): id BETWEEN", "SELECT coalesce(sum(n), 0) FROM bench_window WHERE id BETWEEN $1 AND $2", byID},
}

// windowBench holds the hour of rows and the query results.
type windowBench struct {
	lo, hi   idtype.HUID
	expected int64 // rows whose time lies in the queried minute
	count    *table
	sum      *table
	report   strings.Builder // plans and sizes, Markdown
}

// huidForRow returns row i's HUID: its time, and a random part that is a
// permutation of i (odd multiplier mod 2^21), so rows in the same
// millisecond never collide but the low bits look scattered.
func huidForRow(t time.Time, i int) (idtype.HUID, error) {
	return idtype.HUIDFromParts(t, uint32(i*0x9E3B1)&idtype.HUIDMaxRandom)
}

// huidRangeForQuery returns the HUID bounds of the queried minute.
func huidRangeForQuery() (lo, hi idtype.HUID, err error) { return idtype.HUIDRange(queryFrom, queryTo) }

// setupWindow loads rows spread evenly over one hour, each with its HUID
// made from its own created_at, indexes created_at, and VACUUM ANALYZEs.
func setupWindow(ctx context.Context, conn *pgx.Conn, n, reps int) (*windowBench, error) {
	w := &windowBench{}
	var err error
	if w.lo, w.hi, err = huidRangeForQuery(); err != nil {
		return nil, err
	}
	step := time.Hour / time.Duration(n)
	rows := make([][]any, n)
	for i := range rows {
		t := windowStart.Add(time.Duration(i) * step)
		id, err := huidForRow(t, i)
		if err != nil {
			return nil, err
		}
		rows[i] = []any{int64(id), t, int32(i % 1000)}
		if !t.Before(queryFrom) && t.Before(queryTo) {
			w.expected++
		}
	}
	ddl := `DROP TABLE IF EXISTS bench_window;
		CREATE TABLE bench_window (id bigint PRIMARY KEY, created_at timestamptz NOT NULL, n int NOT NULL)`
	if _, err := conn.Exec(ctx, ddl); err != nil {
		return nil, err
	}
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"bench_window"}, []string{"id", "created_at", "n"}, pgx.CopyFromRows(rows)); err != nil {
		return nil, fmt.Errorf("load window rows: %w", err)
	}
	for _, sql := range []string{"CREATE INDEX bench_window_created_at ON bench_window (created_at)", "VACUUM ANALYZE bench_window"} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			return nil, err
		}
	}
	title := fmt.Sprintf("one-minute window out of one hour (%d rows, %d in the minute), median of %d executions per round", n, w.expected, reps)
	w.count = newTable("Time window, count(*) — "+title, "ms", windowQueries[0].name)
	w.sum = newTable("Time window, sum(n) (visits the heap) — "+title, "ms", windowQueries[2].name)
	if err := w.check(ctx, conn); err != nil {
		return nil, err
	}
	return w, w.describe(ctx, conn)
}

// check asserts that both predicates select the same rows: the expected
// count, and equal sums.
func (w *windowBench) check(ctx context.Context, conn *pgx.Conn) error {
	got := make([]int64, len(windowQueries))
	for i, q := range windowQueries {
		if err := conn.QueryRow(ctx, q.sql, q.args(w.lo, w.hi)...).Scan(&got[i]); err != nil {
			return fmt.Errorf("%s: %w", q.name, err)
		}
	}
	if got[0] != w.expected || got[1] != w.expected || got[2] != got[3] {
		return fmt.Errorf("window predicates disagree: counts %d (created_at) and %d (id), want %d; sums %d and %d",
			got[0], got[1], w.expected, got[2], got[3])
	}
	return nil
}

// describe records the sizes of the two indexes and each query's plan.
func (w *windowBench) describe(ctx context.Context, conn *pgx.Conn) error {
	var heap, pkey, tsIdx int64
	err := conn.QueryRow(ctx, `SELECT pg_relation_size('bench_window'), pg_relation_size('bench_window_pkey'),
		pg_relation_size('bench_window_created_at')`).Scan(&heap, &pkey, &tsIdx)
	if err != nil {
		return err
	}
	fmt.Fprintf(&w.report, "\nWindow table: heap %.1f MiB, id primary key %.1f MiB, created_at index %.1f MiB "+
		"(the index and the column's 8 bytes a row are what dropping created_at saves).\n",
		mib(heap), mib(pkey), mib(tsIdx))
	fmt.Fprintf(&w.report, "Bounds: id BETWEEN %d AND %d (idtype.HUIDRange(%s, %s)).\n",
		w.lo, w.hi, queryFrom.Format(time.RFC3339), queryTo.Format(time.RFC3339))
	for _, q := range windowQueries {
		rows, err := conn.Query(ctx, "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) "+q.sql, q.args(w.lo, w.hi)...)
		if err != nil {
			return err
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		fmt.Fprintf(&w.report, "\n%s:\n\n```\n%s\n```\n", q.name, strings.Join(lines, "\n"))
	}
	return nil
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// round runs each query reps times, interleaved (A B C D A B C D ...), and
// records each query's median execution time of the round.
func (w *windowBench) round(ctx context.Context, conn *pgx.Conn, round, reps int) error {
	times := make([][]float64, len(windowQueries))
	var v int64
	for range reps {
		for i, q := range windowQueries {
			start := time.Now()
			if err := conn.QueryRow(ctx, q.sql, q.args(w.lo, w.hi)...).Scan(&v); err != nil {
				return fmt.Errorf("%s: %w", q.name, err)
			}
			times[i] = append(times[i], float64(time.Since(start).Microseconds())/1000)
		}
	}
	for i, q := range windowQueries {
		t := w.count
		if i >= 2 {
			t = w.sum
		}
		med := stats.Median(times[i])
		t.add(q.name, med)
		logf("round %d: window %-26s median %.3f ms", round+1, q.name, med)
	}
	return nil
}

func (w *windowBench) writeReport(out io.Writer) { io.WriteString(out, w.report.String()) }
