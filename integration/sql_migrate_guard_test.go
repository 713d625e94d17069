package integration_test

import (
	"database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/sortid/sortid/migrations"
)

// guardedTypes are the type names the sortid functions declare bare (so sqlc
// maps them to Go types), which the up migration's guard checks.
var guardedTypes = []string{"anyelement", "bytea", "text", "timestamptz", "uuid"}

// TestSQLMigrateSearchPathGuard: a search_path that puts a schema holding a
// type named like one the sortid functions declare bare ahead of pg_catalog
// makes the up migration fail with SQLSTATE 22023 naming the path and the
// shadowing type, and create nothing; without the shadowing type the same
// path migrates, and the declarations mean pg_catalog's types.
func TestSQLMigrateSearchPathGuard(t *testing.T) {
	t.Parallel()
	dbURL, db := freshDatabase(t)
	ctx := t.Context()
	const path = "public, evil, pg_catalog"
	cfg, err := pgx.ParseConfig(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["search_path"] = path
	hostile := stdlib.OpenDB(*cfg)
	t.Cleanup(func() { _ = hostile.Close() })
	if _, err := db.ExecContext(ctx, "CREATE SCHEMA evil"); err != nil {
		t.Fatal(err)
	}
	for _, typ := range guardedTypes {
		if _, err := db.ExecContext(ctx, "CREATE DOMAIN evil."+typ+" AS pg_catalog.int4"); err != nil {
			t.Fatalf("create evil.%s: %v", typ, err)
		}
		err := migrations.Apply(ctx, hostile)
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "22023" ||
			!strings.Contains(pgErr.Message, "search_path "+path) || !strings.Contains(pgErr.Message, "mean evil."+typ+",") {
			t.Errorf("evil.%s shadows %s: Apply err %v, want SQLSTATE 22023 naming the path and evil.%s", typ, typ, err, typ)
		}
		if n := countSortidFunctions(t, db); n != 0 {
			t.Errorf("evil.%s shadows %s: the refused migration left %d functions", typ, typ, n)
		}
		if _, err := db.ExecContext(ctx, "DROP DOMAIN evil."+typ); err != nil {
			t.Fatal(err)
		}
	}
	if err := migrations.Apply(ctx, hostile); err != nil {
		t.Fatalf("search_path %s without shadowing types: %v", path, err)
	}
	var ok bool
	err = db.QueryRowContext(ctx, `SELECT prorettype = 'pg_catalog.uuid'::regtype
		FROM pg_proc WHERE oid = 'public.scru128_generate'::regproc`).Scan(&ok)
	if err != nil || !ok {
		t.Errorf("scru128_generate() does not return pg_catalog.uuid (%v)", err)
	}
}

// countSortidFunctions counts the functions of the public schema.
func countSortidFunctions(t *testing.T, db *sql.DB) int {
	t.Helper()
	var n int
	err := db.QueryRowContext(t.Context(),
		"SELECT count(*) FROM pg_proc WHERE pronamespace = 'public'::regnamespace").Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSQLMigrateSearchPathSession: the up migration refuses, with SQLSTATE
// 22023 naming the search_path and creating nothing, a path that would create
// the functions in pg_catalog or in the session's temporary schema, and a
// temporary type shadowing a bare type name (the temporary schema is searched
// for types before pg_catalog unless the path names pg_temp after it); its
// hint's remedy, pg_temp named after pg_catalog, migrates.
func TestSQLMigrateSearchPathSession(t *testing.T) {
	t.Parallel()
	const tempUUID = "CREATE DOMAIN pg_temp.uuid AS pg_catalog.int4"
	tests := []struct {
		name, path, setup string
		msg, hint         string // substrings of the error's; "" msg: Apply succeeds
	}{
		{"pg_catalog first", "pg_catalog, public", "",
			"would create the sortid functions in pg_catalog", "Name the schema the functions belong in first"},
		{"pg_temp first", "pg_temp, public", "",
			"would create the sortid functions in pg_temp_", "Name the schema the functions belong in first"},
		{"temporary uuid", "public", tempUUID,
			"makes the type name uuid mean pg_temp_", "names pg_temp after pg_catalog"},
		{"temporary uuid, pg_temp after pg_catalog", "public, pg_catalog, pg_temp", tempUUID, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dbURL, db := freshDatabase(t)
			cfg, err := pgx.ParseConfig(dbURL)
			if err != nil {
				t.Fatal(err)
			}
			cfg.RuntimeParams["search_path"] = tt.path
			session := stdlib.OpenDB(*cfg)
			session.SetMaxOpenConns(1) // one session, holding the temporary type
			t.Cleanup(func() { _ = session.Close() })
			if tt.setup != "" {
				if _, err := session.ExecContext(t.Context(), tt.setup); err != nil {
					t.Fatal(err)
				}
			}
			err = migrations.Apply(t.Context(), session)
			var pgErr *pgconn.PgError
			switch {
			case tt.msg == "" && err != nil:
				t.Fatalf("search_path %s: Apply: %v", tt.path, err)
			case tt.msg == "":
				return
			case !errors.As(err, &pgErr) || pgErr.Code != "22023" || !strings.Contains(pgErr.Message, "search_path "+tt.path) ||
				!strings.Contains(pgErr.Message, tt.msg) || !strings.Contains(pgErr.Hint, tt.hint):
				t.Errorf("search_path %s: Apply err %v (hint %q), want SQLSTATE 22023 with %q, hint with %q", tt.path, err, hintOf(pgErr), tt.msg, tt.hint)
			}
			var n int
			if err := db.QueryRowContext(t.Context(), "SELECT count(*) FROM pg_proc WHERE proname = 'huid_generate'").Scan(&n); err != nil || n != 0 {
				t.Errorf("search_path %s: the refused migration left %d huid_generate functions (%v)", tt.path, n, err)
			}
		})
	}
}

// hintOf is the hint of a PostgreSQL error, "" for none.
func hintOf(e *pgconn.PgError) string {
	if e == nil {
		return ""
	}
	return e.Hint
}
