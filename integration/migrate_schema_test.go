package integration_test

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/sortid/sortid/idtype"
	"github.com/sortid/sortid/integration/internal/pgtest"
	"github.com/sortid/sortid/migrations"
)

// sessionWithPath opens a one-connection pool on dbURL as user (the URL's
// own when ""), with the given search_path.
func sessionWithPath(t *testing.T, dbURL, user, path string) *sql.DB {
	t.Helper()
	cfg, err := pgx.ParseConfig(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	if user != "" {
		cfg.User = user
	}
	cfg.RuntimeParams["search_path"] = path
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(1) // one session: its settings and temporary objects stay
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// createRole creates a login role without privileges for one test and
// drops it after the test's databases are gone (roles are cluster-wide).
func createRole(t *testing.T) string {
	t.Helper()
	admin, err := sql.Open("pgx", pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = admin.Close() })
	name := strings.Replace(pgtest.NewDatabaseName(), "sortid_test_", "sortid_role_", 1)
	if _, err := admin.ExecContext(t.Context(), "CREATE ROLE "+name+" LOGIN"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := admin.ExecContext(context.Background(), "DROP ROLE IF EXISTS "+name); err != nil {
			t.Errorf("drop role %s: %v", name, err)
		}
	})
	return name
}

// texts reads the one text column of rows, failing t on any error.
func texts(t *testing.T, rows *sql.Rows, err error) []string {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// schemaObjects lists the functions, domains and sequences of schema, as
// sortidObjects does for the current one.
func schemaObjects(t *testing.T, db *sql.DB, schema string) []string {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), `
		SELECT format('function %s(%s)', p.proname, pg_get_function_identity_arguments(p.oid))
		FROM pg_proc p WHERE p.pronamespace = $1::regnamespace
		UNION ALL
		SELECT 'domain ' || typname FROM pg_type WHERE typnamespace = $1::regnamespace AND typtype = 'd'
		UNION ALL
		SELECT 'sequence ' || relname FROM pg_class WHERE relnamespace = $1::regnamespace AND relkind = 'S'
		ORDER BY 1`, schema)
	return texts(t, rows, err)
}

// foreignReferences lists what the functions and domain checks of schema
// use outside it and pg_catalog.
func foreignReferences(t *testing.T, db *sql.DB, schema string) []string {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), `
		SELECT pg_describe_object(d.classid, d.objid, 0) || ' uses ' || pg_describe_object(d.refclassid, d.refobjid, 0)
		FROM pg_depend d
		LEFT JOIN pg_proc p ON d.classid = 'pg_proc'::regclass AND p.oid = d.objid
		LEFT JOIN pg_constraint c ON d.classid = 'pg_constraint'::regclass AND c.oid = d.objid
		LEFT JOIN pg_type ct ON ct.oid = c.contypid
		LEFT JOIN pg_proc rp ON d.refclassid = 'pg_proc'::regclass AND rp.oid = d.refobjid
		LEFT JOIN pg_type rt ON d.refclassid = 'pg_type'::regclass AND rt.oid = d.refobjid
		LEFT JOIN pg_operator ro ON d.refclassid = 'pg_operator'::regclass AND ro.oid = d.refobjid
		WHERE coalesce(p.pronamespace, ct.typnamespace) = $1::regnamespace
		  AND coalesce(rp.pronamespace, rt.typnamespace, ro.oprnamespace) NOT IN ($1::regnamespace, 'pg_catalog'::regnamespace)`, schema)
	return texts(t, rows, err)
}

