package integration_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golang-migrate/migrate/v4/database"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sortid/sortid/integration/internal/pgcluster"
)

// citusRefusal is the whole message of the down migration run on the
// coordinator while the distributed table ev uses sortid: it names the
// coordinator's table, not the shards on the workers (the coordinator holds
// no shard, and the check runs on the coordinator only).
const citusRefusal = "sortid down: nothing dropped from schema public, sortid objects are still used by " +
	"column s of table ev (uses type scru128_bytes), default value for column id of table ev (uses function huid_generate())"

// TestCitusMigrate runs the sortid migrations on the coordinator of a Citus
// cluster (a coordinator and two workers, one cluster per tool) with psql -f
// of the canonical files, migrations.Apply (down: migrations.Down in one
// Exec), golang-migrate and goose:
//
//  1. up: every node holds exactly the objects sortid_objects() names, with
//     the coordinator's definitions, and Citus records each of them in
//     pg_dist_object;
//  2. a worker added afterwards holds them too;
//  3. while a distributed table uses sortid, down fails with SQLSTATE 2BP01
//     and citusRefusal, and no node loses anything;
//  4. once the table is gone, down leaves no sortid function or domain on
//     any node, and none in pg_dist_object;
//  5. up again installs everything on every node.
//
// The COMMENTs of the up migration stay on the coordinator: Citus 13.2
// propagates neither COMMENT ON FUNCTION nor COMMENT ON DOMAIN, also not to
// a worker added later. The test asserts that, so that a Citus that starts
// propagating them shows up here (and in docs/SCALE.md).
func TestCitusMigrate(t *testing.T) {
	t.Parallel()
	tools := []struct {
		name string
		tool migratorFor
	}{
		{"psql", psqlFileMigrator},
		{"Apply", applyMigrator},
		{"golang-migrate", golangMigrate},
		{"goose", gooseMigrator},
	}
	for _, tt := range tools {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			testCitusMigrate(t, tt.tool)
		})
	}
}

