package integration_test

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sortid/sortid/integration/internal/pgcluster"
)

// startCitus starts a Citus coordinator with two workers for t, with sortid
// installed on the coordinator by migrations.Apply (Citus creates the
// functions and domains on every worker).
func startCitus(t *testing.T) *pgcluster.Citus {
	t.Helper()
	c := pgcluster.NewHost(t).Citus(t, 2)
	pgcluster.Migrate(t, c.Coordinator.URL("postgres"))
	return c
}

// createMadeAt creates made_at(), for a column DEFAULT that records where
// the row's DEFAULTs fired: the server's port and the session's pid.
const createMadeAt = `CREATE FUNCTION made_at() RETURNS text LANGUAGE sql VOLATILE
	RETURN pg_catalog.inet_server_port()::text || ':' || pg_catalog.pg_backend_pid()::text`

// citusDefaultKeys are the key columns whose DEFAULTs the Citus tests fire: each
// a table distributed by its id.
var citusDefaultKeys = []struct{ table, column, check string }{
	{"k_bigint", "id bigint PRIMARY KEY DEFAULT huid_generate()", "huid_timestamp(id)"},
	{"k_huid", "id huid PRIMARY KEY DEFAULT huid_generate()", "huid_timestamp(id)"},
	{"k_uuid", "id uuid PRIMARY KEY DEFAULT scru128_generate()", "scru128_timestamp(id)"},
	{"k_bytes", "id scru128_bytes PRIMARY KEY DEFAULT scru128_generate_bytea()", "scru128_timestamp(id)"},
}

// citusSourceRows is the size of the distributed table the INSERT ...
// SELECT forms read: enough rows for every shard, few enough that HUIDs
// drawn in several sessions do not collide (see
// TestCitusInsertSelectSelfCollision for that).
const citusSourceRows = 32

// citusForm is one way of inserting rows with DEFAULT keys, tagging them
// with tag; rows is how many it inserts.
type citusForm struct {
	name string
	// onWorkers: the DEFAULT fires in the workers' sessions, not in the
	// session of the node the statement is sent to.
	onWorkers bool
	rows      int
	run       func(t *testing.T, conn *pgx.Conn, table, tag string) error
}

func execForm(mode pgx.QueryExecMode, sql string) func(*testing.T, *pgx.Conn, string, string) error {
	return func(t *testing.T, conn *pgx.Conn, table, tag string) error {
		_, err := conn.Exec(t.Context(), fmt.Sprintf(sql, table), mode, tag)
		return err
	}
}

// preparedForm runs sql as a prepared statement 8 times: PostgreSQL plans
// the first 5 executions for their parameters and may use a generic plan,
// in which Citus sees the parameter, after that; plan_cache_mode picks.
func preparedForm(planCacheMode string) func(*testing.T, *pgx.Conn, string, string) error {
	return func(t *testing.T, conn *pgx.Conn, table, tag string) error {
		ctx := t.Context()
		if _, err := conn.Exec(ctx, "SET plan_cache_mode = "+planCacheMode); err != nil {
			return err
		}
		defer func() { _, _ = conn.Exec(ctx, "RESET plan_cache_mode") }()
		for range 8 {
			if _, err := conn.Exec(ctx, fmt.Sprintf("INSERT INTO %s (b) VALUES ($1)", table), pgx.QueryExecModeCacheStatement, tag); err != nil {
				return err
			}
		}
		return nil
	}
}

var citusForms = []citusForm{
	{"VALUES", false, 1, execForm(pgx.QueryExecModeSimpleProtocol, "INSERT INTO %s (b) VALUES ($1)")},
	{"multi-row VALUES", false, 3, execForm(pgx.QueryExecModeSimpleProtocol, "INSERT INTO %s (b) VALUES ($1), ($1), ($1)")},
	{"VALUES, extended protocol", false, 1, execForm(pgx.QueryExecModeExec, "INSERT INTO %s (b) VALUES ($1)")},
	{"prepared, custom plans", false, 8, preparedForm("force_custom_plan")},
	{"prepared, generic plan", false, 8, preparedForm("force_generic_plan")},
	{"INSERT ... SELECT from a series", false, 100,
		execForm(pgx.QueryExecModeSimpleProtocol, "INSERT INTO %s (b) SELECT $1 FROM generate_series(1, 100)")},
	{"INSERT ... SELECT from a distributed table", true, citusSourceRows,
		execForm(pgx.QueryExecModeSimpleProtocol, "INSERT INTO %s (b) SELECT $1 FROM src")},
	{"INSERT ... SELECT from a distributed table through a MATERIALIZED CTE", false, citusSourceRows,
		execForm(pgx.QueryExecModeSimpleProtocol, "WITH s AS MATERIALIZED (SELECT $1::text AS b FROM src) INSERT INTO %s (b) SELECT b FROM s")},
	{"COPY", false, 100, func(t *testing.T, conn *pgx.Conn, table, tag string) error {
		rows := make([][]any, 100)
		for i := range rows {
			rows[i] = []any{tag}
		}
		_, err := conn.CopyFrom(t.Context(), pgx.Identifier{table}, []string{"b"}, pgx.CopyFromRows(rows))
		return err
	}},
}

