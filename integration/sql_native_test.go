package integration_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sortid/sortid/integration/internal/pgtest"
	"github.com/sortid/sortid/migrations"
)

// envNative says which implementation of the generators the server under
// test must give ("on": the native library of pgext/, "off": plain SQL), so
// that a CI run meant for one cannot quietly test the other. .ci/run sets it
// for the system's server, scripts/matrix.sh for the others.
const envNative = "SORTID_TEST_NATIVE"

// nativeGenerators are the functions the up migration defines in C when the
// library is installed.
var nativeGenerators = []string{
	"huid_generate()", "huid_generate_at(timestamptz)",
	"scru128_generate()", "scru128_generate_bytea()",
	"scru128_generate_at(timestamptz)", "scru128_generate_at_bytea(timestamptz)",
}

// nativeInstalled reports whether the server has the sortid library, and
// fails t when SORTID_TEST_NATIVE says otherwise.
func nativeInstalled(t *testing.T, conn *pgx.Conn) bool {
	t.Helper()
	var installed bool
	if err := conn.QueryRow(t.Context(), `SELECT EXISTS (SELECT FROM pg_available_extensions WHERE name = 'sortid')`).Scan(&installed); err != nil {
		t.Fatal(err)
	}
	if want := os.Getenv(envNative); want != "" && (want == "on") != installed {
		t.Fatalf("%s=%s, but the sortid library installed in the server under test: %v (pgext/README.md says how to install it)", envNative, want, installed)
	}
	return installed
}

// generatorLanguages returns the language of each native generator in
// schema, as the docs tell users to look it up.
func generatorLanguages(t *testing.T, conn *pgx.Conn, schema string) map[string]string {
	t.Helper()
	langs := map[string]string{}
	for _, f := range nativeGenerators {
		var lang string
		if err := conn.QueryRow(t.Context(), `SELECT l.lanname FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
			WHERE p.oid = to_regprocedure($1)`, schema+"."+f).Scan(&lang); err != nil {
			t.Fatalf("%s.%s: %v", schema, f, err)
		}
		langs[f] = lang
	}
	return langs
}

// checkLanguages fails t unless every generator in schema is C (native) or
// none is.
func checkLanguages(t *testing.T, conn *pgx.Conn, schema string, native bool) {
	t.Helper()
	for f, lang := range generatorLanguages(t, conn, schema) {
		if (lang == "c") != native {
			t.Errorf("%s.%s is LANGUAGE %s; want native %v", schema, f, lang, native)
		}
	}
}

// TestSQLNativePicked: a superuser's up migration defines the generators in
// C exactly when the library is installed in the server, and CREATE
// EXTENSION sortid refuses with 0A000 naming the migration.
func TestSQLNativePicked(t *testing.T) {
	t.Parallel()
	conn := pgtest.Conn(t)
	installed := nativeInstalled(t, conn)
	checkLanguages(t, conn, "public", installed)
	if !installed {
		return
	}
	_, err := conn.Exec(t.Context(), `CREATE EXTENSION sortid`)
	if sqlState(err) != "0A000" || !strings.Contains(err.Error(), "the sortid up migration uses the installed library") {
		t.Errorf("CREATE EXTENSION sortid: %v; want 0A000 naming the up migration", err)
	}
}

// TestSQLNativeSameRule: whichever implementation is in use, every key
// huid_generate() makes on a primary is sortid_huid_mix (the SQL) of its
// millisecond and the counter value it drew, under the key sortid_huid_key
// returns, so keys made by the C and the SQL functions of one server never
// repeat, also while a switch mixes them.
func TestSQLNativeSameRule(t *testing.T) {
	t.Parallel()
	conn := pgtest.Conn(t)
	var rows, agree int
	if err := conn.QueryRow(t.Context(), `
		WITH g AS (SELECT huid_generate() AS id, currval('sortid_huid_counter') AS c FROM generate_series(1, 50000))
		SELECT count(*), count(*) FILTER (WHERE sortid_huid_mix((id & ~2097151::bigint) | (c & 2097151), sortid_huid_key('sortid_huid_counter')) = id)
		FROM g`).Scan(&rows, &agree); err != nil {
		t.Fatal(err)
	}
	if agree != rows {
		t.Errorf("%d of %d keys follow the rule of sortid_huid_mix; want all (native %v)", agree, rows, nativeInstalled(t, conn))
	}
}

