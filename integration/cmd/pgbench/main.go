// Command pgbench measures sortid's keys in PostgreSQL against UUIDs:
//
//   - bulk load of n rows by COPY and by batched INSERT, keys made in Go:
//     HUID bigint, UUIDv4 uuid, UUIDv7 uuid, SCRU128 uuid and SCRU128 bytea,
//     with the table and primary-key index sizes;
//   - server-side DEFAULT generation: huid_generate(), scru128_generate(),
//     gen_random_uuid() and bigserial;
//   - a one-minute window out of an hour of rows: id BETWEEN HUIDRange
//     bounds against a timestamptz column with its own index;
//   - extraction: huid_timestamp(id) and friends over every row, against
//     the bare expression of each (what inlining the functions is worth).
//
// Every round runs every contender once, in an order rotated per round, and
// the report gives medians, min–max over rounds and ratios to the baseline.
// It finds the server with the integration tests' own harness (pgtest.Resolve
// without Docker: SORTID_TEST_DATABASE, else the libpq defaults), creates a
// scratch database with it, applies the migrations and drops it at the end.
//
//	go run ./integration/cmd/pgbench -rounds 3
//	go run ./integration/cmd/pgbench -rounds 15 -only extract
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

func main() {
	rounds := flag.Int("rounds", 3, "rounds; each runs every contender once")
	rows := flag.Int("rows", 1_000_000, "rows per load, DEFAULT insert and window table (a multiple of 1000)")
	reps := flag.Int("window-reps", 200, "executions of each window query per round")
	check := flag.Bool("check", false, "only check that a server is reachable, then exit")
	only := flag.String("only", strings.Join(measurements, ","), "comma-separated measurements to run")
	flag.Parse()
	chosen := strings.Split(*only, ",")
	if *rounds < 1 || *rows < rowsPerInsert || *rows%rowsPerInsert != 0 || *reps < 1 || !allKnown(chosen) {
		fmt.Fprintf(os.Stderr, "pgbench: need -rounds >= 1, -rows a positive multiple of %d, -window-reps >= 1, -only of %s\n",
			rowsPerInsert, strings.Join(measurements, ","))
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *rounds, *rows, *reps, *check, chosen); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// measurements are the -only names, in the order they run in a round.
var measurements = []string{"load", "default", "window", "extract"}

func allKnown(names []string) bool {
	for _, n := range names {
		if !slices.Contains(measurements, n) {
			return false
		}
	}
	return true
}

func run(ctx context.Context, rounds, rows, reps int, checkOnly bool, chosen []string) error {
	srv, err := resolveServer(ctx, os.Getenv)
	if err != nil {
		return err
	}
	if checkOnly {
		logf("server reachable: %s", srv)
		return nil
	}
	db, err := createScratch(ctx, srv.URL)
	if db != nil {
		defer dropScratch(db)
	}
	if err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, db.URL)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if err := describeServer(ctx, conn); err != nil {
		return err
	}
	return measure(ctx, conn, rounds, rows, reps, chosen)
}

// describeServer prints the version and the settings that move the numbers.
func describeServer(ctx context.Context, conn *pgx.Conn) error {
	var version, sb, wal, sync, maint string
	err := conn.QueryRow(ctx, `SELECT version(), current_setting('shared_buffers'), current_setting('max_wal_size'),
		current_setting('synchronous_commit'), current_setting('maintenance_work_mem')`).Scan(&version, &sb, &wal, &sync, &maint)
	if err != nil {
		return err
	}
	fmt.Printf("Server: %s\nshared_buffers=%s max_wal_size=%s synchronous_commit=%s maintenance_work_mem=%s\n",
		version, sb, wal, sync, maint)
	return nil
}

func measure(ctx context.Context, conn *pgx.Conn, rounds, rows, reps int, chosen []string) error {
	start := time.Now()
	var steps []func(round int) error
	var tables []*table
	var after []func()
	if slices.Contains(chosen, "load") {
		loads := newLoadTables(rows)
		steps = append(steps, func(r int) error { return loadRound(ctx, conn, r, rows, loads) })
		tables = append(tables, loads.copyTime, loads.insertTime, loads.tableSize, loads.indexSize)
	}
	if slices.Contains(chosen, "default") {
		defaults := newTable(fmt.Sprintf("Server-side DEFAULT: INSERT INTO t (n) SELECT g FROM generate_series(1, %d) g", rows), "s", defaultBaseline)
		steps = append(steps, func(r int) error { return defaultRound(ctx, conn, r, rows, defaults) })
		tables = append(tables, defaults)
	}
	if slices.Contains(chosen, "window") {
		logf("building the window table (%d rows)", rows)
		window, err := setupWindow(ctx, conn, rows, reps)
		if err != nil {
			return err
		}
		steps = append(steps, func(r int) error { return window.round(ctx, conn, r, reps) })
		tables = append(tables, window.count, window.sum)
		after = append(after, func() { window.writeReport(os.Stdout) })
	}
	if slices.Contains(chosen, "extract") {
		logf("building the extraction table (%d rows)", rows)
		extract, err := setupExtract(ctx, conn, rows)
		if err != nil {
			return err
		}
		steps = append(steps, func(r int) error { return extract.round(ctx, conn, r) })
		tables = append(tables, extract.tables...)
	}
	for r := range rounds {
		for _, step := range steps {
			if err := step(r); err != nil {
				return err
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
		}
	}
	for _, t := range tables {
		t.write(os.Stdout)
	}
	for _, f := range after {
		f()
	}
	fmt.Printf("\n%d rounds in %s.\n", rounds, time.Since(start).Round(time.Second))
	return nil
}

// logf reports progress on stderr, so stdout stays the report.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, time.Now().Format("15:04:05 ")+format+"\n", args...)
}