func testCitusMigrate(t *testing.T, tool migratorFor) {
	ctx := t.Context()
	k := newCitusNodes(pgcluster.NewHost(t).Citus(t, 2))
	coord := k.db(t, k.c.Coordinator)
	m := tool(t, k.c.Coordinator.URL("postgres"), coord)

	timedUp(t, m, "up")
	want := k.installed(t)
	k.requireInstalled(t, want, "after up")

	k.c.AddWorker(t)
	k.requireInstalled(t, want, "after AddWorker")

	for _, q := range []string{
		"CREATE TABLE ev (id bigint PRIMARY KEY DEFAULT huid_generate(), s scru128_bytes)",
		"SELECT create_distributed_table('ev', 'id')",
		"INSERT INTO ev (s) VALUES (scru128_generate_bytea())",
	} {
		if _, err := coord.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	err := m.down(ctx)
	code, msg := sqlError(err)
	if code != "2BP01" || msg != citusRefusal {
		t.Fatalf("down while ev uses sortid: SQLSTATE %q, message %q (error %v)\nwant 2BP01, %q", code, msg, err, citusRefusal)
	}
	t.Logf("refused down: %s %s", code, msg)
	k.requireInstalled(t, want, "after the refused down")
	var rows int
	if err := coord.QueryRowContext(ctx, "SELECT count(*) FROM ev").Scan(&rows); err != nil || rows != 1 {
		t.Fatalf("ev after the refused down: %d rows, %v; want the 1 row inserted", rows, err)
	}
	if m.clean != nil { // golang-migrate marks the version dirty
		if err := m.clean(); err != nil {
			t.Fatalf("after the refused down: %v", err)
		}
	}

	if _, err := coord.ExecContext(ctx, "DROP TABLE ev"); err != nil {
		t.Fatal(err)
	}
	if err := m.down(ctx); err != nil {
		t.Fatalf("down: %v", err)
	}
	k.requireNone(t, "after down")

	timedUp(t, m, "up again")
	k.requireInstalled(t, want, "after up again")
}

// timedUp runs the up migration on the coordinator and logs how long it
// took, propagation to the workers included.
func timedUp(t *testing.T, m migrator, step string) {
	t.Helper()
	start := time.Now()
	if err := m.up(t.Context()); err != nil {
		t.Fatalf("%s: %v", step, err)
	}
	t.Logf("%s on the coordinator: %v", step, time.Since(start).Round(time.Millisecond))
}

// citusNodes inspects the nodes of one Citus cluster through one
// database/sql pool per node, so that repeated checks do not pile up
// idle connections.
type citusNodes struct {
	c   *pgcluster.Citus
	dbs map[*pgcluster.Cluster]*sql.DB
}

func newCitusNodes(c *pgcluster.Citus) *citusNodes {
	return &citusNodes{c: c, dbs: map[*pgcluster.Cluster]*sql.DB{}}
}

func (k *citusNodes) db(t *testing.T, n *pgcluster.Cluster) *sql.DB {
	t.Helper()
	if k.dbs[n] == nil {
		k.dbs[n] = pgcluster.OpenDB(t, n.URL("postgres"))
	}
	return k.dbs[n]
}

// sortidInstall is what an up migration leaves on the coordinator.
type sortidInstall struct {
	listed      []string // sortid_objects(), e.g. "function huid_min(pg_catalog.timestamptz)"
	objects     []string // sortidObjects
	definitions []string // sortidDefinitions
}

// installed reads the coordinator's install and checks that it is whole:
// its schema holds exactly the objects sortid_objects() names, and Citus
// records each of them as a distributed object, which is what makes it
// create them on a worker added later.
func (k *citusNodes) installed(t *testing.T) sortidInstall {
	t.Helper()
	db := k.db(t, k.c.Coordinator)
	var in sortidInstall
	in.listed = queryTexts(t, db, "SELECT unnest(sortid_objects())")
	in.objects = sortidObjects(t, db)
	in.definitions = sortidDefinitions(t, db)
	if len(in.objects) != len(in.listed) {
		t.Fatalf("coordinator: sortid_objects() names %d objects, the schema holds %d:\n%v\n%v",
			len(in.listed), len(in.objects), in.listed, in.objects)
	}
	if missing := listedMissing(t, db, in.listed); len(missing) > 0 {
		t.Fatalf("coordinator: sortid_objects() names objects it lacks: %v", missing)
	}
	local := queryTexts(t, db, `
		SELECT e FROM unnest($1::text[]) AS e
		WHERE NOT EXISTS (SELECT FROM pg_dist_object d WHERE (d.classid, d.objid) = (`+listedOID+`))`, in.listed)
	if len(local) > 0 {
		t.Fatalf("coordinator: not in pg_dist_object: %v", local)
	}
	return in
}

// requireInstalled checks every node against the coordinator's install:
// the same functions (identity arguments, volatility, strictness, parallel
// safety) and domains, none missing from sortid_objects(), the same
// definitions; COMMENTs on the coordinator only; a key of huid_generate() of
// each node's own.
func (k *citusNodes) requireInstalled(t *testing.T, want sortidInstall, step string) {
	t.Helper()
	var figures []string
	keys := map[int64]string{}
	for _, n := range k.c.Nodes() {
		db := k.db(t, n)
		if got := sortidObjects(t, db); !slices.Equal(got, want.objects) {
			t.Fatalf("%s: %s holds\n%v\nwant the coordinator's\n%v", step, n.Name, got, want.objects)
		}
		if missing := listedMissing(t, db, want.listed); len(missing) > 0 {
			t.Fatalf("%s: %s lacks %v", step, n.Name, missing)
		}
		if got := sortidDefinitions(t, db); !slices.Equal(got, want.definitions) {
			t.Fatalf("%s: %s has other definitions:\n%v\nwant\n%v", step, n.Name, got, want.definitions)
		}
		// Every node makes keys with a generator of its own: its counter,
		// under a key (the counter's START) no other node has.
		var key, drawn int64
		if err := db.QueryRowContext(t.Context(), `WITH made AS MATERIALIZED (SELECT huid_generate())
			SELECT start_value, currval('sortid_huid_counter') FROM made, pg_sequences
			WHERE schemaname = current_schema() AND sequencename = 'sortid_huid_counter'`).Scan(&key, &drawn); err != nil {
			t.Fatalf("%s: %s: huid_generate() with the node's counter: %v", step, n.Name, err)
		}
		t.Logf("%s: %s: key %d, counter %d", step, n.Name, key, drawn)
		if other, ok := keys[key]; ok {
			t.Fatalf("%s: %s and %s have the same key %d for huid_generate()", step, n.Name, other, key)
		}
		keys[key] = n.Name
		// Citus 13.2 does not propagate COMMENT ON FUNCTION, DOMAIN or SEQUENCE.
		wantComments := 0
		if n == k.c.Coordinator {
			wantComments = len(want.listed)
		}
		if got := sortidComments(t, db); got != wantComments {
			t.Fatalf("%s: %s has %d sortid objects with a COMMENT, want %d", step, n.Name, got, wantComments)
		}
		figures = append(figures, fmt.Sprintf("%s %d objects (%d with a COMMENT)", n.Name, len(want.objects), wantComments))
	}
	t.Logf("%s: %s", step, strings.Join(figures, ", "))
}

// requireNone checks that no node holds a sortid function or domain (the
// schema holds no function or domain at all: Citus puts none in public), and
// that the coordinator's pg_dist_object lists no function or type.
func (k *citusNodes) requireNone(t *testing.T, step string) {
	t.Helper()
	for _, n := range k.c.Nodes() {
		if got := sortidObjects(t, k.db(t, n)); len(got) != 0 {
			t.Fatalf("%s: %s still holds %v", step, n.Name, got)
		}
	}
	left := queryTexts(t, k.db(t, k.c.Coordinator), `
		SELECT pg_describe_object(classid, objid, objsubid) FROM pg_dist_object
		WHERE classid IN ('pg_proc'::regclass, 'pg_type'::regclass, 'pg_class'::regclass) ORDER BY 1`)
	if len(left) > 0 {
		t.Fatalf("%s: pg_dist_object still lists %v", step, left)
	}
	t.Logf("%s: no sortid object on any of the %d nodes", step, len(k.c.Nodes()))
}

// listedOID is the (catalog, oid) of an entry e of sortid_objects() in the
// current schema, NULL when it does not exist there.
const listedOID = `
	CASE WHEN e LIKE 'function %' THEN 'pg_proc'::regclass
	     WHEN e LIKE 'sequence %' THEN 'pg_class'::regclass ELSE 'pg_type'::regclass END,
	CASE WHEN e LIKE 'function %'
	  THEN to_regprocedure(format('%I.%s', current_schema(), substr(e, 10)))::oid
	  WHEN e LIKE 'sequence %' THEN to_regclass(format('%I.%s', current_schema(), substr(e, 10)))::oid
	  ELSE to_regtype(format('%I.%s', current_schema(), substr(e, 8)))::oid END`

// listedMissing returns the entries of listed that do not resolve in the
// current schema of db.
func listedMissing(t *testing.T, db *sql.DB, listed []string) []string {
	t.Helper()
	return queryTexts(t, db, `
		SELECT e FROM unnest($1::text[]) AS e, LATERAL (SELECT `+listedOID+`) AS o(classid, objid)
		WHERE o.objid IS NULL`, listed)
}

// sortidDefinitions lists, for every function of the current schema, a hash
// of pg_get_functiondef (body, settings, volatility: the whole CREATE), and
// for every domain its base type and constraints, so that a node whose
// objects carry the right names but another body shows.
func sortidDefinitions(t *testing.T, db *sql.DB) []string {
	t.Helper()
	return queryTexts(t, db, `
		SELECT format('function %s(%s) %s', p.proname, pg_get_function_identity_arguments(p.oid), md5(pg_get_functiondef(p.oid)))
		FROM pg_proc p WHERE p.pronamespace = current_schema()::regnamespace
		UNION ALL
		SELECT format('domain %s %s %s', t.typname, format_type(t.typbasetype, t.typtypmod),
		              string_agg(c.conname || ' ' || pg_get_constraintdef(c.oid), ', ' ORDER BY c.conname))
		FROM pg_type t LEFT JOIN pg_constraint c ON c.contypid = t.oid
		WHERE t.typnamespace = current_schema()::regnamespace AND t.typtype = 'd'
		GROUP BY t.oid
		UNION ALL
		-- Citus gives a worker's copy a range of its own (start, min, max)
		SELECT format('sequence %s %s increment=%s cache=%s cycle=%s', sequencename, data_type, increment_by, cache_size, cycle)
		FROM pg_sequences WHERE schemaname = current_schema() AND sequencename LIKE 'sortid\_huid\_%'
		ORDER BY 1`)
}

// sortidComments counts the functions and domains of the current schema
// that have a COMMENT.
func sortidComments(t *testing.T, db *sql.DB) int {
	t.Helper()
	var n int
	err := db.QueryRowContext(t.Context(), `
		SELECT count(*) FROM pg_description d
		WHERE d.objsubid = 0 AND (
		      d.classoid = 'pg_proc'::regclass AND d.objoid IN (
		        SELECT oid FROM pg_proc WHERE pronamespace = current_schema()::regnamespace)
		   OR d.classoid = 'pg_type'::regclass AND d.objoid IN (
		        SELECT oid FROM pg_type WHERE typnamespace = current_schema()::regnamespace AND typtype = 'd')
		   OR d.classoid = 'pg_class'::regclass AND d.objoid IN (
		        SELECT oid FROM pg_class WHERE relnamespace = current_schema()::regnamespace AND relkind = 'S'))`).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// queryTexts runs a query of one text column on db.
func queryTexts(t *testing.T, db *sql.DB, query string, args ...any) []string {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), query, args...)
	return texts(t, rows, err)
}