// TestCitusInsertForms checks that every insert form docs/SCALE.md names
// works on Citus with DEFAULT keys of every kind, sent to the coordinator
// and to a worker, and where the DEFAULT fires: in the session of the node
// the statement is sent to, except for INSERT ... SELECT from a distributed
// table, whose DEFAULT fires in the workers' sessions, several of them. A
// column DEFAULT made_at() records the server's port and the session's pid
// beside each key.
func TestCitusInsertForms(t *testing.T) {
	t.Parallel()
	c := startCitus(t)
	coord := c.Coordinator.Connect(t, "postgres")
	execAll(t, coord,
		createMadeAt,
		`CREATE TABLE src (n int PRIMARY KEY)`,
		`SELECT create_distributed_table('src', 'n')`,
		fmt.Sprintf(`INSERT INTO src SELECT generate_series(1, %d)`, citusSourceRows))
	for _, k := range citusDefaultKeys {
		execAll(t, coord,
			fmt.Sprintf(`CREATE TABLE %s (%s, b text, made text DEFAULT made_at())`, k.table, k.column),
			fmt.Sprintf(`SELECT create_distributed_table('%s', 'id')`, k.table))
	}
	var workerPorts []string
	for _, w := range c.Workers {
		workerPorts = append(workerPorts, strconv.Itoa(w.Port))
	}
	for _, node := range []*pgcluster.Cluster{c.Coordinator, c.Workers[0]} {
		conn := node.Connect(t, "postgres")
		var start string
		if err := conn.QueryRow(t.Context(), "SELECT clock_timestamp()::text").Scan(&start); err != nil {
			t.Fatal(err)
		}
		for _, k := range citusDefaultKeys {
			for _, f := range citusForms {
				tag := node.Name + ": " + f.name
				if err := f.run(t, conn, k.table, tag); err != nil {
					t.Errorf("%s into %s (%s): %v", tag, k.table, k.column, err)
					continue
				}
				var n, valid int
				var ports, sessions []string
				err := coord.QueryRow(t.Context(), fmt.Sprintf(`
					SELECT count(*), count(*) FILTER (WHERE %s BETWEEN $2::timestamptz - interval '1 second' AND clock_timestamp() + interval '1 second'),
					       array_agg(DISTINCT split_part(made, ':', 1)), array_agg(DISTINCT made)
					FROM %s WHERE b = $1`, k.check, k.table), tag, start).Scan(&n, &valid, &ports, &sessions)
				if err != nil {
					t.Fatal(err)
				}
				if n != f.rows || valid != n {
					t.Errorf("%s into %s: %d rows, %d with a key of now; want %d", tag, k.table, n, valid, f.rows)
				}
				if f.onWorkers {
					if len(sessions) < 2 || slices.ContainsFunc(ports, func(p string) bool { return !slices.Contains(workerPorts, p) }) {
						t.Errorf("%s into %s: DEFAULT fired on ports %v in %d sessions, want several sessions on the workers %v",
							tag, k.table, ports, len(sessions), workerPorts)
					}
				} else if len(sessions) != 1 || ports[0] != strconv.Itoa(node.Port) {
					t.Errorf("%s into %s: DEFAULT fired on ports %v in %d sessions, want one session on %s (%d)",
						tag, k.table, ports, len(sessions), node.Name, node.Port)
				}
				if k.table == "k_bigint" {
					t.Logf("%s: DEFAULT fired on ports %s in %d sessions", tag, strings.Join(ports, ", "), len(sessions))
				}
			}
		}
	}
}

