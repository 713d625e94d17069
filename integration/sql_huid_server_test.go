package integration_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sortid/sortid/integration/internal/pgcluster"
	"github.com/sortid/sortid/integration/internal/pgtest"
	"github.com/sortid/sortid/migrations"
)

// TestSQLHUIDServerSessionsNeverCollide: 6 sessions insert 150 000 rows each
// at once with DEFAULT huid_generate(), some of them started with a preset
// sortid.huid_key (which the server's generator does not read): no key
// repeats, where 6 independent generators would give the birthday
// expectation of duplicates logged.
func TestSQLHUIDServerSessionsNeverCollide(t *testing.T) {
	t.Parallel()
	const conns, perConn = 6, 150_000
	setup := pgtest.Conn(t)
	execAll(t, setup, `CREATE TABLE sql_huid_server (id bigint NOT NULL DEFAULT huid_generate(), conn int NOT NULL)`)
	cs := make([]*pgx.Conn, conns)
	for c := range cs {
		if c%2 == 0 {
			cs[c] = connectWith(t, pgtest.URL(t), "sortid.huid_key", "42")
		} else {
			cs[c] = pgtest.Conn(t)
		}
	}
	execOnEach(t, cs, perConn, `INSERT INTO sql_huid_server (conn) SELECT $1 FROM generate_series(1, $2::int)`)
	r := countHUIDRepeats(t, setup, "sql_huid_server")
	if r.rows != conns*perConn {
		t.Fatalf("%d rows, want %d", r.rows, conns*perConn)
	}
	if r.within != 0 || r.across != 0 {
		t.Errorf("%d repeats within sessions and %d duplicate pairs between them; want 0 and 0", r.within, r.across)
	}
	t.Logf("%d rows, 0 duplicates; independent session generators: birthday expectation %.1f", r.rows, r.expected)
}

// TestSQLHUIDReadOnlySessionsAtBirthdayBound: in read-only transactions
// huid_generate() is one generator per session, so 4 sessions making 200 000
// keys each at once repeat at the birthday bound, never within a session,
// also when every session starts with the same preset sortid.huid_key
// (issue: a preset key made two sessions share 70 % of their keys).
func TestSQLHUIDReadOnlySessionsAtBirthdayBound(t *testing.T) {
	t.Parallel()
	const conns, perConn = 4, 200_000
	for _, preset := range []string{"", "42"} {
		t.Run("preset key "+preset, func(t *testing.T) {
			t.Parallel()
			table := "sql_huid_readonly_" + map[string]string{"": "drawn", "42": "preset"}[preset]
			setup := pgtest.Conn(t)
			execAll(t, setup, fmt.Sprintf(`CREATE TABLE %s (id bigint NOT NULL, conn int NOT NULL)`, table))
			made := make([][]int64, conns)
			errs := make([]error, conns)
			cs := make([]*pgx.Conn, conns)
			for c := range cs {
				if preset != "" {
					cs[c] = connectWith(t, pgtest.URL(t), "sortid.huid_key", preset)
				} else {
					cs[c] = pgtest.Conn(t)
				}
			}
			var wg sync.WaitGroup
			for c, conn := range cs {
				wg.Go(func() { made[c], errs[c] = readOnlyHUIDs(t.Context(), conn, perConn) })
			}
			wg.Wait()
			for c := range cs {
				if errs[c] != nil {
					t.Fatalf("session %d: %v", c, errs[c])
				}
				rows := make([][]any, len(made[c]))
				for i, id := range made[c] {
					rows[i] = []any{id, c}
				}
				if _, err := setup.CopyFrom(t.Context(), pgx.Identifier{table}, []string{"id", "conn"}, pgx.CopyFromRows(rows)); err != nil {
					t.Fatal(err)
				}
			}
			countHUIDRepeats(t, setup, table).check(t)
		})
	}
}

// readOnlyHUIDs makes n HUIDs in one read-only transaction of conn.
func readOnlyHUIDs(ctx context.Context, conn *pgx.Conn, n int) ([]int64, error) {
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(ctx)
	rows, err := tx.Query(ctx, `SELECT huid_generate() FROM generate_series(1, $1::int) g ORDER BY g`, n)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int64])
}

