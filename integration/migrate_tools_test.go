package integration_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-migrate/migrate/v4"
	_ "github.com/golang-migrate/migrate/v4/database/pgx/v5" // registers pgx5://
	"github.com/golang-migrate/migrate/v4/source/iofs"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"github.com/sortid/sortid/integration/internal/pgtest"
	"github.com/sortid/sortid/migrations"
)

// migrator drives one migration tool against one database.
type migrator struct {
	up, down func(ctx context.Context) error
	// versionTable is the tool's version table, "" when it keeps none.
	versionTable string
	// clean, if not nil, readies the tool for the next run after a failed one.
	clean func() error
}

// TestMigrateWithTools applies the shipped migrations for real with
// golang-migrate, goose and migrations.Apply, each in a fresh database: up,
// up again (a no-op), down, up. After every up the schema holds exactly the
// functions (name, identity arguments, volatility, strictness, parallel
// safety), domains and sequences of the run's database; after down it holds
// none of them.
func TestMigrateWithTools(t *testing.T) {
	t.Parallel()
	// The reference set: a fresh database after migrations.Apply, which
	// must hold every function the up SQL creates, and the domains.
	_, ref := freshDatabase(t)
	if err := migrations.Apply(t.Context(), ref); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	want := sortidObjects(t, ref)
	others := []string{"domain huid", "domain scru128_bytes", "sequence sortid_huid_counter"}
	// Distinct signatures: the native generators are declared twice.
	decls := map[string]bool{}
	for _, m := range regexp.MustCompile(`CREATE OR REPLACE FUNCTION (\w+\([^)]*\))`).FindAllStringSubmatch(migrations.Up(), -1) {
		decls[m[1]] = true
	}
	n := len(decls)
	if len(want) != n+len(others) || slices.ContainsFunc(others, func(o string) bool { return !slices.Contains(want, o) }) {
		t.Fatalf("reference database holds %d objects, want %d functions and %v: %v", len(want), n, others, want)
	}
	tools := map[string]migratorFor{
		"golang-migrate": golangMigrate,
		"goose":          gooseMigrator,
		"Apply":          applyMigrator,
	}
	eachTool(t, tools, func(t *testing.T, _ string, m migrator, db *sql.DB) {
		ctx := t.Context()
		steps := []struct {
			name string
			run  func(context.Context) error
			want []string
		}{
			{"up", m.up, want},
			{"up again", m.up, want},
			{"down", m.down, nil},
			{"up after down", m.up, want},
		}
		for _, step := range steps {
			if err := step.run(ctx); err != nil {
				t.Fatalf("%s: %v", step.name, err)
			}
			if got := sortidObjects(t, db); !slices.Equal(got, step.want) {
				t.Fatalf("after %s: objects\n%v\nwant\n%v", step.name, got, step.want)
			}
		}
		if m.versionTable != "" {
			var n int
			if err := db.QueryRowContext(ctx, "SELECT count(*) FROM "+m.versionTable).Scan(&n); err != nil || n == 0 {
				t.Errorf("version table %s: %d rows, %v", m.versionTable, n, err)
			}
		}
	})
}

// migratorFor makes the migrator of one tool for one fresh database.
type migratorFor func(t *testing.T, dbURL string, db *sql.DB) migrator

// eachTool runs test, in parallel subtests named after the tools, on a fresh
// database per tool.
func eachTool(t *testing.T, tools map[string]migratorFor, test func(t *testing.T, name string, m migrator, db *sql.DB)) {
	t.Helper()
	for name, tool := range tools {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dbURL, db := freshDatabase(t)
			test(t, name, tool(t, dbURL, db), db)
		})
	}
}

// freshDatabase creates an empty database for one test and drops it after.
func freshDatabase(t *testing.T) (string, *sql.DB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	d, err := pgtest.CreateDatabase(ctx, pgtest.URL(t))
	if err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := d.Drop(ctx); err != nil {
			t.Errorf("drop %s: %v", d.Name, err)
		}
	})
	cfg, err := pgx.ParseConfig(d.URL)
	if err != nil {
		t.Fatalf("parse URL: %v", err)
	}
	db := stdlib.OpenDB(*cfg)
	t.Cleanup(func() { _ = db.Close() })
	return d.URL, db
}

// migratedDatabase is freshDatabase with the sortid functions installed.
func migratedDatabase(t *testing.T) (string, *sql.DB) {
	t.Helper()
	dbURL, db := freshDatabase(t)
	if err := migrations.Apply(t.Context(), db); err != nil {
		t.Fatalf("migrations.Apply: %v", err)
	}
	return dbURL, db
}