// TestCitusRetention checks that the retention statements docs/SCALE.md
// shows run on distributed tables with now()-based and parameter bounds,
// sent to the coordinator and to a worker, and remove or change exactly the
// rows older than the bound. Citus refuses a CASE around a non-immutable
// function in such a WHERE; the bounds hold none.
func TestCitusRetention(t *testing.T) {
	t.Parallel()
	c := startCitus(t)
	coord := c.Coordinator.Connect(t, "postgres")
	// Each table's key column, and the key of a row 40 days old.
	tables := map[string]struct{ column, old string }{
		"r_bigint": {"id bigint PRIMARY KEY DEFAULT huid_generate()", "huid_generate_at(now() - interval '40 days')"},
		"r_uuid":   {"id uuid PRIMARY KEY DEFAULT scru128_generate()", "scru128_generate_at(now() - interval '40 days')"},
		"r_bytes":  {"id scru128_bytes PRIMARY KEY DEFAULT scru128_generate_bytea()", "scru128_generate_at_bytea(now() - interval '40 days')"},
	}
	for table, tt := range tables {
		execAll(t, coord,
			fmt.Sprintf(`CREATE TABLE %s (%s, b text)`, table, tt.column),
			fmt.Sprintf(`SELECT create_distributed_table('%s', 'id')`, table))
	}
	statements := []struct {
		table, sql string
		args       []any
	}{
		{"r_bigint", "DELETE FROM r_bigint WHERE id < huid_min(now() - interval '30 days')", nil},
		{"r_bigint", "DELETE FROM r_bigint WHERE id < huid_min($1::timestamptz - interval '30 days')", []any{"now"}},
		{"r_bigint", "DELETE FROM r_bigint WHERE huid_timestamp(id) < now() - interval '30 days'", nil},
		{"r_bigint", "UPDATE r_bigint SET b = 'updated' WHERE id < huid_max(now() - interval '30 days')", nil},
		{"r_uuid", "DELETE FROM r_uuid WHERE id < scru128_min(now() - interval '30 days')", nil},
		{"r_uuid", "DELETE FROM r_uuid WHERE id < scru128_min($1::timestamptz - interval '30 days')", []any{"now"}},
		{"r_uuid", "UPDATE r_uuid SET b = 'updated' WHERE id <= scru128_max(now() - interval '30 days')", nil},
		{"r_bytes", "DELETE FROM r_bytes WHERE id < scru128_min_bytea(now() - interval '30 days')", nil},
		{"r_bytes", "DELETE FROM r_bytes WHERE scru128_timestamp(id) < now() - interval '30 days'", nil},
	}
	const oldRows, newRows = 10, 10
	for _, node := range []*pgcluster.Cluster{c.Coordinator, c.Workers[0]} {
		conn := node.Connect(t, "postgres")
		for _, planCacheMode := range []string{"force_custom_plan", "force_generic_plan"} {
			execAll(t, conn, "SET plan_cache_mode = "+planCacheMode)
			for _, st := range statements {
				execAll(t, coord,
					"TRUNCATE "+st.table,
					fmt.Sprintf("INSERT INTO %s (id, b) SELECT %s, 'old' FROM generate_series(1, %d)", st.table, tables[st.table].old, oldRows),
					fmt.Sprintf("INSERT INTO %s (b) SELECT 'new' FROM generate_series(1, %d)", st.table, newRows))
				// The DELETEs remove the old rows, the UPDATEs mark them
				// 'updated'.
				tag, err := conn.Exec(t.Context(), st.sql, st.args...)
				if err != nil {
					t.Errorf("%s, %s: %s: %v", node.Name, planCacheMode, st.sql, err)
					continue
				}
				var rows, marked int
				q := fmt.Sprintf("SELECT count(*), count(*) FILTER (WHERE b = 'updated') FROM %s", st.table)
				if err := coord.QueryRow(t.Context(), q).Scan(&rows, &marked); err != nil {
					t.Fatal(err)
				}
				wantRows, wantMarked := newRows, 0
				if strings.HasPrefix(st.sql, "UPDATE") {
					wantRows, wantMarked = oldRows+newRows, oldRows
				}
				if tag.RowsAffected() != oldRows || rows != wantRows || marked != wantMarked {
					t.Errorf("%s, %s: %s: %d rows affected, %d left of which %d old; want %d, %d, %d",
						node.Name, planCacheMode, st.sql, tag.RowsAffected(), rows, marked, oldRows, wantRows, wantMarked)
				}
			}
		}
	}
}

