package integration_test

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sortid/sortid/integration/internal/pgtest"
)

func TestMain(m *testing.M) {
	pgtest.Main(m)
}

func TestHarnessCreatesRunDatabase(t *testing.T) {
	t.Parallel()
	dbURL := pgtest.URL(t)
	conn := pgtest.Conn(t)
	var name, collate string
	err := conn.QueryRow(t.Context(), `SELECT current_database(), datcollate
		FROM pg_database WHERE datname = current_database()`).Scan(&name, &collate)
	if err != nil {
		t.Fatalf("query current database: %v", err)
	}
	if !strings.HasPrefix(name, pgtest.NamePrefix) || !pgtest.IsDatabaseName(name) {
		t.Errorf("current_database() = %q, want %s and 16 hex digits", name, pgtest.NamePrefix)
	}
	if u, err := url.Parse(dbURL); err != nil || u.Path != "/"+name {
		t.Errorf("pgtest.URL = %q, want it to name database %q", dbURL, name)
	}
	if collate != "C" {
		t.Errorf("datcollate = %q, want C so that text sorts bytewise", collate)
	}
}

func TestHarnessAppliedMigrations(t *testing.T) {
	t.Parallel()
	var id int64
	if err := pgtest.Conn(t).QueryRow(t.Context(), "SELECT huid_generate()").Scan(&id); err != nil {
		t.Fatalf("SELECT huid_generate(): %v", err)
	}
	if id <= 0 {
		t.Errorf("huid_generate() = %d, want a positive HUID", id)
	}
}

func TestHarnessPoolAndStdDBShareDatabase(t *testing.T) {
	t.Parallel()
	var fromPool, fromStd string
	if err := pgtest.Pool(t).QueryRow(t.Context(), "SELECT current_database()").Scan(&fromPool); err != nil {
		t.Fatalf("pool: %v", err)
	}
	if err := pgtest.StdDB(t).QueryRowContext(t.Context(), "SELECT current_database()").Scan(&fromStd); err != nil {
		t.Fatalf("database/sql: %v", err)
	}
	if fromPool != fromStd || !pgtest.IsDatabaseName(fromPool) {
		t.Errorf("pool uses %q and database/sql %q, want the same run database", fromPool, fromStd)
	}
}

func TestHarnessDropsStaleDatabases(t *testing.T) {
	t.Parallel()
	conn := pgtest.Conn(t)
	stale := pgtest.NewDatabaseName()
	ident := pgx.Identifier{stale}.Sanitize()
	created := time.Now().Add(-pgtest.StaleAfter - time.Hour).UTC().Format(time.RFC3339)
	execAll(t, conn,
		"CREATE DATABASE "+ident+" TEMPLATE template0",
		fmt.Sprintf("COMMENT ON DATABASE %s IS 'pgtest run started %s'", ident, created),
	)
	t.Cleanup(func() { _, _ = conn.Exec(t.Context(), "DROP DATABASE IF EXISTS "+ident) })

	dropped, err := pgtest.DropStale(t.Context(), pgtest.URL(t), time.Now())
	if err != nil {
		t.Fatalf("DropStale: %v", err)
	}
	var current string
	if err := conn.QueryRow(t.Context(), "SELECT current_database()").Scan(&current); err != nil {
		t.Fatalf("current_database: %v", err)
	}
	if slices.Contains(dropped, current) {
		t.Errorf("DropStale dropped this run's database %s", current)
	}
	var left bool
	err = conn.QueryRow(t.Context(), "SELECT EXISTS (SELECT FROM pg_database WHERE datname = $1)", stale).Scan(&left)
	if err != nil || left {
		t.Errorf("stale database %s still exists (err %v)", stale, err)
	}
}