// connectWith connects to url with one run-time parameter set at connection
// start, as PGOPTIONS='-c key=value' does.
func connectWith(t *testing.T, url, key, value string) *pgx.Conn {
	t.Helper()
	withParam, err := pgtest.WithParam(url, key, value)
	if err != nil {
		t.Fatal(err)
	}
	return pgcluster.Connect(t, withParam)
}

// TestSQLHUIDServerKeysSurviveSessionEvents: one install's keys stay
// distinct across what resets or reverts session state: a rolled-back
// transaction and savepoint (also when the session's own state was set ahead
// of the clock, where the per-session generator used to hand a key out
// again), DISCARD ALL, RESET ALL and a new connection.
func TestSQLHUIDServerKeysSurviveSessionEvents(t *testing.T) {
	t.Parallel()
	conn := pgtest.Conn(t)
	var keys []int64
	collect := func(sql string) { // simple protocol: DISCARD ALL drops prepared statements
		t.Helper()
		keys = append(keys, queryInt64sOn(t, conn, sql, pgx.QueryExecModeSimpleProtocol)...)
	}
	for range 3 {
		execAll(t, conn, `SELECT set_config('sortid.huid_state', ((huid_generate() >> 21) + 5000 << 21)::text, false)`)
		execAll(t, conn, "BEGIN")
		collect(`SELECT huid_generate() FROM generate_series(1, 1000)`)
		execAll(t, conn, "ROLLBACK")
		collect(`SELECT huid_generate() FROM generate_series(1, 1000)`)
		execAll(t, conn, "BEGIN", "SAVEPOINT s")
		collect(`SELECT huid_generate() FROM generate_series(1, 1000)`)
		execAll(t, conn, "ROLLBACK TO SAVEPOINT s", "COMMIT")
		execAll(t, conn, "DISCARD ALL")
		collect(`SELECT huid_generate() FROM generate_series(1, 1000)`)
		execAll(t, conn, "RESET ALL")
		collect(`SELECT huid_generate() FROM generate_series(1, 1000)`)
		conn = pgtest.Conn(t)
		collect(`SELECT huid_generate() FROM generate_series(1, 1000)`)
	}
	checkDistinct(t, "keys across rollbacks, DISCARD ALL, RESET ALL and reconnects", keys)
}

// checkDistinct fails t if keys holds a value twice.
func checkDistinct(t *testing.T, what string, keys []int64) {
	t.Helper()
	seen := make(map[int64]int, len(keys))
	for i, k := range keys {
		if j, ok := seen[k]; ok {
			t.Fatalf("%s: key %d is number %d and %d of %d", what, k, j, i, len(keys))
		}
		seen[k] = i
	}
}

// TestSQLHUIDServerCounterRule shows the rule's boundary with a counter moved
// by setval in an install of its own: within one millisecond, counters
// 2^21 - 1 apart give distinct keys, and only counters 2^21 apart (two
// million keys drawn in no clock time) give the same key again.
func TestSQLHUIDServerCounterRule(t *testing.T) {
	t.Parallel()
	conn := schemaInstall(t, "huid_counter_rule")
	for _, tc := range []struct {
		jump int64
		same bool
	}{{1<<21 - 1, false}, {1 << 21, true}} {
		var a, b int64
		for {
			err := conn.QueryRow(t.Context(), `SELECT huid_generate(),
				setval('sortid_huid_counter', currval('sortid_huid_counter') + $1::bigint - 1), huid_generate()`, tc.jump).
				Scan(&a, nil, &b)
			if err != nil {
				t.Fatal(err)
			}
			if a>>21 == b>>21 {
				break
			}
		}
		if (a == b) != tc.same {
			t.Errorf("counters %d apart in one millisecond: keys %d and %d; want equal = %v", tc.jump, a, b, tc.same)
		}
	}
}