// TestMigrateSchemaPerTenant installs sortid in public and, as the owner of
// schema tenant_b with search_path tenant_b (the guard's advice), again in
// tenant_b: both installs work, each uses only its own objects and
// pg_catalog's, a role granted public's two sequences makes HUIDs with both, a function of another schema that calls tenant_b's
// qualified does not keep public's down from running, and down run in
// tenant_b (with public still on its search_path, twice) removes tenant_b's
// objects and nothing of public's.
func TestMigrateSchemaPerTenant(t *testing.T) {
	t.Parallel()
	role := createRole(t)
	dbURL, db := migratedDatabase(t)
	ctx := t.Context()
	publicObjects := schemaObjects(t, db, "public")
	if _, err := db.ExecContext(ctx, "CREATE SCHEMA tenant_b AUTHORIZATION "+role); err != nil {
		t.Fatal(err)
	}
	tenant := sessionWithPath(t, dbURL, role, "tenant_b")
	if err := migrations.Apply(ctx, tenant); err != nil {
		t.Fatalf("up in tenant_b as its owner: %v", err)
	}
	if err := migrations.Apply(ctx, tenant); err != nil {
		t.Fatalf("up again in tenant_b: %v", err)
	}
	if got := schemaObjects(t, db, "tenant_b"); !slices.Equal(got, publicObjects) {
		t.Fatalf("tenant_b holds\n%v\npublic holds\n%v", got, publicObjects)
	}
	for _, schema := range []string{"public", "tenant_b"} {
		if refs := foreignReferences(t, db, schema); len(refs) != 0 {
			t.Errorf("%s's sortid objects use other schemas' objects: %v", schema, refs)
		}
		var ok bool
		q := fmt.Sprintf(`SELECT %[1]s.huid_timestamp(%[1]s.huid_generate()) > now() - interval '1 minute'
			AND %[1]s.scru128_timestamp(%[1]s.scru128_generate_bytea()) > now() - interval '1 minute'
			AND (5::bigint)::%[1]s.huid = 5`, schema)
		if err := db.QueryRowContext(ctx, q).Scan(&ok); err != nil || !ok {
			t.Errorf("%s's functions: %v, %v", schema, ok, err)
		}
		if _, err := db.ExecContext(ctx, fmt.Sprintf("SELECT (-1)::%s.huid", schema)); err == nil {
			t.Errorf("%s.huid accepts -1", schema)
		}
	}
	// Each install is a generator of its own: the tenant's role needs the
	// grant on public's counter to use public's, and then both work.
	if _, err := db.ExecContext(ctx, fmt.Sprintf(`GRANT USAGE ON SEQUENCE public.sortid_huid_counter TO %s`, role)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = db.ExecContext(context.Background(), "DROP OWNED BY "+role) })
	seen := map[int64]bool{}
	for range 500 {
		var a, b int64
		if err := tenant.QueryRowContext(ctx, "SELECT public.huid_generate(), tenant_b.huid_generate()").Scan(&a, &b); err != nil {
			t.Fatal(err)
		}
		if seen[a] || seen[b] {
			t.Fatalf("one session's HUIDs from public and tenant_b repeat: %d, %d", a, b)
		}
		seen[a], seen[b] = true, true
	}
	// public's function calling tenant_b's, qualified: a caller of tenant_b's.
	if _, err := db.ExecContext(ctx, `CREATE FUNCTION public.tenant_id() RETURNS bigint LANGUAGE plpgsql
		AS $$BEGIN RETURN tenant_b.huid_generate(); END$$`); err != nil {
		t.Fatal(err)
	}
	publicObjects = append(publicObjects, "function tenant_id()")
	slices.Sort(publicObjects)
	inBoth := sessionWithPath(t, dbURL, role, "tenant_b, public")
	if _, err := inBoth.ExecContext(ctx, migrations.Down()); err == nil ||
		!strings.Contains(err.Error(), "function tenant_id() (its body names huid_generate)") {
		t.Errorf("down in tenant_b while public.tenant_id() calls tenant_b.huid_generate(): %v, want a refusal naming it", err)
	}
	if _, err := db.ExecContext(ctx, `CREATE OR REPLACE FUNCTION public.tenant_id() RETURNS bigint LANGUAGE plpgsql
		AS $$BEGIN RETURN tenant_c.huid_generate(); END$$`); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if _, err := inBoth.ExecContext(ctx, migrations.Down()); err != nil {
			t.Fatalf("down %d in tenant_b: %v", i+1, err)
		}
		if got := schemaObjects(t, db, "tenant_b"); len(got) != 0 {
			t.Fatalf("after down %d tenant_b holds %v", i+1, got)
		}
		if got := schemaObjects(t, db, "public"); !slices.Equal(got, publicObjects) {
			t.Fatalf("after down %d in tenant_b, public holds\n%v\nwant\n%v", i+1, got, publicObjects)
		}
	}
	// Functions pinning a search_path use the installs it names.
	if _, err := db.ExecContext(ctx, `CREATE FUNCTION tenant_b.ids() RETURNS bigint LANGUAGE plpgsql
		SET search_path = tenant_b AS $$BEGIN RETURN huid_generate(); END$$;
		CREATE FUNCTION tenant_b.pub_ids() RETURNS bigint LANGUAGE plpgsql
		SET search_path = tenant_b, public AS $$BEGIN RETURN huid_generate(); END$$`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, migrations.Down()); err == nil ||
		!strings.Contains(err.Error(), "tenant_b.pub_ids()") || strings.Contains(err.Error(), "tenant_b.ids()") {
		t.Errorf("down in public with tenant_b.pub_ids() (search_path tenant_b, public) and tenant_b.ids() (search_path tenant_b): %v, want a refusal naming pub_ids only", err)
	}
	if _, err := db.ExecContext(ctx, `DROP FUNCTION tenant_b.pub_ids()`); err != nil {
		t.Fatal(err)
	}
	// tenant_id() names tenant_c's function, not public's; ids() pins tenant_b.
	if _, err := db.ExecContext(ctx, migrations.Down()); err != nil {
		t.Fatalf("down in public while a function calls tenant_c.huid_generate(): %v", err)
	}
	if got := schemaObjects(t, db, "public"); !slices.Equal(got, []string{"function tenant_id()"}) {
		t.Errorf("after down in public: %v", got)
	}
}

