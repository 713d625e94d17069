package pgtest

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
)

// setupTimeout bounds creating and migrating the run's database, and
// dropping it again.
const setupTimeout = 2 * time.Minute

// current is the run's database, set by Main before any test starts.
var current *Database

// Main runs a package's tests against a database of their own: call it from
// TestMain as pgtest.Main(m). It resolves a server (see Resolve), creates and
// migrates a fresh database, runs the tests, drops the database and exits
// with the tests' code. When no server is usable it prints why and how to
// fix it, and exits 1. Under -short it only runs the tests.
func Main(m *testing.M) {
	os.Exit(run(m, OSEnv(), os.Stderr))
}

// run is Main without the exit, for any test runner and environment.
func run(m interface{ Run() int }, env Env, log io.Writer) int {
	if !flag.Parsed() {
		flag.Parse()
	}
	if testing.Short() {
		// Examples cannot skip themselves, and every example here needs the
		// database: leave them out by name.
		if err := flag.Set("test.skip", "^Example"); err != nil {
			fmt.Fprintf(log, "pgtest: -short: cannot leave out the examples: %v\n", err)
			return 1
		}
		fmt.Fprintln(log, "pgtest: -short: skipping the database tests and examples")
		return m.Run()
	}
	srv, err := Resolve(context.Background(), env)
	if err != nil {
		fmt.Fprintln(log, err)
		return 1
	}
	defer closeServer(srv, log)
	fmt.Fprintf(log, "pgtest: using PostgreSQL from %s\n", srv)
	db, err := setup(srv.URL, log)
	if err != nil {
		fmt.Fprintf(log, "pgtest: %v\n", err)
		return 1
	}
	defer drop(db, log)
	defer dropOnSignal(db, log)()
	current = db
	return m.Run()
}

// setup clears stale databases of crashed runs, then creates and migrates
// the run's database.
func setup(serverURL string, log io.Writer) (*Database, error) {
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	if dropped, err := DropStale(ctx, serverURL, time.Now()); err != nil {
		fmt.Fprintf(log, "pgtest: dropping stale databases: %v\n", err)
	} else if len(dropped) > 0 {
		fmt.Fprintf(log, "pgtest: dropped stale databases %v\n", dropped)
	}
	db, err := CreateDatabase(ctx, serverURL)
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx); err != nil {
		drop(db, log)
		return nil, err
	}
	return db, nil
}

func drop(db *Database, log io.Writer) {
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	if err := db.Drop(ctx); err != nil {
		fmt.Fprintf(log, "pgtest: %v\n", err)
	}
}

func closeServer(srv *Server, log io.Writer) {
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	if err := srv.Close(ctx); err != nil {
		fmt.Fprintf(log, "pgtest: release %s: %v\n", srv, err)
	}
}

// dropOnSignal drops db and exits when the run is interrupted, which would
// otherwise skip Main's deferred calls. The returned func stops watching.
func dropOnSignal(db *Database, log io.Writer) (stop func()) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			fmt.Fprintf(log, "pgtest: %v: dropping %s\n", sig, db.Name)
			drop(db, log)
			os.Exit(1)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
	}
}

// ExampleURL returns the URL of the run's database for Example functions,
// which have no testing.TB. It panics when TestMain did not call Main (under
// -short, Main leaves the examples out).
func ExampleURL() string {
	if current == nil {
		panic("pgtest: no test database: call pgtest.Main(m) from TestMain")
	}
	return current.URL
}

// URL returns the URL of the run's database. Under -short it skips the test;
// it fails the test when TestMain did not call Main.
func URL(tb testing.TB) string {
	tb.Helper()
	if testing.Short() {
		tb.Skip("pgtest: database test skipped in -short mode")
	}
	if current == nil {
		tb.Fatal("pgtest: no test database: call pgtest.Main(m) from TestMain")
	}
	return current.URL
}

// Pool returns a connection pool to the run's database, closed when the test ends.
func Pool(tb testing.TB) *pgxpool.Pool {
	tb.Helper()
	dbURL := URL(tb)
	ctx, cancel := connectContext(tb)
	defer cancel()
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		tb.Fatalf("pgtest: pool: %v", err)
	}
	tb.Cleanup(pool.Close)
	if err := pool.Ping(ctx); err != nil {
		tb.Fatalf("pgtest: pool ping: %v", err)
	}
	return pool
}

// Conn returns a connection to the run's database, closed when the test ends.
func Conn(tb testing.TB) *pgx.Conn {
	tb.Helper()
	dbURL := URL(tb)
	ctx, cancel := connectContext(tb)
	defer cancel()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		tb.Fatalf("pgtest: connect: %v", err)
	}
	tb.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn
}

// StdDB returns a database/sql handle on the run's database through the pgx
// stdlib driver, closed when the test ends.
func StdDB(tb testing.TB) *sql.DB {
	tb.Helper()
	cfg, err := pgx.ParseConfig(URL(tb))
	if err != nil {
		tb.Fatalf("pgtest: parse URL: %v", err)
	}
	db := stdlib.OpenDB(*cfg)
	tb.Cleanup(func() { _ = db.Close() })
	ctx, cancel := connectContext(tb)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		tb.Fatalf("pgtest: ping: %v", err)
	}
	return db
}

// connectContext bounds a connection attempt made for tb.
func connectContext(tb testing.TB) (context.Context, context.CancelFunc) {
	return context.WithTimeout(tb.Context(), 10*time.Second)
}
