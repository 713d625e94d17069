package integration_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sortid/sortid/integration/internal/pgcluster"
	"github.com/sortid/sortid/pgretry"
)

// citusInsert inserts one row into table, with the key id or, for nil, the
// column's DEFAULT.
type citusInsert func(ctx context.Context, conn *pgx.Conn, table string, id *int64) error

var citusCollisionForms = []struct {
	name   string
	insert citusInsert
}{
	{"INSERT ... VALUES", func(ctx context.Context, conn *pgx.Conn, table string, id *int64) error {
		if id == nil {
			_, err := conn.Exec(ctx, fmt.Sprintf("INSERT INTO %s (b) VALUES ('new')", table))
			return err
		}
		_, err := conn.Exec(ctx, fmt.Sprintf("INSERT INTO %s (id, b) VALUES ($1, 'new')", table), *id)
		return err
	}},
	{"INSERT ... SELECT", func(ctx context.Context, conn *pgx.Conn, table string, id *int64) error {
		if id == nil {
			_, err := conn.Exec(ctx, fmt.Sprintf("INSERT INTO %s (b) SELECT 'new' FROM generate_series(1, 1)", table))
			return err
		}
		_, err := conn.Exec(ctx, fmt.Sprintf("INSERT INTO %s (id, b) SELECT $1::bigint, 'new' FROM generate_series(1, 1)", table), *id)
		return err
	}},
	{"COPY", func(ctx context.Context, conn *pgx.Conn, table string, id *int64) error {
		cols, row := []string{"b"}, []any{"new"}
		if id != nil {
			cols, row = []string{"id", "b"}, []any{*id, "new"}
		}
		_, err := conn.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows([][]any{row}))
		return err
	}},
}

// TestCitusCollisionsRetried forces a collision on a distributed and on a
// reference table in every insert form, sent to the coordinator and to a
// worker, and checks that pgretry.Insert, InsertOn (with the table's
// constraint name) and InsertOnKey retry it with a fresh DEFAULT key,
// whichever form of unique violation Citus reports, and that the row
// holding the key is not touched.
func TestCitusCollisionsRetried(t *testing.T) {
	t.Parallel()
	c := startCitus(t)
	ctx := t.Context()
	coord := c.Coordinator.Connect(t, "postgres")
	tables := map[string]string{
		"c_dist": "SELECT create_distributed_table('c_dist', 'id')",
		"c_ref":  "SELECT create_reference_table('c_ref')",
	}
	for table, distribute := range tables {
		execAll(t, coord, fmt.Sprintf("CREATE TABLE %s (id bigint PRIMARY KEY DEFAULT huid_generate(), b text)", table), distribute)
	}
	retriers := []struct {
		name string
		run  func(ctx context.Context, table string, insert func(context.Context) error) (int, error)
	}{
		{"Insert", func(ctx context.Context, _ string, insert func(context.Context) error) (int, error) {
			return pgretry.Insert(ctx, 3, insert)
		}},
		{"InsertOn", func(ctx context.Context, table string, insert func(context.Context) error) (int, error) {
			return pgretry.InsertOn(ctx, table+"_pkey", 3, insert)
		}},
		{"InsertOnKey", func(ctx context.Context, _ string, insert func(context.Context) error) (int, error) {
			return pgretry.InsertOnKey(ctx, []string{"id"}, 3, insert)
		}},
	}
	for _, node := range []*pgcluster.Cluster{c.Coordinator, c.Workers[0]} {
		conn := node.Connect(t, "postgres")
		for table := range tables {
			for _, f := range citusCollisionForms {
				for _, r := range retriers {
					name := fmt.Sprintf("%s, %s, %s, %s", node.Name, table, f.name, r.name)
					var taken int64
					if err := coord.QueryRow(ctx, fmt.Sprintf("INSERT INTO %s (b) VALUES ('taken') RETURNING id", table)).Scan(&taken); err != nil {
						t.Fatal(err)
					}
					var first error
					attempts := 0
					retries, err := r.run(ctx, table, func(ctx context.Context) error {
						attempts++
						if attempts == 1 {
							first = f.insert(ctx, conn, table, &taken)
							return first
						}
						return f.insert(ctx, conn, table, nil)
					})
					if err != nil || retries != 1 {
						t.Errorf("%s: retries %d, err %v; want 1 retry and success (first attempt: %v)", name, retries, err, first)
					}
					if r.name == "Insert" {
						var pgErr *pgconn.PgError
						errors.As(first, &pgErr)
						t.Logf("%s: SQLSTATE %s, constraint %q (field %q), key %q", name,
							pgretry.SQLState(first), pgretry.Constraint(first), pgErr.ConstraintName, pgretry.KeyColumns(first))
					}
					var b string
					var n int
					q := fmt.Sprintf("SELECT min(b), count(*) FROM %s WHERE id = $1", table)
					if err := coord.QueryRow(ctx, q, taken).Scan(&b, &n); err != nil || b != "taken" || n != 1 {
						t.Errorf("%s: the row holding the taken key now has b %q (%d rows, %v); want it untouched", name, b, n, err)
					}
				}
			}
		}
	}
}