// TestSQLNativeSwitch: running up again switches the implementation (as a
// superuser: to C where the library is installed; as a superuser with
// sortid.native = off, or as a role that may not create C functions: to
// plain SQL, the latter with a NOTICE saying so), while 4
// sessions insert with DEFAULT huid_generate() and scru128_generate() into
// tables whose keys are primary keys: no insert fails, no key repeats, and
// the down migration then drops every sortid object of the schema. Without
// the library, up as a superuser keeps plain SQL.
func TestSQLNativeSwitch(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	admin := pgtest.Conn(t)
	installed := nativeInstalled(t, admin)
	owner := createRole(t)
	t.Cleanup(func() { _, _ = admin.Exec(context.Background(), "DROP OWNED BY "+owner) })
	execAll(t, admin, "CREATE SCHEMA sw AUTHORIZATION "+owner)
	dbURL := pgtest.URL(t)
	asSuper := sessionWithPath(t, dbURL, "", "sw")
	ownerURL, err := pgtest.WithParam(dbURL, "user", owner)
	if err != nil {
		t.Fatal(err)
	}
	if ownerURL, err = pgtest.WithParam(ownerURL, "search_path", "sw"); err != nil {
		t.Fatal(err)
	}
	var notices []string
	cfg, err := pgx.ParseConfig(ownerURL)
	if err != nil {
		t.Fatal(err)
	}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { notices = append(notices, n.Message) }
	asOwner, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = asOwner.Close(context.Background()) })
	upAsOwner := func() {
		t.Helper()
		notices = nil
		if _, err := asOwner.Exec(ctx, migrations.Up()); err != nil {
			t.Fatal(err)
		}
		checkLanguages(t, admin, "sw", false)
		want := fmt.Sprintf("sortid: the native library is installed, but role %s may not create C functions; the generators stay plain SQL", owner)
		if installed != slices.Contains(notices, want) {
			t.Errorf("up as %s: notices %q; want %q exactly when the library is installed (%v)", owner, notices, want, installed)
		}
	}
	upAsOwner()
	execAll(t, admin, `CREATE TABLE sw.h (id bigint PRIMARY KEY DEFAULT sw.huid_generate())`,
		`CREATE TABLE sw.s (id uuid PRIMARY KEY DEFAULT sw.scru128_generate())`)

	var inserted atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		conn := pgtest.Conn(t)
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := conn.Exec(ctx, `WITH a AS (INSERT INTO sw.h SELECT FROM generate_series(1, 200)),
					b AS (INSERT INTO sw.s SELECT FROM generate_series(1, 200)) SELECT`); err != nil {
					errs <- err
					return
				}
				inserted.Add(200)
			}
		})
	}
	upAsSuper := func(native string) {
		t.Helper()
		if _, err := asSuper.ExecContext(ctx, "SELECT set_config('sortid.native', $1, false)", native); err != nil {
			t.Fatal(err)
		}
		if err := migrations.Apply(ctx, asSuper); err != nil {
			t.Fatal(err)
		}
		checkLanguages(t, admin, "sw", installed && native != "off")
	}
	for range 2 {
		upAsSuper("")
		upAsOwner()
		upAsSuper("")
		upAsSuper("off")
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("insert during the switches: %v", err)
	}
	for _, table := range []string{"sw.h", "sw.s"} {
		var rows, distinct int64
		if err := admin.QueryRow(ctx, fmt.Sprintf(`SELECT count(*), count(DISTINCT id) FROM %s`, table)).Scan(&rows, &distinct); err != nil {
			t.Fatal(err)
		}
		if rows != inserted.Load() || distinct != rows {
			t.Errorf("%s: %d rows, %d distinct; want %d", table, rows, distinct, inserted.Load())
		}
	}
	t.Logf("native library installed: %v; %d rows per table across 8 runs of up", installed, inserted.Load())

	upAsSuper("")
	execAll(t, admin, `DROP TABLE sw.h, sw.s`)
	if _, err := asSuper.ExecContext(ctx, migrations.Down()); err != nil {
		t.Fatalf("down: %v", err)
	}
	var left int
	if err := admin.QueryRow(ctx, `SELECT count(*) FROM pg_proc WHERE pronamespace = 'sw'::regnamespace`).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Errorf("down left %d functions in schema sw", left)
	}
}

