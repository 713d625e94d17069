package integration_test

import (
	"database/sql"
	"errors"
	"fmt"
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
CREATE DOMAIN evil.text AS pg_catalog.int4;` + evilOperators

// evilOperators holds, in schema evil, the operators of evilSchema alone.
const evilOperators = `CREATE SCHEMA IF NOT EXISTS evil;
CREATE FUNCTION evil.yes(bigint, integer) RETURNS boolean LANGUAGE sql IMMUTABLE RETURN true;
CREATE OPERATOR evil.>= (LEFTARG = bigint, RIGHTARG = integer, FUNCTION = evil.yes);
CREATE OPERATOR evil.< (LEFTARG = bigint, RIGHTARG = integer, FUNCTION = evil.yes)`

// TestSQLMigrateSearchPath: the up migration refuses, with SQLSTATE 22023
// naming the search_path and creating nothing, a path that would create the
// functions in pg_catalog or in the session's temporary schema, a schema
// before pg_catalog or a temporary type shadowing a type name the functions
// declare bare, and a function later in the path that matches a call between
// sortid functions better than this schema's. Operators anywhere in the path
// capture nothing (the bodies qualify them), so paths naming pg_catalog late
// migrate, and the functions use pg_catalog's built-ins.
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
		{"type names shadowed before pg_catalog", "public, evil, pg_catalog", evilSchema,
			"makes the type name text mean evil.text, not pg_catalog.text", "drop evil.text"},
		{"temporary uuid", "public", "CREATE DOMAIN pg_temp.uuid AS pg_catalog.int4",
			"makes the type name uuid mean pg_temp_", "drop pg_temp_"},
		{"better-matching sortid_require after public", "public, evil",
			`CREATE SCHEMA evil;
			CREATE FUNCTION evil.sortid_require(boolean, text, text, timestamptz) RETURNS boolean LANGUAGE sql IMMUTABLE RETURN true`,
			"function huid_min(timestamp with time zone) uses function evil.sortid_require(", "names only the schema"},
		{"operators before pg_catalog", "public, evil, pg_catalog", evilOperators, "", ""},
		{"better-matching operator after pg_catalog", "public, evil",
			`CREATE SCHEMA evil;
			CREATE FUNCTION evil.mul(numeric, integer) RETURNS numeric LANGUAGE sql IMMUTABLE RETURN 0;
			CREATE OPERATOR evil.* (LEFTARG = numeric, RIGHTARG = integer, FUNCTION = evil.mul)`, "", ""},
		{"pg_catalog not named", "public, evil", evilSchema, "", ""},
		{"pg_catalog last", "public, pg_catalog", "", "", ""},
		{"app, pg_catalog", "app, pg_catalog", "CREATE SCHEMA app", "", ""},
		{"$user, public", `"$user", public`, "", "", ""},
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
				var schema string
				if err := session.QueryRowContext(t.Context(), "SELECT current_schema()").Scan(&schema); err != nil {
					t.Fatal(err)
				}
				checkBuiltins(t, db, schema)
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

// checkBuiltins checks, on a database migrated into schema, that the
// functions and the huid domain use pg_catalog's types and operators:
// scru128_generate() returns pg_catalog.uuid, and the domain and
// huid_timestamp refuse -1.
func checkBuiltins(t *testing.T, db *sql.DB, schema string) {
	t.Helper()
	var ok bool
	err := db.QueryRowContext(t.Context(), `SELECT prorettype = 'pg_catalog.uuid'::regtype
		FROM pg_proc WHERE oid = to_regprocedure(quote_ident($1) || '.scru128_generate()')`, schema).Scan(&ok)
	if err != nil || !ok {
		t.Errorf("%s.scru128_generate() does not return pg_catalog.uuid (%v)", schema, err)
	}
	for _, q := range []string{"SELECT (-1)::bigint::%s.huid", "SELECT %s.huid_timestamp(-1)"} {
		var pgErr *pgconn.PgError
		if _, err := db.ExecContext(t.Context(), fmt.Sprintf(q, quoteIdent(schema))); !errors.As(err, &pgErr) {
			t.Errorf("%s: %v, want an error", q, err)
		}
	}
}

// quoteIdent quotes an identifier for SQL.
func quoteIdent(name string) string { return pgx.Identifier{name}.Sanitize() }

// hintOf is the hint of a PostgreSQL error, "" for none.
func hintOf(e *pgconn.PgError) string {
	if e == nil {
		return ""
	}
	return e.Hint
}
