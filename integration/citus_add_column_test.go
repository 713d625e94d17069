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

// addColumnRows is the size of the tables a key column is added to: rows
// on every shard.
const addColumnRows = 1000

// addColumnTables are the kinds of Citus table a key column is added to,
// each with addColumnRows rows keyed by id.
var addColumnTables = []struct{ kind, distribute string }{
	{"dist", "SELECT create_distributed_table('%s', 'id')"},
	{"ref", "SELECT create_reference_table('%s')"},
}

// createAddColumnTable creates the table of kind named table and fills it.
func createAddColumnTable(t *testing.T, coord *pgx.Conn, table, distribute string) {
	t.Helper()
	execAll(t, coord,
		fmt.Sprintf("CREATE TABLE %s (id int PRIMARY KEY, b text)", table),
		fmt.Sprintf(distribute, table),
		fmt.Sprintf("INSERT INTO %s SELECT g, 'old' FROM generate_series(1, %d) g", table, addColumnRows))
}

// placementResult is what a query returned on one placement of a table.
type placementResult struct {
	shard  int64
	port   int
	result string
}

// onPlacements runs placementKeys on every placement of table through
// Citus's run_command_on_placements.
func onPlacements(t *testing.T, coord *pgx.Conn, table string) []placementResult {
	t.Helper()
	query := placementKeys
	rows, err := coord.Query(t.Context(), `
		SELECT shardid, nodeport, success, result
		FROM run_command_on_placements($1::regclass, $2) ORDER BY shardid, nodeport`, table, query)
	if err != nil {
		t.Fatal(err)
	}
	var out []placementResult
	for rows.Next() {
		var p placementResult
		var ok bool
		if err := rows.Scan(&p.shard, &p.port, &ok, &p.result); err != nil {
			t.Fatal(err)
		}
		if !ok {
			t.Fatalf("%s on shard %d at port %d: %s", query, p.shard, p.port, p.result)
		}
		if len(strings.Fields(p.result)) != 3 {
			t.Fatalf("%s on shard %d at port %d: %q, want three fields", query, p.shard, p.port, p.result)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// placementKeys is the query onPlacements runs, %s standing for the
// shard's table: a digest of each key column in id order, then the ports
// of the sessions that made the keys.
const placementKeys = `SELECT md5(string_agg(h::text, ',' ORDER BY id)) || ' ' || md5(string_agg(s::text, ',' ORDER BY id))
	|| ' ' || coalesce(string_agg(DISTINCT split_part(made, ':', 1), ','), '') FROM %s`

// TestCitusAddColumnDefault shows what ALTER TABLE … ADD COLUMN with a
// sortid DEFAULT does to the rows a Citus table already has: each
// placement's rewrite fires the DEFAULT in a session on the placement's own
// node, so a distributed table's keys come from several worker sessions,
// and every placement of a reference table (coordinator and workers) holds
// keys of its own.
func TestCitusAddColumnDefault(t *testing.T) {
	t.Parallel()
	c := startCitus(t)
	coord := c.Coordinator.Connect(t, "postgres")
	execAll(t, coord, createMadeAt)
	for _, tt := range addColumnTables {
		table := "plain_" + tt.kind
		createAddColumnTable(t, coord, table, tt.distribute)
		execAll(t, coord, fmt.Sprintf(`ALTER TABLE %s ADD COLUMN h bigint DEFAULT huid_generate(),
			ADD COLUMN s uuid DEFAULT scru128_generate(), ADD COLUMN made text DEFAULT made_at()`, table))
		placements := onPlacements(t, coord, table)
		for _, p := range placements {
			if ports := strings.Fields(p.result)[2]; ports != strconv.Itoa(p.port) {
				t.Errorf("%s: shard %d on port %d got keys made on ports %s; want its own node's", table, p.shard, p.port, ports)
			}
		}
		var rows, keys, sessions int
		err := coord.QueryRow(t.Context(), fmt.Sprintf("SELECT count(*), count(DISTINCT h), count(DISTINCT made) FROM %s", table)).
			Scan(&rows, &keys, &sessions)
		if err != nil {
			t.Fatal(err)
		}
		switch tt.kind {
		case "dist":
			if sessions < 2 {
				t.Errorf("%s: keys made in %d session(s); want several on the workers", table, sessions)
			}
			t.Logf("%s: %d rows, %d distinct HUIDs, made in %d worker sessions", table, rows, keys, sessions)
		case "ref":
			if len(placements) != len(c.Nodes()) {
				t.Fatalf("%s has %d placements, want one on each of the %d nodes", table, len(placements), len(c.Nodes()))
			}
			for i, p := range placements {
				for _, q := range placements[:i] {
					pf, qf := strings.Fields(p.result), strings.Fields(q.result)
					if pf[0] == qf[0] || pf[1] == qf[1] {
						t.Errorf("%s: the placements on ports %d and %d hold the same HUIDs or SCRU128s; want each node's own", table, p.port, q.port)
					}
				}
			}
		}
	}
}

// addKeyColumnRecipe is docs/SCALE.md's recipe for adding a key column to
// a table that has rows, for a HUID column h and a SCRU128 column s at once;
// made records the session that made each row's keys.
var addKeyColumnRecipe = []string{
	`ALTER TABLE %[1]s ADD COLUMN h bigint, ALTER COLUMN h SET DEFAULT huid_generate(),
		ADD COLUMN s uuid, ALTER COLUMN s SET DEFAULT scru128_generate(), ADD COLUMN made text`,
	`WITH ids AS MATERIALIZED (SELECT id FROM %[1]s WHERE h IS NULL),
	     keys AS MATERIALIZED (SELECT id, huid_generate() AS h, scru128_generate() AS s, made_at() AS made FROM ids)
	 UPDATE %[1]s SET h = keys.h, s = keys.s, made = keys.made FROM keys WHERE %[1]s.id = keys.id`,
	`ALTER TABLE %[1]s ALTER COLUMN h SET NOT NULL, ALTER COLUMN s SET NOT NULL`,
}

// TestCitusAddKeyColumn checks docs/SCALE.md's recipe for adding a key
// column to a Citus table that has rows, sent to the coordinator: Citus
// accepts every step on a distributed and a reference table, the
// coordinator makes every key in the client's session, so the HUIDs and
// SCRU128s are distinct, and every placement of the reference table holds
// the same keys; a row inserted after the first step keeps its DEFAULT
// keys. It also checks the forms the recipe avoids: Citus refuses an UPDATE
// of a reference table FROM a temporary table, and a single CTE calling
// huid_generate() over a distributed table makes the keys on the workers.
func TestCitusAddKeyColumn(t *testing.T) {
	t.Parallel()
	c := startCitus(t)
	coord := c.Coordinator.Connect(t, "postgres")
	execAll(t, coord, createMadeAt)
	coordPort := strconv.Itoa(c.Coordinator.Port)
	for _, tt := range addColumnTables {
		table := "recipe_" + tt.kind
		createAddColumnTable(t, coord, table, tt.distribute)
		execAll(t, coord, fmt.Sprintf(addKeyColumnRecipe[0], table),
			fmt.Sprintf("INSERT INTO %s (id, b) VALUES (%d, 'new')", table, addColumnRows+1))
		execAll(t, coord, fmt.Sprintf(addKeyColumnRecipe[1], table), fmt.Sprintf(addKeyColumnRecipe[2], table))
		var rows, hs, ss, made int
		var sessions []string
		err := coord.QueryRow(t.Context(), fmt.Sprintf(`
			SELECT count(*), count(DISTINCT h), count(DISTINCT s), count(made), array_agg(DISTINCT made) FILTER (WHERE made IS NOT NULL)
			FROM %s`, table)).Scan(&rows, &hs, &ss, &made, &sessions)
		if err != nil {
			t.Fatal(err)
		}
		if want := addColumnRows + 1; rows != want || hs != want || ss != want || made != addColumnRows {
			t.Errorf("%s: %d rows, %d distinct HUIDs, %d distinct SCRU128s, %d made by the UPDATE; want %d, %d, %d, %d",
				table, rows, hs, ss, made, want, want, want, addColumnRows)
		}
		if len(sessions) != 1 || !strings.HasPrefix(sessions[0], coordPort+":") {
			t.Errorf("%s: keys made in sessions %v; want one on the coordinator (port %s)", table, sessions, coordPort)
		}
		placements := onPlacements(t, coord, table)
		if tt.kind == "ref" {
			if len(placements) != len(c.Nodes()) {
				t.Fatalf("%s has %d placements, want one on each of the %d nodes", table, len(placements), len(c.Nodes()))
			}
			for _, p := range placements[1:] {
				if p.result != placements[0].result {
					t.Errorf("%s: the placement on port %d holds %q, the one on port %d %q; want the same keys",
						table, p.port, p.result, placements[0].port, placements[0].result)
				}
			}
		}
	}

	execAll(t, coord, "ALTER TABLE recipe_ref ADD COLUMN h2 bigint",
		"CREATE TEMP TABLE ref_keys AS WITH ids AS MATERIALIZED (SELECT id FROM recipe_ref) SELECT id, huid_generate() AS h FROM ids")
	_, err := coord.Exec(t.Context(), "UPDATE recipe_ref SET h2 = k.h FROM ref_keys k WHERE recipe_ref.id = k.id")
	if sqlState(err) != "XX000" || !strings.Contains(err.Error(), "relation ref_keys is not distributed") {
		t.Errorf("UPDATE of a reference table FROM a temporary table: %v; want XX000 relation ref_keys is not distributed", err)
	}

	execAll(t, coord, "ALTER TABLE recipe_dist ADD COLUMN h2 bigint, ADD COLUMN made2 text",
		`WITH keys AS MATERIALIZED (SELECT id, huid_generate() AS h, made_at() AS made FROM recipe_dist)
		 UPDATE recipe_dist SET h2 = keys.h, made2 = keys.made FROM keys WHERE recipe_dist.id = keys.id`)
	var ports []string
	err = coord.QueryRow(t.Context(), "SELECT array_agg(DISTINCT split_part(made2, ':', 1)) FROM recipe_dist").Scan(&ports)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(ports, coordPort) || !slices.ContainsFunc(c.Workers, func(w *pgcluster.Cluster) bool {
		return slices.Contains(ports, strconv.Itoa(w.Port))
	}) {
		t.Errorf("one CTE over a distributed table: keys made on ports %v; want the workers'", ports)
	}
}