// TestSQLHUIDServerCounterSettings: the counter is installed with CACHE 1,
// INCREMENT BY 1 and NO CYCLE, and with them two sessions alternating in the
// same milliseconds, one of them 2^21 ahead, never meet. A counter altered to
// a setting that would let sessions use counters 2^21 apart in one
// millisecond (a cached block, a step of 2^21, a cycle) makes huid_generate()
// raise 55000 naming the setting, with the ALTER SEQUENCE that restores it as
// the hint; after that ALTER it makes distinct keys again.
func TestSQLHUIDServerCounterSettings(t *testing.T) {
	t.Parallel()
	a := schemaInstall(t, "huid_counter_settings")
	var cache, increment int64
	var cycle bool
	if err := a.QueryRow(t.Context(), `SELECT cache_size, increment_by, cycle FROM pg_sequences
		WHERE schemaname = current_schema() AND sequencename = 'sortid_huid_counter'`).Scan(&cache, &increment, &cycle); err != nil {
		t.Fatal(err)
	}
	if cache != 1 || increment != 1 || cycle {
		t.Fatalf("sortid_huid_counter: CACHE %d, INCREMENT BY %d, CYCLE %v; want CACHE 1, INCREMENT BY 1, NO CYCLE", cache, increment, cycle)
	}
	b := connectWith(t, pgtest.URL(t), "search_path", "huid_counter_settings")
	if got := alternateAfterJump(t, a, b, 200); got != 0 {
		t.Errorf("CACHE 1: %d keys made by both sessions; want 0", got)
	}
	for _, alter := range []string{"CACHE 20", "INCREMENT BY 2097152", "CYCLE", "MAXVALUE 9223372036854775806 CACHE 2"} {
		execAll(t, a, "ALTER SEQUENCE sortid_huid_counter "+alter)
		_, err := a.Exec(t.Context(), `SELECT huid_generate()`)
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "55000" || !strings.Contains(pgErr.Message, "sortid_huid_counter") ||
			pgErr.Hint != "ALTER SEQUENCE sortid_huid_counter CACHE 1 INCREMENT BY 1 NO CYCLE" {
			t.Fatalf("huid_generate() after ALTER SEQUENCE sortid_huid_counter %s: %v; want 55000 naming the counter, hinting the ALTER that restores it", alter, err)
		}
		execAll(t, a, pgErr.Hint)
		if got := alternateAfterJump(t, a, b, 50); got != 0 {
			t.Errorf("after %s and %q: %d keys made by both sessions; want 0", alter, pgErr.Hint, got)
		}
	}
}

// TestSQLHUIDServerCounterMovedBack: what "reset all sequences" scripts,
// a restore of the schema without its data and setval do to the counter
// only moves it. huid_generate() keeps using the server's generator (its
// key is the counter's START, which they leave alone), and keys made before
// and after are distinct, as a counter repeats keys only within one
// millisecond.
func TestSQLHUIDServerCounterMovedBack(t *testing.T) {
	t.Parallel()
	conn := schemaInstall(t, "huid_counter_moved")
	key := func() int64 {
		var k int64
		if err := conn.QueryRow(t.Context(), `SELECT start_value FROM pg_sequences
			WHERE schemaname = current_schema() AND sequencename = 'sortid_huid_counter'`).Scan(&k); err != nil {
			t.Fatal(err)
		}
		return k
	}
	before := key()
	keys := queryInt64sOn(t, conn, `SELECT huid_generate() FROM generate_series(1, 20000)`)
	for _, move := range []struct {
		sql   string
		drawn int64
	}{
		{"ALTER SEQUENCE sortid_huid_counter RESTART", before},
		{"ALTER SEQUENCE sortid_huid_counter RESTART WITH 0", 0},
		{"SELECT setval('sortid_huid_counter', 1, false)", 1},
	} {
		execAll(t, conn, move.sql)
		var k, counter int64
		if err := conn.QueryRow(t.Context(), `SELECT huid_generate(), currval('sortid_huid_counter')`).Scan(&k, &counter); err != nil {
			t.Fatalf("after %s: %v", move.sql, err)
		}
		if counter != move.drawn {
			t.Errorf("after %s huid_generate() drew counter %d, want %d: it did not use the server's generator", move.sql, counter, move.drawn)
		}
		keys = append(keys, k)
		keys = append(keys, queryInt64sOn(t, conn, `SELECT huid_generate() FROM generate_series(1, 20000)`)...)
		if got := key(); got != before {
			t.Errorf("after %s the key is %d, was %d", move.sql, got, before)
		}
	}
	checkDistinct(t, "keys around counter moves", keys)
}

