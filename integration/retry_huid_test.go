package integration_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sortid/sortid/idtype"
	"github.com/sortid/sortid/integration/internal/pgtest"
	"github.com/sortid/sortid/pgretry"
)

const (
	retryConns       = 8
	retryRowsPerConn = 50_000
	// goKeyRowsPerConn is smaller: Go-made keys cannot collide with each
	// other, so the variant checks the helper and the zero outcome cheaply.
	goKeyRowsPerConn = 5_000
	retryAttempts    = 20
)

// noFsync lets a session's commits return before their WAL reaches disk:
// each single-row INSERT is its own transaction, and waiting for a flush
// every time would make the test measure the disk instead of collisions.
const noFsync = "SET synchronous_commit TO off"

// retryWorker inserts row seq of connection conn with a fresh HUID key.
type retryWorker func(ctx context.Context, conn, seq int) error

// TestRetryHUIDDefaultPgx: 8 pgx connections insert 50 000 rows each, one row
// per INSERT through pgretry.InsertOn, keys from DEFAULT huid_generate(): the
// server is one generator, so no INSERT meets a taken key and nothing is
// retried.
func TestRetryHUIDDefaultPgx(t *testing.T) {
	t.Parallel()
	table := createRetryTable(t, "retry_default_pgx", "DEFAULT huid_generate()")
	workers := make([]retryWorker, retryConns)
	for i := range workers {
		conn := pgtest.Conn(t)
		if _, err := conn.Exec(t.Context(), noFsync); err != nil {
			t.Fatalf("%s: %v", noFsync, err)
		}
		insert := "INSERT INTO " + table + " (conn, seq) VALUES ($1, $2)"
		workers[i] = func(ctx context.Context, c, seq int) error {
			_, err := conn.Exec(ctx, insert, c, seq)
			return err
		}
	}
	if retries := runRetryInserts(t, table, workers, retryRowsPerConn); retries != 0 {
		t.Errorf("%d retries with keys from one server's huid_generate(); want 0", retries)
	}
}

// TestRetryHUIDGoStdlib: the same (8 × 5 000) through database/sql, with keys made in
// Go by idtype.NewHUID on every attempt. One process-wide generator never
// repeats itself, so no collision is expected at all.
func TestRetryHUIDGoStdlib(t *testing.T) {
	t.Parallel()
	table := createRetryTable(t, "retry_go_stdlib", "")
	db := pgtest.StdDB(t)
	workers := make([]retryWorker, retryConns)
	for i := range workers {
		conn, err := db.Conn(t.Context())
		if err != nil {
			t.Fatalf("db.Conn: %v", err)
		}
		t.Cleanup(func() { _ = conn.Close() })
		if _, err := conn.ExecContext(t.Context(), noFsync); err != nil {
			t.Fatalf("%s: %v", noFsync, err)
		}
		workers[i] = stdlibWorker(conn, "INSERT INTO "+table+" (id, conn, seq) VALUES ($1, $2, $3)")
	}
	runRetryInserts(t, table, workers, goKeyRowsPerConn)
}

func stdlibWorker(conn *sql.Conn, insert string) retryWorker {
	return func(ctx context.Context, c, seq int) error {
		_, err := conn.ExecContext(ctx, insert, idtype.NewHUID(), c, seq)
		return err
	}
}

// createRetryTable creates a table with a HUID primary key and the given
// column DEFAULT clause.
func createRetryTable(t *testing.T, name, idDefault string) string {
	t.Helper()
	ddl := fmt.Sprintf("CREATE TABLE %s (id huid PRIMARY KEY %s, conn int NOT NULL, seq int NOT NULL)", name, idDefault)
	conn := pgtest.Conn(t)
	if _, err := conn.Exec(t.Context(), ddl); err != nil {
		t.Fatalf("%s: %v", ddl, err)
	}
	return name
}

// runRetryInserts runs the workers concurrently, each inserting
// perConn rows through pgretry.InsertOn, then checks that every row
// landed once and that the retries stay within the birthday bound computed
// from the rows' actual per-millisecond, per-connection counts; it returns
// the number of retries.
func runRetryInserts(t *testing.T, table string, workers []retryWorker, perConn int) (retried int) {
	t.Helper()
	start := time.Now()
	retries := make([]int, len(workers))
	errs := make([]error, len(workers))
	var wg sync.WaitGroup
	for c, work := range workers {
		wg.Go(func() {
			for seq := range perConn {
				n, err := pgretry.InsertOn(t.Context(), table+"_pkey", retryAttempts, func(ctx context.Context) error {
					return work(ctx, c, seq)
				})
				retries[c] += n
				if err != nil {
					errs[c] = fmt.Errorf("connection %d row %d: %w", c, seq, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	total := 0
	for _, n := range retries {
		total += n
	}
	conn := pgtest.Conn(t)
	var rows, distinct, keys int
	err := conn.QueryRow(t.Context(), fmt.Sprintf(
		"SELECT count(*), count(DISTINCT (conn, seq)), count(DISTINCT id) FROM %s", table)).Scan(&rows, &distinct, &keys)
	if err != nil {
		t.Fatalf("count rows: %v", err)
	}
	want := len(workers) * perConn
	if rows != want || distinct != want || keys != want {
		t.Errorf("rows %d, distinct (conn, seq) %d, distinct id %d; want %d each", rows, distinct, keys, want)
	}
	expected := expectedHUIDCollisions(t, conn, table)
	bound := expected + 5*math.Sqrt(expected) + 5
	t.Logf("%s: %d rows in %v (%.0f rows/s); retries %d (per connection %v); birthday-bound expectation %.2f, limit %.1f",
		table, rows, elapsed.Round(time.Millisecond), float64(rows)/elapsed.Seconds(), total, retries, expected, bound)
	if float64(total) > bound {
		t.Errorf("%d retries, want at most %.1f (expected collisions %.2f)", total, bound, expected)
	}
	return total
}

// expectedHUIDCollisions sums, over every millisecond, the birthday-bound
// collisions between the connections that made IDs in it: connections i and
// j making n_i and n_j IDs in one millisecond expect n_i·n_j/2^21 collisions.
func expectedHUIDCollisions(t *testing.T, conn *pgx.Conn, table string) float64 {
	t.Helper()
	var expected float64
	err := conn.QueryRow(t.Context(), fmt.Sprintf(`
		SELECT coalesce(sum((s * s - sq) / 2.0), 0)::float8 / 2097152
		FROM (SELECT sum(n)::float8 AS s, sum(n * n)::float8 AS sq
		      FROM (SELECT id >> 21 AS ms, conn, count(*) AS n FROM %s GROUP BY 1, 2) per_conn
		      GROUP BY ms) per_ms`, table)).Scan(&expected)
	if err != nil {
		t.Fatalf("expected collisions: %v", err)
	}
	return expected
}
