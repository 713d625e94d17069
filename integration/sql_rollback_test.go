package integration_test

import (
	"testing"

	"github.com/sortid/sortid/integration/internal/pgtest"
)

// TestSQLHUIDSessionNoRepeatAfterRollback: the per-session generator that
// huid_generate() falls back to in read-only transactions does not hand out
// HUIDs drawn in a rolled-back subtransaction again in the draws that follow
// in the same millisecond, although the rollback restores its session state;
// the test checks that it did.
func TestSQLHUIDSessionNoRepeatAfterRollback(t *testing.T) {
	t.Parallel()
	conn := pgtest.Conn(t)
	ctx := t.Context()
	// Variables keep their values across the rollback; settings do not.
	_, err := conn.Exec(ctx, `
		CREATE FUNCTION pg_temp.huid_rollback_draws(rounds int, per int,
		  OUT rolled_back bigint[], OUT after bigint[], OUT state_restored bool)
		RETURNS SETOF record LANGUAGE plpgsql AS $$
		DECLARE before text;
		BEGIN
		  PERFORM sortid_huid_session();
		  FOR i IN 1..rounds LOOP
		    before := current_setting('sortid.huid_state');
		    rolled_back := '{}';
		    BEGIN
		      FOR j IN 1..per LOOP rolled_back := rolled_back || sortid_huid_session(); END LOOP;
		      RAISE EXCEPTION 'roll back';
		    EXCEPTION WHEN raise_exception THEN
		      state_restored := current_setting('sortid.huid_state') = before;
		    END;
		    after := '{}';
		    FOR j IN 1..per LOOP after := after || sortid_huid_session(); END LOOP;
		    RETURN NEXT;
		  END LOOP;
		END
		$$`)
	if err != nil {
		t.Fatalf("create function: %v", err)
	}
	rows, err := conn.Query(ctx, `SELECT rolled_back, after, state_restored FROM pg_temp.huid_rollback_draws(200, 20)`)
	if err != nil {
		t.Fatalf("query: %v", err)
	}
	defer rows.Close()
	seen := map[int64]bool{}
	rounds, sharedMs := 0, 0
	for rows.Next() {
		var rolledBack, after []int64
		var restored bool
		if err := rows.Scan(&rolledBack, &after, &restored); err != nil {
			t.Fatal(err)
		}
		if !restored {
			t.Fatalf("round %d: the rollback did not restore sortid.huid_state; the test no longer tests a rollback", rounds)
		}
		msOfRolledBack := map[int64]bool{}
		for _, v := range rolledBack {
			msOfRolledBack[v>>huidTailBits] = true
		}
		if msOfRolledBack[after[0]>>huidTailBits] {
			sharedMs++
		}
		for _, v := range append(rolledBack, after...) {
			if seen[v] {
				t.Fatalf("round %d: %d handed out twice (before and after a rollback)", rounds, v)
			}
			seen[v] = true
		}
		rounds++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if rounds != 200 || sharedMs < 20 {
		t.Fatalf("%d rounds, %d with a draw after the rollback in a rolled-back millisecond; want 200 and at least 20", rounds, sharedMs)
	}
	t.Logf("%d of %d rounds drew after the rollback in a rolled-back millisecond; no value repeated", sharedMs, rounds)
}

// TestSQLHUIDSessionKey: the per-session generator's key is drawn on the first call and
// kept; a rollback of the transaction that drew it discards it, and the next
// call draws a new one.
func TestSQLHUIDSessionKey(t *testing.T) {
	t.Parallel()
	checkSessionKey(t, `SELECT current_setting('sortid.huid_key', true)`, "SELECT sortid_huid_session()",
		[2]string{"SELECT sortid_huid_session() FROM generate_series(1, 1000)", "SELECT sortid_huid_session() FROM generate_series(1, 1000)"},
		func(k string) bool { return k != "" })
}

// checkSessionKey checks a generator's session key, read by keyQuery: the
// call draws it inside a transaction whose rollback discards it; the first
// of later draws a new one, valid, which the second keeps.
func checkSessionKey(t *testing.T, keyQuery, call string, later [2]string, valid func(string) bool) {
	t.Helper()
	conn := pgtest.Conn(t)
	ctx := t.Context()
	key := func() string {
		t.Helper()
		var k string
		if err := conn.QueryRow(ctx, keyQuery).Scan(&k); err != nil {
			t.Fatal(err)
		}
		return k
	}
	exec := func(sql string) {
		t.Helper()
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	exec("BEGIN")
	exec(call)
	first := key()
	exec("ROLLBACK")
	if k := key(); k != "" {
		t.Fatalf("key %q survived the rollback of the transaction that drew it", k)
	}
	exec(later[0])
	second := key()
	exec(later[1])
	if !valid(first) || !valid(second) || first == second || key() != second {
		t.Fatalf("keys %q, then %q, then %q: want a new key after the rollback, then the same", first, second, key())
	}
}

// TestSQLHUIDSessionClockBehindState: when the clock is behind the session's
// last position (it stepped back), the per-session generator keeps counting
// in the session's last millisecond, so values stay ascending and unique; the
// server's generator ignores that state and takes the clock's millisecond.
func TestSQLHUIDSessionClockBehindState(t *testing.T) {
	t.Parallel()
	conn := pgtest.Conn(t)
	var ahead, first, second int64
	err := conn.QueryRow(t.Context(), `
		SELECT set_config('sortid.huid_state', v::text, false)::bigint
		FROM (SELECT huid_min(clock_timestamp() + interval '5 seconds') | 1000 AS v) q`).Scan(&ahead)
	if err != nil {
		t.Fatal(err)
	}
	var server int64
	if err := conn.QueryRow(t.Context(), `SELECT sortid_huid_session(), sortid_huid_session(), huid_generate()`).Scan(&first, &second, &server); err != nil {
		t.Fatal(err)
	}
	if server>>huidTailBits >= ahead>>huidTailBits {
		t.Errorf("huid_generate() made %d (ms %d), not the clock's millisecond before the state's %d", server, server>>huidTailBits, ahead>>huidTailBits)
	}
	if first>>huidTailBits != ahead>>huidTailBits || second>>huidTailBits != ahead>>huidTailBits || first == second {
		t.Fatalf("state %d (ms %d) ahead of the clock: got %d, %d; want two distinct HUIDs of ms %d",
			ahead, ahead>>huidTailBits, first, second, ahead>>huidTailBits)
	}
}

// TestSQLSCRU128AfterRollback checks what the COMMENT of scru128_generate()
// and the README say: after a rolled-back (sub)transaction the session state
// is the one from before it, so the next ID can repeat a rolled-back ID's
// timestamp and counter and sort before it, but it is never the same ID (the
// 32 per-call random bits differ).
func TestSQLSCRU128AfterRollback(t *testing.T) {
	t.Parallel()
	conn := pgtest.Conn(t)
	ctx := t.Context()
	_, err := conn.Exec(ctx, `
		CREATE FUNCTION pg_temp.scru128_rollback_pairs(tries int, OUT rolled_back uuid, OUT after uuid)
		RETURNS SETOF record LANGUAGE plpgsql AS $$
		BEGIN
		  PERFORM scru128_generate();
		  FOR i IN 1..tries LOOP
		    BEGIN
		      rolled_back := scru128_generate();
		      RAISE EXCEPTION 'roll back';
		    EXCEPTION WHEN raise_exception THEN
		      after := scru128_generate();
		    END;
		    RETURN NEXT;
		  END LOOP;
		END
		$$`)
	if err != nil {
		t.Fatalf("create function: %v", err)
	}
	var tries, same, backwards int
	err = conn.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE after = rolled_back),
		count(*) FILTER (WHERE after < rolled_back) FROM pg_temp.scru128_rollback_pairs(2000)`).Scan(&tries, &same, &backwards)
	if err != nil {
		t.Fatalf("query: %v", err)
	}
	if tries != 2000 || same != 0 {
		t.Fatalf("%d tries, %d repeated the rolled-back ID exactly; want 2000 and 0", tries, same)
	}
	if backwards == 0 {
		t.Fatalf("no ID sorted before the rolled-back one in %d tries: the state survives rollbacks now; update the COMMENT of scru128_generate() and the README", tries)
	}
	t.Logf("%d of %d IDs after a rollback sort before the rolled-back ID", backwards, tries)
}