// citusSelfCollisionRows is the size of the INSERT ... SELECT between
// distributed tables that TestCitusInsertSelectSelfCollision measures.
const citusSelfCollisionRows = 100_000

// TestCitusInsertSelectSelfCollision measures what docs/SCALE.md states of
// an INSERT ... SELECT between distributed tables with a DEFAULT HUID key:
// its DEFAULT fires in several sessions of the workers, and each worker is
// a generator of its own (a key of its own), so it repeats keys at the
// birthday bound between the workers (none within one worker), and with a
// primary key it can fail on its own keys; through a MATERIALIZED CTE the coordinator makes every key in one
// session, and the statement never repeats a key.
func TestCitusInsertSelectSelfCollision(t *testing.T) {
	t.Parallel()
	c := startCitus(t)
	ctx := t.Context()
	coord := c.Coordinator.Connect(t, "postgres")
	execAll(t, coord,
		createMadeAt,
		`CREATE TABLE src (n int PRIMARY KEY, b text)`,
		`SELECT create_distributed_table('src', 'n')`,
		fmt.Sprintf(`INSERT INTO src SELECT g, 'row ' || g FROM generate_series(1, %d) g`, citusSelfCollisionRows),
		// No unique key: every repeat is counted, with the session behind it.
		`CREATE TABLE made (id bigint NOT NULL DEFAULT huid_generate(), conn text DEFAULT made_at(), b text)`,
		`SELECT create_distributed_table('made', 'id')`,
		`CREATE TABLE keyed (id bigint PRIMARY KEY DEFAULT huid_generate(), b text)`,
		`SELECT create_distributed_table('keyed', 'id')`)
	const runs = 3
	plain := "INSERT INTO %s (b) SELECT b FROM src"
	recipe := "WITH s AS MATERIALIZED (SELECT b FROM src) INSERT INTO %s (b) SELECT b FROM s"

	var total huidRepeats
	for run := range runs {
		start := time.Now()
		execAll(t, coord, "TRUNCATE made", fmt.Sprintf(plain, "made"))
		elapsed := time.Since(start)
		// The repeats are counted on a local copy, as Citus cannot push
		// the nested aggregates down.
		// conn is the worker's port: its sessions share its generator.
		execAll(t, coord, "DROP TABLE IF EXISTS made_local",
			"CREATE TABLE made_local AS SELECT id, split_part(conn, ':', 1) AS conn FROM made")
		r := countHUIDRepeats(t, coord, "made_local")
		var sessions int
		if err := coord.QueryRow(ctx, "SELECT count(DISTINCT conn) FROM made").Scan(&sessions); err != nil {
			t.Fatal(err)
		}
		if sessions < 2 {
			t.Errorf("run %d: the DEFAULT fired in %d session(s), want several", run, sessions)
		}
		t.Logf("plain INSERT ... SELECT, run %d: %d rows in %v, %d sessions, %d keys repeated between workers (birthday expectation %.1f)",
			run, r.rows, elapsed.Round(time.Millisecond), sessions, r.across, r.expected)
		total.rows += r.rows
		total.within += r.within
		total.across += r.across
		total.expected += r.expected
	}
	total.check(t)

	failures := 0
	for run := range runs {
		_, err := coord.Exec(ctx, "TRUNCATE keyed")
		if err == nil {
			_, err = coord.Exec(ctx, fmt.Sprintf(plain, "keyed"))
		}
		switch {
		case pgretry.IsUniqueViolation(err):
			failures++
		case err != nil:
			t.Fatalf("plain INSERT ... SELECT into a primary key, run %d: %v", run, err)
		}
	}
	t.Logf("plain INSERT ... SELECT of %d rows into a primary key: %d of %d runs failed on a key it made itself",
		citusSelfCollisionRows, failures, runs)

	for run := range runs {
		execAll(t, coord, "TRUNCATE keyed", fmt.Sprintf(recipe, "keyed"), "TRUNCATE made", fmt.Sprintf(recipe, "made"))
		var rows, distinct, sessions int
		err := coord.QueryRow(ctx, "SELECT count(*), count(DISTINCT id), count(DISTINCT conn) FROM made").Scan(&rows, &distinct, &sessions)
		if err != nil {
			t.Fatal(err)
		}
		if rows != citusSelfCollisionRows || distinct != rows || sessions != 1 {
			t.Errorf("MATERIALIZED CTE, run %d: %d rows, %d distinct keys, made in %d sessions; want %d, %d, 1",
				run, rows, distinct, sessions, citusSelfCollisionRows, citusSelfCollisionRows)
		}
	}
}

