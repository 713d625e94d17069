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

// citusKeys are the key columns whose DEFAULTs the Citus tests fire: each
// a table distributed by its id.
var citusKeys = []struct{ table, column, check string }{
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
		`CREATE FUNCTION made_at() RETURNS text LANGUAGE sql VOLATILE
			RETURN pg_catalog.inet_server_port()::text || ':' || pg_catalog.pg_backend_pid()::text`,
		`CREATE TABLE src (n int PRIMARY KEY)`,
		`SELECT create_distributed_table('src', 'n')`,
		fmt.Sprintf(`INSERT INTO src SELECT generate_series(1, %d)`, citusSourceRows))
	for _, k := range citusKeys {
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
		for _, k := range citusKeys {
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