// TestMigrateListNamesEveryObject checks sortid_objects() against the
// schema: every listed object exists, and every function, domain and sequence of a
// freshly migrated schema is listed, so up's guard and down cover them all.
func TestMigrateListNamesEveryObject(t *testing.T) {
	t.Parallel()
	_, db := migratedDatabase(t)
	rows, err := db.QueryContext(t.Context(), `
		SELECT e, CASE WHEN e LIKE 'function %' THEN to_regprocedure('public.' || substr(e, 10))::oid
		               WHEN e LIKE 'sequence %' THEN to_regclass('public.' || substr(e, 10))::oid
		               ELSE to_regtype('public.' || substr(e, 8))::oid END
		FROM unnest(public.sortid_objects()) AS e`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var listed []string
	for rows.Next() {
		var e string
		var oid *uint32
		if err := rows.Scan(&e, &oid); err != nil {
			t.Fatal(err)
		}
		if oid == nil {
			t.Errorf("sortid_objects() lists %q, which the migration did not create", e)
		}
		listed = append(listed, e)
	}
	var n int
	if err := db.QueryRowContext(t.Context(), `SELECT count(*) FROM (
		SELECT oid FROM pg_proc WHERE pronamespace = 'public'::regnamespace
		UNION ALL SELECT oid FROM pg_type WHERE typnamespace = 'public'::regnamespace AND typtype = 'd'
		UNION ALL SELECT oid FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind = 'S') o`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != len(listed) || n != len(schemaObjects(t, db, "public")) {
		t.Errorf("the schema holds %d functions, domains and sequences, sortid_objects() lists %d: %v", n, len(listed), listed)
	}
}

// TestMigrateCommentsIgnored: a user's COMMENT on a sortid object does not
// keep down from dropping it, and a user's object whose COMMENT starts with
// "sortid" is neither checked by up's guard nor dropped by down.
func TestMigrateCommentsIgnored(t *testing.T) {
	t.Parallel()
	dbURL, db := migratedDatabase(t)
	ctx := t.Context()
	setup := `COMMENT ON FUNCTION huid_generate() IS 'our key generator';
		COMMENT ON DOMAIN huid IS 'ids';
		CREATE SCHEMA evil;
		CREATE FUNCTION evil.mul(numeric, integer) RETURNS numeric LANGUAGE sql IMMUTABLE RETURN 0;
		CREATE OPERATOR evil.* (LEFTARG = numeric, RIGHTARG = integer, FUNCTION = evil.mul);
		CREATE FUNCTION public.mine(x numeric) RETURNS numeric LANGUAGE sql IMMUTABLE RETURN x OPERATOR(evil.*) 2;
		COMMENT ON FUNCTION public.mine(numeric) IS 'sortid: not one of them'`
	if _, err := db.ExecContext(ctx, setup); err != nil {
		t.Fatal(err)
	}
	if err := migrations.Apply(ctx, sessionWithPath(t, dbURL, "", "public, evil")); err != nil {
		t.Fatalf("up with a user function commented 'sortid' that uses evil.*: %v", err)
	}
	if _, err := db.ExecContext(ctx, migrations.Down()); err != nil {
		t.Fatalf("down: %v", err)
	}
	if got := schemaObjects(t, db, "public"); !slices.Equal(got, []string{"function mine(x numeric)"}) {
		t.Errorf("after down public holds %v, want only mine", got)
	}
}

// downCallers are uses of a sortid object, each of which down must refuse
// to break, naming it.
var downCallers = []struct {
	name, create, drop, want string
}{
	{"column type and default",
		`CREATE TABLE in_use (id bigint DEFAULT huid_generate(), h huid)`, `DROP TABLE in_use`,
		"table in_use"},
	{"PL/pgSQL function as a column default",
		`CREATE FUNCTION my_new_id() RETURNS bigint LANGUAGE plpgsql AS $$BEGIN RETURN huid_generate(); END$$;
		 CREATE TABLE by_plpgsql (id bigint DEFAULT my_new_id())`,
		`DROP TABLE by_plpgsql; DROP FUNCTION my_new_id()`,
		"function my_new_id() (its body names huid_generate)"},
	{"quoted SQL function body, any case",
		`CREATE FUNCTION my_sql_id() RETURNS uuid LANGUAGE sql AS 'SELECT Scru128_Generate()'`, `DROP FUNCTION my_sql_id()`,
		"function my_sql_id() (its body names scru128_generate)"},
	{"SQL-standard function body",
		`CREATE FUNCTION my_ts(id bigint) RETURNS timestamptz LANGUAGE sql RETURN huid_timestamp(id)`, `DROP FUNCTION my_ts(bigint)`,
		"function my_ts(bigint) (uses function huid_timestamp(bigint))"},
	{"PL/pgSQL procedure, schema-qualified call",
		`CREATE PROCEDURE my_proc() LANGUAGE plpgsql AS $$BEGIN PERFORM public.scru128_generate_bytea(); END$$`, `DROP PROCEDURE my_proc()`,
		"my_proc() (its body names scru128_generate_bytea)"},
	{"mention in a comment of a PL/pgSQL body",
		"CREATE FUNCTION my_note() RETURNS int LANGUAGE plpgsql AS $$BEGIN -- unlike huid_min(now())\nRETURN 1; END$$",
		`DROP FUNCTION my_note()`,
		"function my_note() (its body names huid_min)"},
	{"domain in a PL/pgSQL declaration",
		`CREATE FUNCTION my_dom() RETURNS bigint LANGUAGE plpgsql AS $$DECLARE v huid := 5; BEGIN RETURN v; END$$`,
		`DROP FUNCTION my_dom()`,
		"function my_dom() (its body names huid)"},
	{"wrapper named like a sortid function, in another schema",
		`CREATE SCHEMA app; CREATE FUNCTION app.huid_generate() RETURNS bigint LANGUAGE plpgsql AS $$BEGIN RETURN public.huid_generate(); END$$`,
		`DROP SCHEMA app CASCADE`,
		"function app.huid_generate() (its body names huid_generate)"},
	{"huid[] column",
		`CREATE TABLE by_array (ids huid[])`, `DROP TABLE by_array`,
		"table by_array"},
}

// TestMigrateDownInUseChangesNothing: while anything uses a sortid object
// (downCallers), the down migration fails with SQLSTATE 2BP01 naming it and
// leaves every sortid object in place, with golang-migrate, goose,
// migrations.Down in one Exec, and `sortid sql down` piped into psql (with
// and without ON_ERROR_STOP). Once nothing does, it drops everything.
// `sortid sql up` piped into psql twice succeeds. All of it holds in sessions
// that carry the settings oldSessionSettings names too.
func TestMigrateDownInUseChangesNothing(t *testing.T) {
	t.Parallel()
	tools := map[string]migratorFor{
		"golang-migrate":             golangMigrate,
		"goose":                      gooseMigrator,
		"Apply":                      applyMigrator,
		"psql":                       psqlMigrator("-v", "ON_ERROR_STOP=1"),
		"psql without ON_ERROR_STOP": psqlMigrator(),
	}
	for name, tool := range maps.Clone(tools) {
		tools[name+" with old session settings"] = func(t *testing.T, dbURL string, db *sql.DB) migrator {
			setDatabaseDefaults(t, dbURL, oldSessionSettings)
			return tool(t, dbURL, db)
		}
	}
	eachTool(t, tools, func(t *testing.T, name string, m migrator, db *sql.DB) {
		ctx := t.Context()
		if err := m.up(ctx); err != nil {
			t.Fatalf("up: %v", err)
		}
		if err := m.up(ctx); err != nil {
			t.Fatalf("up again: %v", err)
		}
		for _, c := range downCallers {
			if _, err := db.ExecContext(ctx, c.create); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			want := sortidObjects(t, db)
			err := m.down(ctx)
			if err == nil || !strings.Contains(err.Error(), "2BP01") && !strings.Contains(err.Error(), "still used by") ||
				!strings.Contains(err.Error(), c.want) {
				t.Errorf("down while in use by a %s: err %v, want one naming %q", c.name, err, c.want)
			}
			if got := sortidObjects(t, db); !slices.Equal(got, want) {
				t.Fatalf("after the failed down (%s): objects\n%v\nwant\n%v", c.name, got, want)
			}
			if _, err := db.ExecContext(ctx, c.drop); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if m.clean != nil {
				// golang-migrate: dirty until forced, as docs/migrations.md says.
				if err := m.down(ctx); err == nil || !strings.Contains(err.Error(), "Dirty database version") {
					t.Errorf("down again before forcing the version: %v; want golang-migrate's dirty-version error", err)
				}
				if err := m.clean(); err != nil {
					t.Fatalf("after the failed down: %v", err)
				}
			}
		}
		if err := m.down(ctx); err != nil {
			t.Fatalf("down: %v", err)
		}
		if got := sortidObjects(t, db); len(got) != 0 {
			t.Fatalf("after down: objects %v, want none", got)
		}
	})
}

// oldSessionSettings are settings a psql user may carry (in ~/.psqlrc,
// PGOPTIONS or ALTER ROLE) that change how SQL text is read or written:
// backslashes in plain string literals, quoted identifiers in format('%I')
// and regnamespace output, unchecked function bodies. (The search_path names
// the schema to install in or drop from: TestSQLMigrateSearchPath.)
var oldSessionSettings = map[string]string{
	"standard_conforming_strings": "off",
	"escape_string_warning":       "off",
	"quote_all_identifiers":       "on",
	"check_function_bodies":       "off",
}

// setDatabaseDefaults makes settings the defaults of every new session of
// the database at dbURL, and checks that a new session has them.
func setDatabaseDefaults(t *testing.T, dbURL string, settings map[string]string) {
	t.Helper()
	db, err := sql.Open("pgx", dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := t.Context()
	for name, value := range settings {
		if _, err := db.ExecContext(ctx, fmt.Sprintf("DO $$BEGIN EXECUTE format('ALTER DATABASE %%I SET %s = %%L', current_database(), %s); END$$",
			name, pgQuote(value))); err != nil {
			t.Fatalf("ALTER DATABASE SET %s: %v", name, err)
		}
	}
	db.SetMaxIdleConns(0)
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for name, value := range settings {
		var got string
		if err := conn.QueryRowContext(ctx, "SELECT current_setting($1)", name).Scan(&got); err != nil || got != value {
			t.Fatalf("a new session has %s = %q (%v), want %q", name, got, err, value)
		}
	}
}

// pgQuote quotes s as a standard SQL string literal.
func pgQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// TestMigrateQualified migrates with a schema searched before pg_catalog
// that holds, with the same argument types, a copy that raises of every
// binary and prefix operator of pg_catalog and of every pg_catalog function
// the sortid objects use, found by the names their bodies qualify (pg_depend
// records no dependency on a built-in, nor any for a PL/pgSQL body, whose
// calls are resolved at run time): an operator or function left unqualified in a body or a
// domain CHECK would resolve to the copy (and fail the migration's guard),
// and one in a DO block of up or down, or called at run time, would raise. The migration succeeds, the functions, called with that
// search_path too, give what a plain install gives, and down works.
func TestMigrateQualified(t *testing.T) {
	t.Parallel()
	_, ref := migratedDatabase(t)
	ctx := t.Context()
	rows, err := ref.QueryContext(ctx, `
		SELECT DISTINCT format('CREATE FUNCTION shadow.%I(%s) RETURNS %3$s LANGUAGE plpgsql IMMUTABLE AS $b$BEGIN RAISE EXCEPTION ''shadow copy called''; END$b$',
		                       p.proname, pg_get_function_identity_arguments(p.oid), format_type(p.prorettype, NULL))
		FROM pg_proc p
		WHERE p.pronamespace = 'pg_catalog'::regnamespace AND p.prokind = 'f' AND NOT p.proretset
		  AND (p.oid IN (SELECT d.refobjid FROM pg_depend d
		                 JOIN pg_proc o ON d.classid = 'pg_proc'::regclass AND o.oid = d.objid
		                 WHERE o.pronamespace = 'public'::regnamespace AND d.refclassid = 'pg_proc'::regclass)
		       OR p.proname IN (SELECT m[1] FROM pg_proc o, regexp_matches(o.prosrc, 'pg_catalog\.(\w+)\s*\(', 'g') AS m
		                        WHERE o.pronamespace = 'public'::regnamespace))
		  AND NOT EXISTS (SELECT FROM unnest(p.proargtypes::oid[] || p.prorettype) a JOIN pg_type t ON t.oid = a WHERE t.typtype = 'p')
		UNION ALL
		SELECT format('CREATE FUNCTION shadow.op%s(%s) RETURNS %s LANGUAGE plpgsql IMMUTABLE AS $b$BEGIN RAISE EXCEPTION ''shadow copy called''; END$b$; '
		              'CREATE OPERATOR shadow.%s (%s FUNCTION = shadow.op%1$s)',
		              o.oid, concat_ws(', ', format_type(nullif(o.oprleft, 0), NULL), format_type(o.oprright, NULL)),
		              format_type(o.oprresult, NULL), o.oprname,
		              CASE WHEN o.oprkind = 'b' THEN format('LEFTARG = %s,', format_type(o.oprleft, NULL)) ELSE '' END
		              || format(' RIGHTARG = %s,', format_type(o.oprright, NULL)))
		FROM pg_operator o
		WHERE o.oprnamespace = 'pg_catalog'::regnamespace AND o.oprkind IN ('b', 'l')
		  AND NOT EXISTS (SELECT FROM unnest(ARRAY[o.oprleft, o.oprright, o.oprresult]) a JOIN pg_type t ON t.oid = a
		                  WHERE t.typtype = 'p')`)
	copies := texts(t, rows, err)
	if len(copies) < 500 {
		t.Fatalf("only %d copies: the query above lost its operators", len(copies))
	}
	dbURL, db := freshDatabase(t)
	if _, err := db.ExecContext(ctx, "CREATE SCHEMA shadow; "+strings.Join(copies, "; ")); err != nil {
		t.Fatalf("create the copies: %v", err)
	}
	shadowed := sessionWithPath(t, dbURL, "", "public, shadow, pg_catalog")
	var probe *int64
	if err := shadowed.QueryRowContext(ctx, "SELECT 2::bigint # 3::bigint").Scan(&probe); err == nil ||
		!strings.Contains(err.Error(), "shadow copy called") {
		t.Fatalf("the copies do not shadow pg_catalog: 2 # 3 = %v (%v)", probe, err)
	}
	if err := migrations.Apply(ctx, shadowed); err != nil {
		t.Fatalf("up with search_path public, shadow, pg_catalog: %v", err)
	}
	if refs := foreignReferences(t, db, "public"); len(refs) != 0 {
		t.Fatalf("the sortid objects use the copies: %v", refs)
	}
	// The queries use no operator, which would resolve to a copy.
	checks := []string{
		"SELECT huid_timestamp(258905482378248192)::text",
		"SELECT huid_min('2026-06-01 12:00:00.5+00')::text",
		"SELECT huid_max('2026-06-01 12:00:00.5+00')::text",
		"SELECT scru128_to_text(scru128_from_text('0123456789abcdefghijklmnop'))",
		"SELECT scru128_min('2026-06-01+00')::text",
		"SELECT scru128_max_bytea('2026-06-01+00')::text",
		"SELECT scru128_timestamp('\\x0198a2d6e0000000000000000000ffff'::bytea)::text",
		"SELECT 5::huid::text",
		// Deterministic results of the generators at a given time; the array
		// holds calls in a row at one millisecond (the counter's + 1 path).
		"SELECT scru128_timestamp(scru128_generate_at('2026-06-01 12:00:00.5+00'))::text",
		"SELECT array_agg(scru128_timestamp(scru128_generate_at_bytea('2026-06-01 12:00:00.5+00')))::text FROM generate_series(1, 3)",
	}
	for _, q := range checks {
		var want, got sql.NullString
		if err := ref.QueryRowContext(ctx, q).Scan(&want); err != nil || !want.Valid {
			t.Fatalf("%s on a plain install: %v, %v", q, want, err)
		}
		if err := shadowed.QueryRowContext(ctx, q).Scan(&got); err != nil || got != want {
			t.Errorf("%s with the copies searched first: %v (%v), a plain install gives %q", q, got, err, want.String)
		}
	}
	checkGenerated(t, shadowed, "SELECT huid_generate_at(now()), huid_generate(), scru128_generate() FROM generate_series(1, 1000)")
	// scru128_generate_at's errors are raised by its own code, not by a copy.
	ms := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC).UnixMilli() - idtype.SCRU128EpochMillis
	if _, err := shadowed.ExecContext(ctx, "SELECT pg_catalog.set_config('sortid.scru128_at_state', $1, false)",
		fmt.Sprintf("%011x%07x%06x%011x", ms, idtype.SCRU128MaxCounter, 1, ms)); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]string{
		"SELECT scru128_generate_at('2019-06-01+00')":       "is outside the SCRU128 range",
		"SELECT scru128_generate_at('2026-06-01 12:00+00')": "is used up in this session",
	} {
		if _, err := shadowed.ExecContext(ctx, q); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s with the copies searched first: %v, want an error saying %q", q, err, want)
		}
	}
	if _, err := shadowed.ExecContext(ctx, "SELECT (-1)::bigint::huid"); err == nil {
		t.Error("the huid domain accepts -1 (its CHECK used a copy)")
	}
	if _, err := shadowed.ExecContext(ctx, migrations.Down()); err != nil {
		t.Fatalf("down with the copies searched first: %v", err)
	}
	if got := schemaObjects(t, db, "public"); len(got) != 0 {
		t.Errorf("after down public holds %v", got)
	}
}