// TestCitusRepeatsBetweenNodes makes keys with the DEFAULTs in one session
// on each node at once: the HUIDs repeat between the nodes at the birthday
// bound and never within one, the SCRU128s never.
func TestCitusRepeatsBetweenNodes(t *testing.T) {
	t.Parallel()
	c := startCitus(t)
	coord := c.Coordinator.Connect(t, "postgres")
	execAll(t, coord,
		`CREATE TABLE rep_huid (id bigint NOT NULL DEFAULT huid_generate(), conn int)`,
		`SELECT create_distributed_table('rep_huid', 'id')`,
		`CREATE TABLE rep_scru128 (id uuid NOT NULL DEFAULT scru128_generate(), conn int)`,
		`SELECT create_distributed_table('rep_scru128', 'id')`)
	var conns []*pgx.Conn
	for _, n := range c.Nodes() {
		conns = append(conns, n.Connect(t, "postgres"))
	}
	const perNode = 150_000
	execOnEach(t, conns, perNode, `INSERT INTO rep_huid (conn) SELECT $1 FROM generate_series(1, $2::int)`)
	execOnEach(t, conns, perNode, `INSERT INTO rep_scru128 (conn) SELECT $1 FROM generate_series(1, $2::int)`)
	execAll(t, coord, "CREATE TABLE rep_local AS SELECT id, conn FROM rep_huid")
	r := countHUIDRepeats(t, coord, "rep_local")
	if r.rows != int64(len(conns)*perNode) {
		t.Fatalf("%d HUIDs, want %d", r.rows, len(conns)*perNode)
	}
	r.check(t)
	var rows, distinct int
	if err := coord.QueryRow(t.Context(), "SELECT count(*), count(DISTINCT id) FROM rep_scru128").Scan(&rows, &distinct); err != nil {
		t.Fatal(err)
	}
	if rows != len(conns)*perNode || distinct != rows {
		t.Errorf("%d SCRU128s, %d distinct; want %d, all distinct", rows, distinct, len(conns)*perNode)
	}
}