// TestCitusInputErrors checks that bad input still raises the function's
// own error, naming the input, on Citus, which evaluates the parts of a
// distributed statement on the coordinator one by one: in VALUES, in a
// DELETE's bound, and through a generic plan's parameter.
func TestCitusInputErrors(t *testing.T) {
	t.Parallel()
	c := startCitus(t)
	coord := c.Coordinator.Connect(t, "postgres")
	execAll(t, coord,
		`CREATE TABLE e_bigint (id bigint PRIMARY KEY DEFAULT huid_generate(), b text)`,
		`SELECT create_distributed_table('e_bigint', 'id')`,
		`CREATE TABLE e_bytes (id scru128_bytes PRIMARY KEY DEFAULT scru128_generate_bytea(), b text)`,
		`SELECT create_distributed_table('e_bytes', 'id')`)
	tests := []struct {
		sql        string
		args       []any
		code, text string
	}{
		{"INSERT INTO e_bigint (id) VALUES (huid_generate_at('2025-06-01 00:00:00+00'))", nil,
			"22008", "huid_generate_at: 2025-06-01 00:00:00+00 is outside the HUID window"},
		{"INSERT INTO e_bigint (id) VALUES (huid_generate_at(now() - interval '2 years'))", nil,
			"22008", "huid_generate_at: 2024-"},
		{"INSERT INTO e_bigint (id) VALUES (huid_generate_at($1))", []any{"2025-06-01 00:00:00+00"},
			"22008", "huid_generate_at: 2025-06-01 00:00:00+00 is outside the HUID window"},
		{"INSERT INTO e_bigint (id) VALUES (huid_max($1))", []any{"2025-06-01 00:00:00+00"},
			"22008", "huid_max: 2025-06-01 00:00:00+00 is outside the HUID window"},
		{"INSERT INTO e_bigint (id) VALUES (huid_timestamp($1)::date - '2026-01-01')", []any{-1},
			"22003", "huid_timestamp: -1 is not a valid HUID (negative)"},
		{"DELETE FROM e_bigint WHERE id < huid_min(now() - interval '2 years')", nil,
			"22008", "huid_min: 2024-"},
		{"DELETE FROM e_bytes WHERE id < scru128_min_bytea($1)", []any{"2019-06-01 00:00:00+00"},
			"22008", "scru128_min: 2019-06-01 00:00:00+00 is outside the SCRU128 range"},
		{"INSERT INTO e_bytes (id) VALUES (scru128_from_text_bytea($1))", []any{"zz"},
			"22P02", "scru128_from_text: invalid SCRU128 text 'zz'"},
		{"INSERT INTO e_bytes (id, b) VALUES (scru128_generate_bytea(), scru128_to_text($1::bytea))", []any{[]byte{1}},
			"22023", "scru128_to_text: bytea of length 1 is not a SCRU128 ID"},
		// Citus's own rule, which docs/SCALE.md quotes.
		{"UPDATE e_bigint SET b = huid_generate()::text", nil,
			"0A000", "functions used in UPDATE queries on distributed tables must not be VOLATILE"},
	}
	// The same statements with good input succeed: a raising branch
	// evaluated on its own would fail them.
	good := []struct {
		sql  string
		args []any
	}{
		{"INSERT INTO e_bigint (id) VALUES (huid_generate_at($1))", []any{"2026-06-01 00:00:00+00"}},
		{"INSERT INTO e_bigint (id) VALUES (huid_max($1))", []any{"2026-06-01 00:00:00+00"}},
		{"INSERT INTO e_bigint (id) VALUES (huid_timestamp($1)::date - '2026-01-01')", []any{1 << 50}},
		{"DELETE FROM e_bytes WHERE id < scru128_min_bytea($1)", []any{"2026-06-01 00:00:00+00"}},
		{"INSERT INTO e_bytes (id) VALUES (scru128_from_text_bytea($1))", []any{"00PP2Q3JHOU5BOG3RB2PN3AFH8"}},
		{"INSERT INTO e_bytes (id, b) VALUES (scru128_generate_bytea(), scru128_to_text($1::bytea))", []any{make([]byte, 16)}},
	}
	execAll(t, coord, "SET TimeZone = 'UTC'")
	for _, planCacheMode := range []string{"force_custom_plan", "force_generic_plan"} {
		execAll(t, coord, "SET plan_cache_mode = "+planCacheMode, "TRUNCATE e_bigint, e_bytes")
		for _, tt := range good {
			if _, err := coord.Exec(t.Context(), tt.sql, tt.args...); err != nil {
				t.Errorf("%s: %s %v: %v", planCacheMode, tt.sql, tt.args, err)
			}
		}
		for _, tt := range tests {
			_, err := coord.Exec(t.Context(), tt.sql, tt.args...)
			var msg string
			if err != nil {
				msg = err.Error()
			}
			if sqlState(err) != tt.code || !strings.Contains(msg, tt.text) {
				t.Errorf("%s: %s %v: got %v, want SQLSTATE %s with %q", planCacheMode, tt.sql, tt.args, err, tt.code, tt.text)
			}
		}
	}
}