// checkGenerated runs query, which returns rows of (huid_generate_at(now()),
// huid_generate(), scru128_generate()), and checks that every key is of this
// minute and the generated ones are distinct.
func checkGenerated(t *testing.T, db *sql.DB, query string) {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	seen := map[string]bool{}
	for rows.Next() {
		var at, h idtype.HUID
		var id idtype.SCRU128
		if err := rows.Scan(&at, &h, &id); err != nil {
			t.Fatal(err)
		}
		for name, ts := range map[string]time.Time{
			"huid_generate_at(now())": at.Time(),
			"huid_generate()":         h.Time(),
			"scru128_generate()":      id.Time(),
		} {
			if d := time.Since(ts); d < -time.Second || d > time.Minute {
				t.Fatalf("%s gave a key of %s", name, ts)
			}
		}
		if seen[h.String()] || seen[id.String()] {
			t.Fatalf("a generated key repeats: %s or %s", h, id)
		}
		seen[h.String()], seen[id.String()] = true, true
	}
	if err := rows.Err(); err != nil || len(seen) != 2000 {
		t.Fatalf("%d distinct keys (%v), want 2000", len(seen), err)
	}
}

// TestMigrateDownWithoutList: in a schema that has huid_generate() but no
// sortid_objects() (an install older than the list), down refuses with
// SQLSTATE 55000 and drops nothing; after the up migration it works.
func TestMigrateDownWithoutList(t *testing.T) {
	t.Parallel()
	_, db := migratedDatabase(t)
	ctx := t.Context()
	if _, err := db.ExecContext(ctx, "DROP FUNCTION sortid_objects()"); err != nil {
		t.Fatal(err)
	}
	want := schemaObjects(t, db, "public")
	_, err := db.ExecContext(ctx, migrations.Down())
	if err == nil || !strings.Contains(err.Error(), "55000") || !strings.Contains(err.Error(), "no sortid_objects()") {
		t.Errorf("down without sortid_objects(): %v, want SQLSTATE 55000 naming it", err)
	}
	if got := schemaObjects(t, db, "public"); !slices.Equal(got, want) {
		t.Errorf("the refused down changed the schema: %v", got)
	}
	if err := migrations.Apply(ctx, db); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, migrations.Down()); err != nil {
		t.Fatalf("down after up: %v", err)
	}
	if got := schemaObjects(t, db, "public"); len(got) != 0 {
		t.Errorf("after down: %v", got)
	}
}

