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

// evilSchema holds, in a schema named evil, a domain named like each type
// the sortid functions declare bare, and operators that would capture the
// built-ins their SQL-standard bodies use: >= that is always true (the huid
// domain's CHECK and the window checks), and < likewise.
const evilSchema = `CREATE SCHEMA evil;
CREATE DOMAIN evil.uuid AS pg_catalog.int4;
CREATE DOMAIN evil.text AS pg_catalog.int4;
CREATE FUNCTION evil.yes(bigint, integer) RETURNS boolean LANGUAGE sql IMMUTABLE RETURN true;
CREATE OPERATOR evil.>= (LEFTARG = bigint, RIGHTARG = integer, FUNCTION = evil.yes);
CREATE OPERATOR evil.< (LEFTARG = bigint, RIGHTARG = integer, FUNCTION = evil.yes)`

// TestSQLMigrateSearchPath: the up migration refuses, with SQLSTATE 22023
// naming the search_path and creating nothing, a path that would create the
// functions in pg_catalog or in the session's temporary schema, one that
// names pg_catalog after another schema (whose types, functions or
// operators would then capture the built-ins the functions use), and a
// temporary type shadowing a bare type name (the temporary schema is searched
// for types before pg_catalog), and an operator later in the path that
// matches better than pg_catalog's. A path that does not name pg_catalog
// migrates when other schemas hold only names pg_catalog matches exactly,
// and the functions use pg_catalog's built-ins.
func TestSQLMigrateSearchPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, path, setup string
		msg, hint         string // substrings of the error's; "" msg: Apply succeeds
	}{
		{"pg_catalog first", "pg_catalog, public", "",
			"would create the sortid functions in pg_catalog", "Name only the schema"},
		{"pg_temp first", "pg_temp, public", "",
			"would create the sortid functions in pg_temp_", "Name only the schema"},
		{"pg_catalog late", "public, evil, pg_catalog", evilSchema,
			"searches public, evil before pg_catalog", "Do not name pg_catalog"},
		{"pg_catalog last, nothing shadowed", "public, pg_catalog", "",
			"searches public before pg_catalog", "Do not name pg_catalog"},
		{"temporary uuid", "public", "CREATE DOMAIN pg_temp.uuid AS pg_catalog.int4",
			"makes the type name uuid mean pg_temp_", "drop pg_temp_"},
		{"better-matching operator after pg_catalog", "public, evil",
			`CREATE SCHEMA evil;
			CREATE FUNCTION evil.mul(numeric, integer) RETURNS numeric LANGUAGE sql IMMUTABLE RETURN 0;
			CREATE OPERATOR evil.* (LEFTARG = numeric, RIGHTARG = integer, FUNCTION = evil.mul)`,
			"function huid_min(timestamp with time zone) uses operator evil.*(numeric,integer)", "names only the schema"},
		{"pg_catalog not named", "public, evil", evilSchema, "", ""},
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
			session.SetMaxOpenConns(1) // one session, holding any temporary type
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
				checkBuiltins(t, db)
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

// checkBuiltins checks, on a migrated database, that the functions and the
// huid domain use pg_catalog's types and operators: scru128_generate()
// returns pg_catalog.uuid, and the domain and huid_timestamp refuse -1.
func checkBuiltins(t *testing.T, db *sql.DB) {
	t.Helper()
	var ok bool
	err := db.QueryRowContext(t.Context(), `SELECT prorettype = 'pg_catalog.uuid'::regtype
		FROM pg_proc WHERE oid = 'public.scru128_generate'::regproc`).Scan(&ok)
	if err != nil || !ok {
		t.Errorf("scru128_generate() does not return pg_catalog.uuid (%v)", err)
	}
	for _, q := range []string{"SELECT (-1)::bigint::public.huid", "SELECT public.huid_timestamp(-1)"} {
		var pgErr *pgconn.PgError
		if _, err := db.ExecContext(t.Context(), q); !errors.As(err, &pgErr) {
			t.Errorf("%s: %v, want an error", q, err)
		}
	}
}

// hintOf is the hint of a PostgreSQL error, "" for none.
func hintOf(e *pgconn.PgError) string {
	if e == nil {
		return ""
	}
	return e.Hint
}