// alternateAfterJump lets a draw one key, sets the counter from b 2^21
// past the value a drew, then has a and b draw rounds keys each, in turn,
// and returns how many keys both made.
func alternateAfterJump(t *testing.T, a, b *pgx.Conn, rounds int) int {
	t.Helper()
	ctx := t.Context()
	var drawn int64
	if err := a.QueryRow(ctx, `SELECT huid_generate(), currval('sortid_huid_counter')`).Scan(nil, &drawn); err != nil {
		t.Fatal(err)
	}
	execAll(t, b, fmt.Sprintf(`SELECT setval('sortid_huid_counter', %d)`, drawn+1<<21))
	made := map[int64]int{}
	both := 0
	for range rounds {
		for i, c := range []*pgx.Conn{a, b} {
			var k int64
			if err := c.QueryRow(ctx, `SELECT huid_generate()`).Scan(&k); err != nil {
				t.Fatal(err)
			}
			if j, ok := made[k]; ok && j != i {
				both++
			}
			made[k] = i
		}
	}
	return both
}

// schemaInstall installs sortid in a new schema of the run database and
// returns a connection whose search_path is that schema.
func schemaInstall(t *testing.T, schema string) *pgx.Conn {
	t.Helper()
	execAll(t, pgtest.Conn(t), "CREATE SCHEMA "+schema)
	if err := migrations.Apply(t.Context(), sessionWithPath(t, pgtest.URL(t), "", schema)); err != nil {
		t.Fatalf("install in %s: %v", schema, err)
	}
	return connectWith(t, pgtest.URL(t), "search_path", schema)
}

// TestSQLHUIDServerAfterRestart: keys made before and after a clean restart
// and a crash (immediate stop) of a server of the test's own are distinct,
// and the counter never goes back.
func TestSQLHUIDServerAfterRestart(t *testing.T) {
	t.Parallel()
	host := pgcluster.NewHost(t)
	primary := host.Primary(t, "restart")
	url := primary.URL("postgres")
	pgcluster.Migrate(t, url)
	var keys []int64
	var last int64
	for _, mode := range []string{"fast", "immediate", ""} {
		conn := pgcluster.Connect(t, url)
		keys = append(keys, queryInt64sOn(t, conn, `SELECT huid_generate() FROM generate_series(1, 5000)`)...)
		var counter int64
		if err := conn.QueryRow(t.Context(), `SELECT currval('sortid_huid_counter')`).Scan(&counter); err != nil {
			t.Fatal(err)
		}
		if counter <= last {
			t.Errorf("counter %d after a %s restart, not past %d", counter, mode, last)
		}
		last = counter
		conn.Close(t.Context())
		if mode != "" {
			primary.Stop(t, mode)
			primary.Start(t)
		}
	}
	checkDistinct(t, "keys across restarts", keys)
}

// TestSQLHUIDServerPrivileges: a role without USAGE on the counter gets
// 42501 naming it (also with SELECT alone), and with USAGE makes keys.
func TestSQLHUIDServerPrivileges(t *testing.T) {
	t.Parallel()
	role := createRole(t)
	admin := pgtest.Conn(t)
	t.Cleanup(func() { _, _ = admin.Exec(context.Background(), "DROP OWNED BY "+role) })
	conn := pgtest.Conn(t)
	execAll(t, conn, "SET ROLE "+role)
	for _, step := range []struct {
		grant string
		ok    bool
	}{
		{"", false},
		{"GRANT SELECT ON SEQUENCE sortid_huid_counter TO " + role, false},
		{"GRANT USAGE ON SEQUENCE sortid_huid_counter TO " + role, true},
	} {
		if step.grant != "" {
			execAll(t, admin, step.grant)
		}
		_, err := conn.Exec(t.Context(), `SELECT huid_generate()`)
		if step.ok && err != nil {
			t.Fatalf("after %q: %v", step.grant, err)
		}
		if !step.ok && (sqlState(err) != "42501" || !strings.Contains(err.Error(), "sortid_huid_counter")) {
			t.Errorf("huid_generate() after %q: %v; want 42501 naming sortid_huid_counter", step.grant, err)
		}
	}
}
