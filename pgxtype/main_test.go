package pgxtype_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/sortid/sortid/migrations"
)

// The Examples and the database tests of this package need a PostgreSQL
// server with the sortid migrations applied. TestMain gives them one in
// DATABASE_URL, which the Examples read as a program would:
//
//   - DATABASE_URL, when set, is used as it is: a database that already has
//     the migrations. The Examples and tests write only to TEMP tables.
//   - Otherwise TestMain creates a scratch database on the server named by
//     SORTID_TEST_DATABASE (the variable of the integration harness and of
//     CI; by default the local server at the libpq defaults, localhost:5432
//     as postgres), applies migrations.Apply to it, sets DATABASE_URL to it
//     and drops it after the run.
//
// When no server answers the run fails, naming the fixes; it never skips,
// with or without CI=true. go test -short leaves out the Examples and skips
// the database tests.

// databaseURL is the database the tests use, as set in DATABASE_URL.
var databaseURL string

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	flag.Parse()
	if testing.Short() {
		// An Example cannot skip itself: leave them out by name.
		if err := flag.Set("test.skip", "^Example"); err != nil {
			fmt.Fprintf(os.Stderr, "pgxtype tests: -short: %v\n", err)
			return 1
		}
		return m.Run()
	}
	if dsn := os.Getenv("DATABASE_URL"); dsn != "" {
		databaseURL = dsn
		return m.Run()
	}
	server := os.Getenv("SORTID_TEST_DATABASE")
	if server == "" {
		server = localURL()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	name, dsn, err := createDatabase(ctx, server)
	if err != nil {
		fmt.Fprintf(os.Stderr, "pgxtype tests: no PostgreSQL for the Examples and database tests: %v\n%s", err, fixes)
		return 1
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := dropDatabase(ctx, server, name); err != nil {
			fmt.Fprintf(os.Stderr, "pgxtype tests: %v\n", err)
		}
	}()
	if err := migrate(ctx, dsn); err != nil {
		fmt.Fprintf(os.Stderr, "pgxtype tests: %v\n", err)
		return 1
	}
	databaseURL = dsn
	if err := os.Setenv("DATABASE_URL", dsn); err != nil {
		fmt.Fprintf(os.Stderr, "pgxtype tests: %v\n", err)
		return 1
	}
	return m.Run()
}

const fixes = `Fix one of:
  - set SORTID_TEST_DATABASE=postgres://USER:PASSWORD@HOST:PORT/DB, a server where USER may CREATE DATABASE
  - set DATABASE_URL to a database that has the sortid migrations (go run ./cmd/sortid sql up | psql "$DATABASE_URL")
  - start a local PostgreSQL at the libpq defaults (PGHOST, PGPORT, PGUSER, PGPASSWORD; localhost:5432 as postgres)
  - or run go test -short to leave out the Examples and database tests
`

// localURL is the server at the libpq defaults, as the integration harness
// finds it: PGHOST, PGPORT, PGUSER, PGPASSWORD and PGDATABASE, else
// localhost:5432, user postgres, database postgres.
func localURL() string {
	get := func(key, fallback string) string {
		if v := os.Getenv(key); v != "" {
			return v
		}
		return fallback
	}
	u := url.URL{Scheme: "postgres", Path: "/" + get("PGDATABASE", "postgres")}
	u.User = url.User(get("PGUSER", "postgres"))
	if pw := os.Getenv("PGPASSWORD"); pw != "" {
		u.User = url.UserPassword(get("PGUSER", "postgres"), pw)
	}
	host, port := get("PGHOST", "localhost"), get("PGPORT", "5432")
	if strings.HasPrefix(host, "/") {
		u.RawQuery = url.Values{"host": {host}, "port": {port}}.Encode()
	} else {
		u.Host = host + ":" + port
	}
	return u.String()
}

// withDatabase returns the connection string server naming database name,
// for a postgres:// URL or a keyword/value string.
func withDatabase(server, name string) (string, error) {
	if strings.HasPrefix(server, "postgres://") || strings.HasPrefix(server, "postgresql://") {
		u, err := url.Parse(server)
		if err != nil {
			return "", err
		}
		u.Path, u.RawPath = "/"+name, ""
		return u.String(), nil
	}
	return server + " dbname=" + name, nil // a later keyword wins
}

// createDatabase creates a database of a fresh name on server, named and
// commented as the integration harness names its own (sortid_test_<16 hex
// digits>, "pgtest run started <time>"), so that its clean-up of crashed
// runs drops this one too. It returns the name and a connection string.
func createDatabase(ctx context.Context, server string) (name, dsn string, err error) {
	var b [8]byte
	_, _ = rand.Read(b[:])
	name = "sortid_test_" + hex.EncodeToString(b[:])
	if dsn, err = withDatabase(server, name); err != nil {
		return "", "", err
	}
	conn, err := pgx.Connect(ctx, server)
	if err != nil {
		return "", "", err
	}
	defer conn.Close(context.Background())
	ident := pgx.Identifier{name}.Sanitize()
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+ident+" TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'"); err != nil {
		return "", "", fmt.Errorf("create database %s: %w", ident, err)
	}
	comment := fmt.Sprintf("COMMENT ON DATABASE %s IS 'pgtest run started %s'", ident, time.Now().UTC().Format(time.RFC3339))
	if _, err := conn.Exec(ctx, comment); err != nil {
		_, _ = conn.Exec(ctx, "DROP DATABASE "+ident)
		return "", "", fmt.Errorf("comment on database %s: %w", ident, err)
	}
	return name, dsn, nil
}

func dropDatabase(ctx context.Context, server, name string) error {
	conn, err := pgx.Connect(ctx, server)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("drop database %s: %w", name, err)
	}
	return nil
}

// migrate applies the sortid migrations to dsn with migrations.Apply.
func migrate(ctx context.Context, dsn string) error {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return err
	}
	db := stdlib.OpenDB(*cfg)
	defer db.Close()
	if err := migrations.Apply(ctx, db); err != nil {
		return fmt.Errorf("apply the migrations: %w", err)
	}
	return nil
}

// testConn connects to the test database, without pgxtype.Register, and
// closes the connection when t ends. Under -short it skips t.
func testConn(t *testing.T) *pgx.Conn {
	t.Helper()
	if testing.Short() {
		t.Skip("database test skipped in -short mode")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn
}