// TestSQLNativeDumpPortable: a dump of a database whose generators are C
// names the library, and restored without it loses the functions (58P01)
// and the tables whose DEFAULT calls them; one taken after running up again
// with sortid.native = off does not name it and restores, tables with
// DEFAULT keys included.
func TestSQLNativeDumpPortable(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	srcURL, src := migratedDatabase(t)
	if _, err := src.ExecContext(ctx, `CREATE TABLE keyed (id bigint PRIMARY KEY DEFAULT huid_generate(), s uuid NOT NULL DEFAULT scru128_generate());
		INSERT INTO keyed DEFAULT VALUES`); err != nil {
		t.Fatal(err)
	}
	installed := nativeInstalled(t, pgtest.Conn(t))
	native := string(pgDump(t, srcURL))
	if got := strings.Contains(native, "$libdir/sortid"); got != installed {
		t.Errorf("dump names $libdir/sortid: %v; want %v (native library installed)", got, installed)
	}
	if installed {
		// A server without the library, as a library name it lacks.
		absentURL, absent := freshDatabase(t)
		out, _ := restore(t, absentURL, []byte(strings.ReplaceAll(native, "$libdir/sortid'", "$libdir/sortid_absent'")), false)
		var tables int
		if err := absent.QueryRowContext(ctx, `SELECT count(*) FROM pg_class WHERE relname = 'keyed'`).Scan(&tables); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, `could not access file "$libdir/sortid_absent"`) || tables != 0 {
			t.Errorf("native dump restored without the library: table keyed restored %v; psql said: %s", tables != 0, out)
		}
	}
	if _, err := src.ExecContext(ctx, "SET sortid.native = off"); err != nil {
		t.Fatal(err)
	}
	if err := migrations.Apply(ctx, src); err != nil {
		t.Fatal(err)
	}
	dump := pgDump(t, srcURL)
	if strings.Contains(string(dump), "$libdir/sortid") {
		t.Error("dump after up with sortid.native = off still names $libdir/sortid")
	}
	dstURL, dst := freshDatabase(t)
	if out, err := restore(t, dstURL, dump, true); err != nil {
		t.Fatalf("restore: %v: %s", err, out)
	}
	if _, err := dst.ExecContext(ctx, `INSERT INTO keyed DEFAULT VALUES`); err != nil {
		t.Fatalf("insert into the restored table: %v", err)
	}
	var rows int
	if err := dst.QueryRowContext(ctx, `SELECT count(*) FROM keyed`).Scan(&rows); err != nil || rows != 2 {
		t.Errorf("restored table: %d rows (%v); want 2", rows, err)
	}
}

// TestSQLNativeCounterDropped: PostgreSQL records no dependency of a C
// function on the sequence it uses, so DROP SEQUENCE sortid_huid_counter,
// refused (2BP01) while the plain SQL huid_generate() uses it, succeeds under
// the native one, which then raises 42704 naming the schema until up runs
// again.
func TestSQLNativeCounterDropped(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dbURL, db := migratedDatabase(t)
	conn := connectWith(t, dbURL, "application_name", "sortid_test")
	native := nativeInstalled(t, conn)
	_, err := conn.Exec(ctx, `DROP SEQUENCE sortid_huid_counter`)
	if !native {
		if sqlState(err) != "2BP01" {
			t.Fatalf("DROP SEQUENCE under the plain SQL: %v; want 2BP01", err)
		}
		return
	}
	if err != nil {
		t.Fatalf("DROP SEQUENCE under the native huid_generate(): %v", err)
	}
	_, err = conn.Exec(ctx, `SELECT huid_generate()`)
	if sqlState(err) != "42704" || !strings.Contains(err.Error(), "schema public has no sequence sortid_huid_counter") {
		t.Errorf("huid_generate() without its counter: %v; want 42704 naming schema public", err)
	}
	if err := migrations.Apply(ctx, db); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `SELECT huid_generate()`); err != nil {
		t.Errorf("huid_generate() after up again: %v", err)
	}
}