func golangMigrate(t *testing.T, dbURL string, _ *sql.DB) migrator {
	t.Helper()
	src, err := iofs.New(migrations.MigrateFS(), ".")
	if err != nil {
		t.Fatalf("iofs.New: %v", err)
	}
	migrateURL := "pgx5" + strings.TrimPrefix(strings.TrimPrefix(dbURL, "postgresql"), "postgres")
	migrateURL += map[bool]string{true: "&", false: "?"}[strings.Contains(migrateURL, "?")] +
		"x-migrations-table=sortid_schema_migrations"
	m, err := migrate.NewWithSourceInstance("iofs", src, migrateURL)
	if err != nil {
		t.Fatalf("migrate.NewWithSourceInstance: %v", err)
	}
	t.Cleanup(func() { _, _ = m.Close() })
	noChangeOK := func(err error) error {
		if errors.Is(err, migrate.ErrNoChange) {
			return nil
		}
		return err
	}
	return migrator{
		up:           func(context.Context) error { return noChangeOK(m.Up()) },
		down:         func(context.Context) error { return m.Down() },
		versionTable: "sortid_schema_migrations",
		// A failed down leaves the version dirty until forced back; the
		// sortid down changes nothing when it fails, so back to the latest.
		clean: func() error {
			latest, err := src.First()
			for next := latest; err == nil; next, err = src.Next(next) {
				latest = next
			}
			return m.Force(int(latest))
		},
	}
}

func gooseMigrator(t *testing.T, _ string, db *sql.DB) migrator {
	t.Helper()
	p, err := goose.NewProvider(goose.DialectPostgres, db, migrations.GooseFS(),
		goose.WithTableName("sortid_goose_db_version"))
	if err != nil {
		t.Fatalf("goose.NewProvider: %v", err)
	}
	return migrator{
		up: func(ctx context.Context) error {
			_, err := p.Up(ctx)
			return err
		},
		down: func(ctx context.Context) error {
			_, err := p.DownTo(ctx, 0)
			return err
		},
		versionTable: "sortid_goose_db_version",
	}
}

func applyMigrator(_ *testing.T, _ string, db *sql.DB) migrator {
	return migrator{
		up: func(ctx context.Context) error { return migrations.Apply(ctx, db) },
		down: func(ctx context.Context) error {
			_, err := db.ExecContext(ctx, migrations.Down())
			return err
		},
	}
}

// sortidObjects lists the functions of the current schema (name, identity
// arguments, volatility, strictness, parallel safety) and its huid domain,
// sorted, ignoring the version tables' objects.
func sortidObjects(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), `
		SELECT format('function %s(%s) volatile=%s strict=%s parallel=%s', p.proname,
		              pg_get_function_identity_arguments(p.oid), p.provolatile, p.proisstrict, p.proparallel)
		FROM pg_proc p WHERE p.pronamespace = current_schema()::regnamespace
		UNION ALL
		SELECT 'domain ' || typname FROM pg_type
		WHERE typnamespace = current_schema()::regnamespace AND typtype = 'd'
		UNION ALL
		SELECT 'sequence ' || relname FROM pg_class c
		WHERE relnamespace = current_schema()::regnamespace AND relkind = 'S'
		  AND NOT EXISTS (SELECT FROM pg_depend d -- a tool's serial column
		                  WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i'))
		ORDER BY 1`)
	return texts(t, rows, err)
}

// psqlMigrator pipes `sortid sql up` / `sortid sql down` into psql with the
// given extra flags; a run fails when psql exits non-zero or prints ERROR.
func psqlMigrator(flags ...string) migratorFor {
	return func(t *testing.T, dbURL string, _ *sql.DB) migrator {
		t.Helper()
		psql, err := exec.LookPath("psql")
		if err != nil {
			t.Fatalf("psql is needed to test the psql quick start (Debian: apt-get install postgresql-client): %v", err)
		}
		bin := sortidBinary(t)
		run := func(ctx context.Context, direction string) error {
			script, err := exec.CommandContext(ctx, bin, "sql", direction).Output()
			if err != nil {
				return fmt.Errorf("sortid sql %s: %w", direction, err)
			}
			cmd := exec.CommandContext(ctx, psql, append([]string{"-X", "-q", dbURL}, flags...)...)
			cmd.Stdin = bytes.NewReader(script)
			out, err := cmd.CombinedOutput()
			if err != nil || bytes.Contains(out, []byte("ERROR")) {
				return fmt.Errorf("psql (%v): %s", err, out)
			}
			return nil
		}
		return migrator{
			up:   func(ctx context.Context) error { return run(ctx, "up") },
			down: func(ctx context.Context) error { return run(ctx, "down") },
		}
	}
}

var sortidBin struct {
	once sync.Once
	path string
	err  error
}

// sortidBinary builds cmd/sortid once per test run.
func sortidBinary(t *testing.T) string {
	t.Helper()
	sortidBin.once.Do(func() {
		dir, err := os.MkdirTemp("", "sortid-bin-")
		if err != nil {
			sortidBin.err = err
			return
		}
		sortidBin.path = filepath.Join(dir, "sortid")
		out, err := exec.Command("go", "build", "-o", sortidBin.path, "github.com/sortid/sortid/cmd/sortid").CombinedOutput()
		if err != nil {
			sortidBin.err = fmt.Errorf("go build: %v: %s", err, out)
		}
	})
	if sortidBin.err != nil {
		t.Fatal(sortidBin.err)
	}
	return sortidBin.path
}
