package integration_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sortid/sortid/idtype"
	"github.com/sortid/sortid/integration/internal/pgtest"
)

// scru128Batch draws n IDs from scru128_generate() in one query, in order,
// with the (shared, local) clock just before and after.
func scru128Batch(t *testing.T, conn *pgx.Conn, n int) (ids []idtype.SCRU128, before, after time.Time) {
	t.Helper()
	before = time.Now()
	rows, err := conn.Query(t.Context(), `SELECT scru128_generate() FROM generate_series(1, $1::int) g ORDER BY g`, n)
	if err != nil {
		t.Fatalf("query: %v", err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[[16]byte])
	if err != nil || len(got) != n {
		t.Fatalf("%d IDs for %d (err %v)", len(got), n, err)
	}
	for _, id := range got {
		ids = append(ids, idtype.SCRU128(id))
	}
	return ids, before, time.Now()
}

// bitsBalanced fails the test unless each of the low width bits of vs is set
// in about half of them (within 6 standard deviations).
func bitsBalanced(t *testing.T, what string, vs []uint32, width int) {
	t.Helper()
	n := float64(len(vs))
	for b := range width {
		ones := 0
		for _, v := range vs {
			ones += int(v >> b & 1)
		}
		if math.Abs(float64(ones)-n/2) > 6*math.Sqrt(n/4) {
			t.Errorf("%s: bit %d set in %d of %d values, want about half", what, b, ones, len(vs))
		}
	}
}

// TestSQLSCRU128LiveSpecTester runs one session's scru128_generate() for 3.2 s
// and checks its output as the SCRU128 generator tester does: no reserved
// timestamp, each timestamp within a second of the clock, strict ascent,
// counter + 1 within a millisecond and a random counter (balanced bits) on a
// new one, per_sec_random kept while timestamp - ts_last_sec <= 1000 and
// renewed past it (at least twice), per_gen_random balanced in every bit, also
// XORed with its predecessor (so it is no function of the counter), and never
// equal to its predecessor's.
func TestSQLSCRU128LiveSpecTester(t *testing.T) {
	t.Parallel()
	conn := pgtest.Conn(t)
	var ids []idtype.SCRU128
	start := time.Now()
	// 3.2 s at least, for the renewals; longer (up to 30 s) on a loaded
	// machine until 500 new milliseconds were seen, for the counter's bits.
	newMs := 0
	for time.Since(start) < 3200*time.Millisecond || newMs < 600 && time.Since(start) < 30*time.Second {
		batch, before, after := scru128Batch(t, conn, 1000)
		for i, id := range batch {
			if i == 0 && len(ids) > 0 && id.Timestamp() != ids[len(ids)-1].Timestamp() ||
				i > 0 && id.Timestamp() != batch[i-1].Timestamp() {
				newMs++
			}
		}
		for _, id := range batch {
			if ts := id.Timestamp(); ts == 0 || ts == idtype.SCRU128MaxTimestamp {
				t.Fatalf("%s: reserved timestamp %d", id, ts)
			}
			if id.Time().Before(before.Add(-time.Second)) || id.Time().After(after.Add(time.Second)) {
				t.Fatalf("%s: time %v outside the batch's clock %v .. %v", id, id.Time(), before, after)
			}
		}
		ids = append(ids, batch...)
	}
	var newMsCounters, perGen, perGenXor []uint32
	sameMs, renewals := 0, 0
	lastSec := ids[0].Timestamp()
	for i, id := range ids {
		perGen = append(perGen, id.PerGenRandom())
		if i == 0 {
			continue
		}
		prev := ids[i-1]
		if id.Compare(prev) <= 0 {
			t.Fatalf("ID %d %s not above the previous %s", i, id, prev)
		}
		switch {
		case id.Timestamp() == prev.Timestamp():
			sameMs++
			if id.Counter() != prev.Counter()+1 {
				t.Fatalf("ID %d: counter %d after %d in the same millisecond, want +1", i, id.Counter(), prev.Counter())
			}
			if id.PerGenRandom() == prev.PerGenRandom() {
				t.Fatalf("ID %d: per_gen_random %08x repeats its predecessor's", i, id.PerGenRandom())
			}
			perGenXor = append(perGenXor, id.PerGenRandom()^prev.PerGenRandom())
		default:
			newMsCounters = append(newMsCounters, id.Counter())
		}
		if id.Timestamp()-lastSec > 1000 {
			if id.PerSecRandom() == prev.PerSecRandom() {
				t.Fatalf("ID %d: per_sec_random %06x not renewed %d ms after the last renewal", i, id.PerSecRandom(), id.Timestamp()-lastSec)
			}
			lastSec = id.Timestamp()
			renewals++
		} else if id.PerSecRandom() != prev.PerSecRandom() {
			t.Fatalf("ID %d: per_sec_random changed %d ms after the last renewal, want it kept for 1000", i, id.Timestamp()-lastSec)
		}
	}
	if renewals < 2 || sameMs < 1000 || len(newMsCounters) < 500 {
		t.Fatalf("%d IDs: %d per_sec_random renewals, %d in a used millisecond, %d new milliseconds; want >= 2, 1000, 500",
			len(ids), renewals, sameMs, len(newMsCounters))
	}
	bitsBalanced(t, "counter on a new millisecond", newMsCounters, 28)
	bitsBalanced(t, "per_gen_random", perGen, 32)
	bitsBalanced(t, "per_gen_random XOR its predecessor's", perGenXor, 32)
	t.Logf("%d IDs in %v: %d new milliseconds, %d per_sec_random renewals", len(ids), time.Since(start), len(newMsCounters), renewals)
}

// TestSQLSCRU128SixteenSessions: 16 sessions generate at the same time; every
// session's IDs strictly ascend and no ID appears twice among all of them.
func TestSQLSCRU128SixteenSessions(t *testing.T) {
	t.Parallel()
	const sessions, batches, perBatch = 16, 10, 5000
	conns := make([]*pgx.Conn, sessions)
	for i := range conns {
		conns[i] = pgtest.Conn(t)
	}
	out := make([][]idtype.SCRU128, sessions)
	errs := make([]error, sessions)
	var wg sync.WaitGroup
	for s := range sessions {
		wg.Go(func() {
			for range batches {
				rows, err := conns[s].Query(t.Context(), `SELECT scru128_generate() FROM generate_series(1, $1::int) g ORDER BY g`, perBatch)
				if err != nil {
					errs[s] = err
					return
				}
				got, err := pgx.CollectRows(rows, pgx.RowTo[[16]byte])
				if err != nil {
					errs[s] = err
					return
				}
				for _, id := range got {
					out[s] = append(out[s], idtype.SCRU128(id))
				}
			}
		})
	}
	wg.Wait()
	seen := make(map[idtype.SCRU128]int, sessions*batches*perBatch)
	for s, ids := range out {
		if errs[s] != nil {
			t.Fatalf("session %d: %v", s, errs[s])
		}
		if len(ids) != batches*perBatch {
			t.Fatalf("session %d: %d IDs, want %d", s, len(ids), batches*perBatch)
		}
		for i, id := range ids {
			if i > 0 && id.Compare(ids[i-1]) <= 0 {
				t.Fatalf("session %d: ID %d %s not above %s", s, i, id, ids[i-1])
			}
			if other, dup := seen[id]; dup {
				t.Fatalf("%s made by sessions %d and %d", id, other, s)
			}
			seen[id] = s
		}
	}
}

// TestSQLSCRU128FreshBitsAfterRollback: IDs drawn after a rolled-back
// subtransaction repeat the rolled-back IDs' timestamp and counter (the state
// rolled back) but none of their per_gen_random values: the random bits do
// not roll back with the state.
func TestSQLSCRU128FreshBitsAfterRollback(t *testing.T) {
	t.Parallel()
	runs := rollbackRuns(t, pgtest.Conn(t), "scru128_generate()", 300, 5)
	repeated := 0
	for round, run := range runs {
		rolledBack, after := run[0], run[1]
		used := map[uint32]bool{}
		for _, id := range rolledBack {
			used[id.PerGenRandom()] = true
		}
		if rolledBack[0].Timestamp() == after[0].Timestamp() && rolledBack[0].Counter() == after[0].Counter() {
			repeated++
		}
		for _, id := range after {
			if used[id.PerGenRandom()] {
				t.Fatalf("round %d: %s after the rollback reuses per_gen_random %08x of a rolled-back ID", round, id, id.PerGenRandom())
			}
		}
	}
	if len(runs) != 300 || repeated < 100 {
		t.Fatalf("%d rounds, %d repeating a rolled-back timestamp and counter; want 300 and at least 100 (else the state no longer rolls back and this tests nothing)", len(runs), repeated)
	}
}

// rollbackRuns calls the SQL expression call (a SCRU128 generator) once,
// then in each of rounds subtransactions per times before rolling the
// subtransaction back and per times after, all in one statement; it returns
// each round's rolled-back IDs and the IDs after.
func rollbackRuns(t *testing.T, conn *pgx.Conn, call string, rounds, per int) [][2][]idtype.SCRU128 {
	t.Helper()
	ctx := t.Context()
	_, err := conn.Exec(ctx, `
		CREATE FUNCTION pg_temp.sortid_rollback_runs(rounds int, per int, OUT rolled_back uuid[], OUT after uuid[])
		RETURNS SETOF record LANGUAGE plpgsql AS $$
		BEGIN
		  PERFORM `+call+`;
		  FOR i IN 1..rounds LOOP
		    rolled_back := '{}';
		    BEGIN
		      FOR j IN 1..per LOOP rolled_back := rolled_back || `+call+`; END LOOP;
		      RAISE EXCEPTION 'roll back';
		    EXCEPTION WHEN raise_exception THEN
		      after := '{}';
		      FOR j IN 1..per LOOP after := after || `+call+`; END LOOP;
		    END;
		    RETURN NEXT;
		  END LOOP;
		END
		$$`)
	if err != nil {
		t.Fatalf("create function: %v", err)
	}
	rows, err := conn.Query(ctx, `SELECT rolled_back, after FROM pg_temp.sortid_rollback_runs($1, $2)`, rounds, per)
	if err != nil {
		t.Fatalf("query: %v", err)
	}
	var runs [][2][]idtype.SCRU128
	for rows.Next() {
		var rolledBack, after [][16]byte
		if err := rows.Scan(&rolledBack, &after); err != nil {
			t.Fatal(err)
		}
		var run [2][]idtype.SCRU128
		for i, ids := range [][][16]byte{rolledBack, after} {
			for _, b := range ids {
				run[i] = append(run[i], idtype.SCRU128(b))
			}
		}
		runs = append(runs, run)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return runs
}

// TestSQLSCRU128KeyPerSession: the key (the last 32 hex digits of the state)
// is drawn on the session's first call and kept; when the transaction that
// drew it rolls back, the next call draws a new one.
func TestSQLSCRU128KeyPerSession(t *testing.T) {
	t.Parallel()
	checkSessionKey(t, `SELECT right(current_setting('sortid.scru128_state', true), 32)`, "SELECT scru128_generate()",
		[2]string{"SELECT scru128_generate() FROM generate_series(1, 3000)", "SELECT pg_sleep(0.01); SELECT scru128_generate() FROM generate_series(1, 3000)"},
		func(k string) bool { return len(k) == 32 })
}

// scru128State is a generator state: the last ID's fields, ts_last_sec and a
// key, as sortid.scru128_state holds them.
func scru128State(ts uint64, counter, perSec uint32, lastSec uint64) string {
	return fmt.Sprintf("%011x%07x%06x%08x%011x%s", ts, counter, perSec, 0x12345678, lastSec, strings.Repeat("ab", 16))
}

// TestSQLSCRU128GeneratorRules sets the session state and checks the next ID:
// a clock up to 10 s behind keeps the last timestamp and counts on; a counter
// overflow moves the timestamp on by one with a random counter, renewing
// per_sec_random only when the new timestamp is more than 1000 ms past
// ts_last_sec; a clock more than 10 s behind restarts from the clock with a new
// per_sec_random.
func TestSQLSCRU128GeneratorRules(t *testing.T) {
	t.Parallel()
	conn := pgtest.Conn(t)
	var nowMs uint64
	if err := conn.QueryRow(t.Context(), `SELECT (floor(date_part('epoch', clock_timestamp()) * 1000) - 1577836800000)::bigint`).Scan(&nowMs); err != nil {
		t.Fatal(err)
	}
	next := func(state string) idtype.SCRU128 {
		t.Helper()
		var id [16]byte
		if err := conn.QueryRow(t.Context(), `SELECT set_config('sortid.scru128_state', $1, false) IS NOT NULL, scru128_generate()`, state).Scan(new(bool), &id); err != nil {
			t.Fatalf("state %s: %v", state, err)
		}
		return idtype.SCRU128(id)
	}
	const perSec = 0xabcdef
	ahead := nowMs + 5000
	if id := next(scru128State(ahead, 1000, perSec, ahead)); id.Timestamp() != ahead || id.Counter() != 1001 || id.PerSecRandom() != perSec {
		t.Errorf("clock 5 s behind: got timestamp %d counter %d per_sec_random %06x; want %d, 1001, %06x", id.Timestamp(), id.Counter(), id.PerSecRandom(), ahead, perSec)
	}
	counters := map[uint32]bool{}
	for range 20 {
		id := next(scru128State(ahead, idtype.SCRU128MaxCounter, perSec, ahead-999))
		if id.Timestamp() != ahead+1 || id.PerSecRandom() != perSec {
			t.Fatalf("overflow: got timestamp %d per_sec_random %06x; want %d, kept %06x (1000 ms since the renewal)", id.Timestamp(), id.PerSecRandom(), ahead+1, perSec)
		}
		counters[id.Counter()] = true
	}
	if len(counters) < 19 {
		t.Errorf("overflow: 20 draws gave %d distinct counters, want random ones", len(counters))
	}
	if id := next(scru128State(ahead, idtype.SCRU128MaxCounter, perSec, ahead-1000)); id.Timestamp() != ahead+1 || id.PerSecRandom() == perSec {
		t.Errorf("overflow 1001 ms after the renewal: got timestamp %d per_sec_random %06x; want %d and a new per_sec_random", id.Timestamp(), id.PerSecRandom(), ahead+1)
	}
	far := nowMs + 20000
	id := next(scru128State(far, 1000, perSec, far))
	if id.Timestamp() >= far-10000 || id.Timestamp()+1000 < nowMs || id.PerSecRandom() == perSec {
		t.Errorf("clock 20 s behind: got timestamp %d per_sec_random %06x; want the clock (~%d) and a new per_sec_random", id.Timestamp(), id.PerSecRandom(), nowMs)
	}
}

// TestSQLSCRU128ReservedTimestamps: the generator's step raises 22008 rather
// than give the reserved timestamps 0 and 2^44-1, from the clock or from a
// counter overflow in the last valid millisecond, and gives 1 and 2^44-2.
func TestSQLSCRU128ReservedTimestamps(t *testing.T) {
	t.Parallel()
	conn := pgtest.Conn(t)
	last := uint64(idtype.SCRU128MaxTimestamp - 1)
	secs := func(ms uint64) float64 { return float64(ms+idtype.SCRU128EpochMillis)/1000 + 0.0004 }
	for _, tt := range []struct {
		state string
		e     float64
		want  uint64 // 0: want 22008
	}{
		{"", secs(0), 0},
		{"", secs(1), 1},
		{"", secs(last), last},
		{"", secs(last + 1), 0},
		{scru128State(last, idtype.SCRU128MaxCounter, 1, last), secs(last), 0},
		{scru128State(last-1, idtype.SCRU128MaxCounter, 1, last-1), secs(last - 1), last},
	} {
		var b [16]byte
		err := conn.QueryRow(t.Context(), `SELECT left(sortid_scru128_next(NULLIF($1, ''), $2), 32)::uuid`, tt.state, tt.e).Scan(&b)
		var pgErr *pgconn.PgError
		switch id := idtype.SCRU128(b); {
		case tt.want == 0:
			if !errors.As(err, &pgErr) || pgErr.Code != "22008" {
				t.Errorf("state %q, clock %.4f: got %s, %v; want SQLSTATE 22008", tt.state, tt.e, id, err)
			}
		case err != nil:
			t.Errorf("state %q, clock %.4f: %v", tt.state, tt.e, err)
		case id.Timestamp() != tt.want:
			t.Errorf("state %q, clock %.4f: ID %s has timestamp %d, want %d", tt.state, tt.e, id, id.Timestamp(), tt.want)
		}
	}
}