// TestMigrateUpReplacesOldRaise: the up migration drops the
// sortid_raise(text, text, anyelement) of installs older than
// sortid_objects(), so a later down leaves the schema empty.
func TestMigrateUpReplacesOldRaise(t *testing.T) {
	t.Parallel()
	_, db := migratedDatabase(t)
	ctx := t.Context()
	if _, err := db.ExecContext(ctx, `CREATE FUNCTION sortid_raise(p_code text, p_message text, p_model anyelement)
		RETURNS anyelement LANGUAGE plpgsql AS $$BEGIN RAISE EXCEPTION USING ERRCODE = p_code, MESSAGE = p_message; END$$`); err != nil {
		t.Fatal(err)
	}
	if err := migrations.Apply(ctx, db); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, migrations.Down()); err != nil {
		t.Fatal(err)
	}
	if got := schemaObjects(t, db, "public"); len(got) != 0 {
		t.Errorf("after up and down, public holds %v", got)
	}
}

// TestMigrateDownQualifiedNames: a call qualified with the install's schema
// name, spelt as PostgreSQL reads identifiers ($ in a bare name, doubled
// quotes, letters it does not fold), keeps down from running.
func TestMigrateDownQualifiedNames(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ schema, spelt string }{
		{"ten$b", "TEN$B"},
		{`a"b`, `"a""b"`},
		{"École", "École"},
		{"École", `"École"`},
	} {
		dbURL, db := freshDatabase(t)
		ctx := t.Context()
		ident := quoteIdent(tt.schema)
		if _, err := db.ExecContext(ctx, "CREATE SCHEMA "+ident); err != nil {
			t.Fatal(err)
		}
		in := sessionWithPath(t, dbURL, "", ident)
		if err := migrations.Apply(ctx, in); err != nil {
			t.Fatalf("up in %s: %v", ident, err)
		}
		if _, err := db.ExecContext(ctx, `CREATE FUNCTION public.caller() RETURNS bigint LANGUAGE plpgsql
			AS $$BEGIN RETURN `+tt.spelt+`.huid_generate(); END$$`); err != nil {
			t.Fatal(err)
		}
		if _, err := in.ExecContext(ctx, migrations.Down()); err == nil || !strings.Contains(err.Error(), "caller() (its body names huid_generate)") {
			t.Errorf("down in %s while public.caller() calls %s.huid_generate(): %v, want a refusal naming it", ident, tt.spelt, err)
		}
		if _, err := db.ExecContext(ctx, `DROP FUNCTION public.caller()`); err != nil {
			t.Fatal(err)
		}
		if _, err := in.ExecContext(ctx, migrations.Down()); err != nil {
			t.Errorf("down in %s: %v", ident, err)
		}
	}
}