// psqlFileMigrator runs the canonical files with
// `psql -X -v ON_ERROR_STOP=1 -f migrations/sql/0001_sortid.{up,down}.sql`,
// each statement in a transaction of its own. VERBOSITY=verbose only makes
// psql print the SQLSTATE of an error, which psqlError reads.
func psqlFileMigrator(t *testing.T, dbURL string, _ *sql.DB) migrator {
	t.Helper()
	psql, err := exec.LookPath("psql")
	if err != nil {
		t.Fatalf("psql is needed (Debian: apt-get install postgresql-client): %v", err)
	}
	run := func(ctx context.Context, file string) error {
		path := filepath.Join("..", "migrations", "sql", file)
		out, err := exec.CommandContext(ctx, psql, "-X", "-v", "ON_ERROR_STOP=1", "-v", "VERBOSITY=verbose",
			"-d", dbURL, "-f", path).CombinedOutput()
		if err != nil {
			e := &psqlError{err: err, output: string(out)}
			if m := psqlErrorLine.FindStringSubmatch(e.output); m != nil {
				e.code, e.message = m[1], m[2]
			}
			return e
		}
		return nil
	}
	return migrator{
		up:   func(ctx context.Context) error { return run(ctx, "0001_sortid.up.sql") },
		down: func(ctx context.Context) error { return run(ctx, "0001_sortid.down.sql") },
	}
}

// psqlErrorLine is the first line of an error psql prints with
// VERBOSITY=verbose: "ERROR:  2BP01: message".
var psqlErrorLine = regexp.MustCompile(`(?m)ERROR:  ([0-9A-Z]{5}): (.*)$`)

// psqlError is a psql run that failed, with the SQLSTATE and message of the
// error it printed, if any.
type psqlError struct {
	err           error
	output        string
	code, message string
}

func (e *psqlError) Error() string { return fmt.Sprintf("psql: %v\n%s", e.err, e.output) }

// sqlError returns the SQLSTATE and message of the server error that made a
// migration run fail, whichever tool ran it; "" when there is none.
func sqlError(err error) (code, message string) {
	var psqlErr *psqlError
	if errors.As(err, &psqlErr) {
		return psqlErr.code, psqlErr.message
	}
	// golang-migrate's database.Error keeps the driver's error without
	// wrapping it.
	var dbErr database.Error
	if errors.As(err, &dbErr) {
		err = dbErr.OrigErr
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code, pgErr.Message
	}
	return "", ""
}
