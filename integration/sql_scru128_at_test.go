package integration_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/sortid/sortid/idtype"
	"github.com/sortid/sortid/integration/internal/pgtest"
)

// atIDs runs query, whose rows are one uuid or bytea column, and returns the
// IDs in row order.
func atIDs(t *testing.T, conn *pgx.Conn, query string, args ...any) []idtype.SCRU128 {
	t.Helper()
	rows, err := conn.Query(t.Context(), query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[[16]byte])
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	ids := make([]idtype.SCRU128, len(got))
	for i, b := range got {
		ids[i] = idtype.SCRU128(b)
	}
	return ids
}

// atState is the sortid.scru128_at_state of a last ID at time ms with the
// given counter and per_sec_random, renewed at lastSec (all SCRU128
// timestamps).
func atState(ms int64, counter, perSec uint32, lastSec int64) string {
	return fmt.Sprintf("%011x%07x%06x%011x", ms, counter, perSec, lastSec)
}

func scru128Ms(ts time.Time) int64 { return ts.UnixMilli() - idtype.SCRU128EpochMillis }

// TestSQLSCRU128AtWindow: scru128_generate_at and its bytea form give an ID
// whose time is ts floored to the millisecond, which idtype parses and whose
// time idtype's GenerateAt gives for the same instant, from the first to the
// last valid millisecond; one millisecond outside each end (the reserved
// timestamps), past 44 bits and the infinities raise 22008 naming ts and the
// window, as GenerateAt refuses them.
func TestSQLSCRU128AtWindow(t *testing.T) {
	t.Parallel()
	conn := pgtest.Conn(t)
	ctx := t.Context()
	if _, err := conn.Exec(ctx, "SET TimeZone = 'UTC'"); err != nil {
		t.Fatal(err)
	}
	utc := func(s string) time.Time {
		v, err := time.Parse("2006-01-02 15:04:05.000", s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tc := range []struct {
		ts   string
		want time.Time // zero: 22008
	}{
		{"2020-01-01 00:00:00.001+00", utc("2020-01-01 00:00:00.001")},
		{"2020-01-01 00:00:00.001999+00", utc("2020-01-01 00:00:00.001")},
		{"2020-01-01 00:00:00.000999+00", time.Time{}},
		{"2020-01-01 00:00:00+00", time.Time{}},
		{"2019-12-31 23:59:59.999+00", time.Time{}},
		{"2577-06-22 06:20:44.414+00", utc("2577-06-22 06:20:44.414")},
		{"2577-06-22 06:20:44.414999+00", utc("2577-06-22 06:20:44.414")},
		{"2577-06-22 06:20:44.415+00", time.Time{}},
		{"2577-06-22 06:20:44.416+00", time.Time{}},
		{"infinity", time.Time{}},
		{"-infinity", time.Time{}},
		{"2026-06-01 12:00:00.123456+00", utc("2026-06-01 12:00:00.123")},
		{"2026-06-01 17:30:00.123999+05:30", utc("2026-06-01 12:00:00.123")},
		{"1969-12-31 23:59:59.9995+00", time.Time{}},
	} {
		var instant pgtype.Timestamptz
		if err := conn.QueryRow(ctx, "SELECT $1::timestamptz", tc.ts).Scan(&instant); err != nil {
			t.Fatal(err)
		}
		var goErr error
		var goTime time.Time
		if instant.InfinityModifier == pgtype.Finite {
			id, err := idtype.NewSCRU128Generator().GenerateAt(instant.Time)
			goTime, goErr = id.Time(), err
		}
		for _, call := range []string{"scru128_generate_at($1::timestamptz)::text", "encode(scru128_generate_at_bytea($1::timestamptz), 'hex')::uuid::text"} {
			var text string
			err := conn.QueryRow(ctx, "SELECT "+call, tc.ts).Scan(&text)
			if tc.want.IsZero() {
				if sqlState(err) != "22008" || !strings.Contains(err.Error(), "scru128_generate_at: ") ||
					!strings.Contains(err.Error(), "[2020-01-01 00:00:00.001+00, 2577-06-22 06:20:44.414+00]") {
					t.Errorf("%s with %s: %q, %v; want SQLSTATE 22008 naming the function and the window", call, tc.ts, text, err)
				}
				if err != nil && instant.InfinityModifier == pgtype.Finite && !strings.Contains(err.Error(), strings.TrimSuffix(tc.ts, "+00")) {
					t.Errorf("%s with %s: error %v does not name ts", call, tc.ts, err)
				}
				if instant.InfinityModifier == pgtype.Finite && !errors.Is(goErr, idtype.ErrTimeOutOfRange) {
					t.Errorf("%s: SQL refuses, Go's GenerateAt gives %v, %v", tc.ts, goTime, goErr)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s with %s: %v", call, tc.ts, err)
				continue
			}
			id, err := idtype.ParseSCRU128(text)
			if err != nil || !id.Time().Equal(tc.want) || !id.Time().Equal(instant.Time.Truncate(time.Millisecond)) {
				t.Errorf("%s with %s = %s: %v, time %v; want %v", call, tc.ts, text, err, id.Time(), tc.want)
			}
			if ts := id.Timestamp(); ts == 0 || ts == idtype.SCRU128MaxTimestamp {
				t.Errorf("%s with %s gave the reserved timestamp %d", call, tc.ts, ts)
			}
			if goErr != nil || !goTime.Equal(id.Time()) {
				t.Errorf("%s: SQL gives time %v, Go's GenerateAt %v, %v", tc.ts, id.Time(), goTime, goErr)
			}
		}
	}
}

// TestSQLSCRU128AtTimeZone: in a session whose TimeZone is not UTC, a ts
// without an offset is read in that zone, and the ID's time is that instant,
// not its wall-clock reading as UTC.
func TestSQLSCRU128AtTimeZone(t *testing.T) {
	t.Parallel()
	conn := pgtest.Conn(t)
	if _, err := conn.Exec(t.Context(), "SET TimeZone = 'America/St_Johns'"); err != nil { // -02:30 in June
		t.Fatal(err)
	}
	ids := atIDs(t, conn, `SELECT scru128_generate_at(ts) FROM unnest($1::text[]) WITH ORDINALITY AS u(s, i),
		LATERAL (SELECT s::timestamptz AS ts) AS c ORDER BY i`,
		[]string{"2026-06-01 12:00:00.123456", "2026-06-01 12:00:00.123456+00", "2026-06-01 12:00:00.999999-02:30"})
	want := []time.Time{
		time.Date(2026, 6, 1, 14, 30, 0, 123_000_000, time.UTC),
		time.Date(2026, 6, 1, 12, 0, 0, 123_000_000, time.UTC),
		time.Date(2026, 6, 1, 14, 30, 0, 999_000_000, time.UTC),
	}
	for i, id := range ids {
		if !id.Time().Equal(want[i]) {
			t.Errorf("ID %d %s has time %v, want %v", i, id, id.Time(), want[i])
		}
	}
}

// TestSQLSCRU128AtCountsAtOneTs: one session's IDs at one ts (its
// microseconds varying within the millisecond) strictly ascend, the counter
// going up by 1 and per_sec_random kept; a later and an earlier ts each
// start from a random counter.
func TestSQLSCRU128AtCountsAtOneTs(t *testing.T) {
	t.Parallel()
	conn := pgtest.Conn(t)
	base := time.Date(2024, 2, 29, 23, 59, 59, 999_000_000, time.UTC)
	ids := atIDs(t, conn, `SELECT scru128_generate_at($1::timestamptz + (g % 1000) * interval '1 microsecond')
		FROM generate_series(1, 2000) g ORDER BY g`, base)
	for i, id := range ids {
		if !id.Time().Equal(base) {
			t.Fatalf("ID %d has time %v, want %v", i, id.Time(), base)
		}
		if i > 0 && (id.Compare(ids[i-1]) <= 0 || id.Counter() != ids[i-1].Counter()+1 || id.PerSecRandom() != ids[i-1].PerSecRandom()) {
			t.Fatalf("ID %d %s (counter %d) after %s (counter %d): want counter + 1 and per_sec_random kept", i, id, id.Counter(), ids[i-1], ids[i-1].Counter())
		}
	}
	// Alternating between two milliseconds: every call draws a counter.
	other := base.Add(-3 * time.Millisecond)
	alt := atIDs(t, conn, `SELECT scru128_generate_at(CASE WHEN g % 2 = 0 THEN $1::timestamptz ELSE $2 END)
		FROM generate_series(1, 40) g ORDER BY g`, base, other)
	counters := map[uint32]bool{ids[len(ids)-1].Counter() + 1: true}
	for i, id := range alt {
		if counters[id.Counter()] {
			t.Fatalf("ID %d at %v repeats counter %d, or continues the last one: want a random counter for a new millisecond", i, id.Time(), id.Counter())
		}
		counters[id.Counter()] = true
	}
}

// TestSQLSCRU128AtSameRulesAsGo walks one session and one Go generator
// through the same times, going forward and back, with repeats: for every ID
// both agree on the time, on whether the counter went up by one, and on
// whether per_sec_random was renewed (more than 1000 ms past its last renewal,
// or before it).
func TestSQLSCRU128AtSameRulesAsGo(t *testing.T) {
	t.Parallel()
	conn := pgtest.Conn(t)
	r := rand.New(rand.NewPCG(26, 1))
	at := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	// The edges first: 1000 ms past a renewal keeps, 1001 renews, going back
	// before it renews, back to it keeps.
	times := []time.Time{at, at.Add(1000 * time.Millisecond), at.Add(1001 * time.Millisecond),
		at.Add(2001 * time.Millisecond), at.Add(1000 * time.Millisecond), at.Add(1000 * time.Millisecond)}
	for range 400 {
		last := times[len(times)-1]
		switch r.IntN(4) {
		case 0:
			times = append(times, last)
		case 1:
			times = append(times, last.Add(time.Duration(r.IntN(1500000))*time.Microsecond))
		default:
			times = append(times, last.Add(-time.Duration(r.IntN(1200000))*time.Microsecond))
		}
	}
	ids := atIDs(t, conn, `SELECT scru128_generate_at(ts) FROM unnest($1::timestamptz[]) WITH ORDINALITY AS u(ts, i) ORDER BY i`, times)
	g := idtype.NewSCRU128Generator()
	renewals := 0
	var prevGo idtype.SCRU128
	for i, when := range times {
		goID, err := g.GenerateAt(when)
		if err != nil {
			t.Fatal(err)
		}
		id := ids[i]
		if !id.Time().Equal(goID.Time()) {
			t.Fatalf("step %d (%v): SQL time %v, Go %v", i, when, id.Time(), goID.Time())
		}
		if i > 0 {
			prev := ids[i-1]
			sqlStep, goStep := id.Counter() == prev.Counter()+1, goID.Counter() == prevGo.Counter()+1
			sqlRenewed, goRenewed := id.PerSecRandom() != prev.PerSecRandom(), goID.PerSecRandom() != prevGo.PerSecRandom()
			if sqlStep != goStep || sqlRenewed != goRenewed {
				t.Fatalf("step %d (%v after %v): SQL counter+1 %v renewed %v, Go counter+1 %v renewed %v",
					i, when, times[i-1], sqlStep, sqlRenewed, goStep, goRenewed)
			}
			if goRenewed {
				renewals++
			}
		}
		prevGo = goID
	}
	wantRenewed := []bool{false, true, false, true, false}
	for i, want := range wantRenewed {
		if got := ids[i+1].PerSecRandom() != ids[i].PerSecRandom(); got != want {
			t.Errorf("edge step %d: per_sec_random renewed %v, want %v", i+1, got, want)
		}
	}
	if renewals < 50 {
		t.Fatalf("only %d renewals over %d steps: the walk tests little", renewals, len(times))
	}
}

// TestSQLSCRU128AtCounterUsedUp: at a counter of 2^28-1, the next call at
// the same millisecond raises 54000 naming ts and leaves the state as it
// was; another millisecond works.
func TestSQLSCRU128AtCounterUsedUp(t *testing.T) {
	t.Parallel()
	conn := pgtest.Conn(t)
	ctx := t.Context()
	if _, err := conn.Exec(ctx, "SET TimeZone = 'UTC'"); err != nil {
		t.Fatal(err)
	}
	ts := time.Date(2026, 6, 1, 12, 0, 0, 123_000_000, time.UTC)
	ms := scru128Ms(ts)
	if _, err := conn.Exec(ctx, "SELECT set_config('sortid.scru128_at_state', $1, false)", atState(ms, idtype.SCRU128MaxCounter-1, 0xabcdef, ms)); err != nil {
		t.Fatal(err)
	}
	last := atIDs(t, conn, "SELECT scru128_generate_at($1::timestamptz + interval '456 microseconds')", ts)[0]
	if last.Counter() != idtype.SCRU128MaxCounter || last.PerSecRandom() != 0xabcdef || !last.Time().Equal(ts) {
		t.Fatalf("last counter: %s, counter %d per_sec_random %06x", last, last.Counter(), last.PerSecRandom())
	}
	state := func() string {
		var s string
		if err := conn.QueryRow(ctx, "SELECT current_setting('sortid.scru128_at_state')").Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := state()
	_, err := conn.Exec(ctx, "SELECT scru128_generate_at($1::timestamptz)", ts)
	if sqlState(err) != "54000" || !strings.Contains(err.Error(), "scru128_generate_at: the counter of the millisecond of 2026-06-01 12:00:00.123+00 is used up in this session") {
		t.Fatalf("counter used up: %v, want SQLSTATE 54000 naming ts", err)
	}
	if s := state(); s != before {
		t.Fatalf("the refused call changed the state from %s to %s", before, s)
	}
	next := atIDs(t, conn, "SELECT scru128_generate_at($1::timestamptz + interval '1 millisecond')", ts)[0]
	if !next.Time().Equal(ts.Add(time.Millisecond)) || next.PerSecRandom() != 0xabcdef {
		t.Fatalf("next millisecond: %s, time %v per_sec_random %06x", next, next.Time(), next.PerSecRandom())
	}
}

// TestSQLSCRU128AtNull: NULL gives NULL, for both forms, and leaves the
// state alone.
func TestSQLSCRU128AtNull(t *testing.T) {
	t.Parallel()
	conn := pgtest.Conn(t)
	ctx := t.Context()
	var before, after string
	var u *[16]byte
	var b []byte
	err := conn.QueryRow(ctx, `SELECT scru128_generate_at('2026-01-01+00') IS NOT NULL, current_setting('sortid.scru128_at_state')`).Scan(new(bool), &before)
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, `SELECT scru128_generate_at(NULL), scru128_generate_at_bytea(NULL), current_setting('sortid.scru128_at_state')`).Scan(&u, &b, &after); err != nil {
		t.Fatal(err)
	}
	if u != nil || b != nil || after != before {
		t.Fatalf("NULL gave %v and %x, state %s (was %s); want NULL, NULL and the state unchanged", u, b, after, before)
	}
}

// TestSQLSCRU128AtBytea: the bytea form is 16 bytes, the uuid_send of what
// scru128_generate_at gives, drawn from the same session state.
func TestSQLSCRU128AtBytea(t *testing.T) {
	t.Parallel()
	conn := pgtest.Conn(t)
	ts := time.Date(2027, 1, 2, 3, 4, 5, 6_000_000, time.UTC)
	var viaUUID, viaBytea []byte
	if err := conn.QueryRow(t.Context(), `SELECT uuid_send(scru128_generate_at($1)), scru128_generate_at_bytea($1)`, ts).Scan(&viaUUID, &viaBytea); err != nil {
		t.Fatal(err)
	}
	if len(viaUUID) != 16 || len(viaBytea) != 16 {
		t.Fatalf("lengths %d and %d, want 16", len(viaUUID), len(viaBytea))
	}
	a, b := idtype.SCRU128(viaUUID), idtype.SCRU128(viaBytea)
	if !a.Time().Equal(ts) || !b.Time().Equal(ts) || b.Counter() != a.Counter()+1 || b.PerSecRandom() != a.PerSecRandom() {
		t.Fatalf("uuid_send(scru128_generate_at) %s then scru128_generate_at_bytea %s: want time %v for both, counter + 1", a, b, ts)
	}
}

// TestSQLSCRU128AtRollback: the state is a setting, so it rolls back with a
// (sub)transaction: the ID after a rollback repeats the rolled-back one's
// timestamp, counter and per_sec_random, but its per_gen_random is fresh, so
// no ID after a rollback equals a rolled-back one.
func TestSQLSCRU128AtRollback(t *testing.T) {
	t.Parallel()
	conn := pgtest.Conn(t)
	ctx := t.Context()
	runs := rollbackRuns(t, conn, "scru128_generate_at('2026-03-04 05:06:07.089+00')", 300, 5)
	repeated := 0
	for round, run := range runs {
		rolledBack, after := run[0], run[1]
		r0, a0 := rolledBack[0], after[0]
		if r0.Timestamp() == a0.Timestamp() && r0.Counter() == a0.Counter() && r0.PerSecRandom() == a0.PerSecRandom() {
			repeated++
		}
		for _, id := range after {
			if slices.Contains(rolledBack, id) {
				t.Fatalf("round %d: %s after the rollback equals a rolled-back ID", round, id)
			}
		}
	}
	if len(runs) != 300 || repeated != 300 {
		t.Fatalf("%d rounds, %d repeating a rolled-back ID's fields but per_gen_random; want 300 and 300 (else the state no longer rolls back and this tests nothing)", len(runs), repeated)
	}
	// A top-level transaction rolls back the state too.
	ts := time.Date(2026, 3, 4, 5, 6, 7, 89_000_000, time.UTC)
	before := atIDs(t, conn, "SELECT scru128_generate_at($1)", ts)[0]
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var inTx [16]byte
	if err := tx.QueryRow(ctx, "SELECT scru128_generate_at($1)", ts).Scan(&inTx); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	afterTx := atIDs(t, conn, "SELECT scru128_generate_at($1)", ts)[0]
	rolled := idtype.SCRU128(inTx)
	if rolled.Counter() != before.Counter()+1 || afterTx.Counter() != rolled.Counter() || afterTx == rolled {
		t.Fatalf("before %s, rolled back %s, after %s: want the rolled-back counter again, in a different ID", before, rolled, afterTx)
	}
}

// TestSQLSCRU128AtTwoSessions: two sessions at the same ts are two
// generators; none of their IDs coincide.
func TestSQLSCRU128AtTwoSessions(t *testing.T) {
	t.Parallel()
	ts := time.Date(2026, 9, 9, 9, 9, 9, 999_000_000, time.UTC)
	seen := map[idtype.SCRU128]int{}
	for s := range 2 {
		conn := pgtest.Conn(t)
		for _, id := range atIDs(t, conn, "SELECT scru128_generate_at($1) FROM generate_series(1, 1000) g ORDER BY g", ts) {
			if other, dup := seen[id]; dup {
				t.Fatalf("%s made by sessions %d and %d", id, other, s)
			}
			seen[id] = s
		}
	}
	if len(seen) != 2000 {
		t.Fatalf("%d distinct IDs, want 2000", len(seen))
	}
}

// TestSQLSCRU128AtLeavesGenerateAlone: scru128_generate_at() calls between
// scru128_generate() calls do not touch sortid.scru128_state: the clock's
// IDs still strictly ascend, with counter + 1 within a millisecond, and the
// backfill's count on at their own ts.
func TestSQLSCRU128AtLeavesGenerateAlone(t *testing.T) {
	t.Parallel()
	conn := pgtest.Conn(t)
	ctx := t.Context()
	ts := time.Date(2021, 5, 6, 7, 8, 9, 10_000_000, time.UTC)
	// Counter 0 at ts, so that 5000 more cannot reach 2^28-1.
	if _, err := conn.Exec(ctx, "SELECT set_config('sortid.scru128_at_state', $1, false)", atState(scru128Ms(ts), 0, 1, scru128Ms(ts))); err != nil {
		t.Fatal(err)
	}
	rows, err := conn.Query(ctx, `SELECT scru128_generate(), scru128_generate_at($1) FROM generate_series(1, 5000) g ORDER BY g`, ts)
	if err != nil {
		t.Fatal(err)
	}
	var clock, back []idtype.SCRU128
	for rows.Next() {
		var c, b [16]byte
		if err := rows.Scan(&c, &b); err != nil {
			t.Fatal(err)
		}
		clock, back = append(clock, idtype.SCRU128(c)), append(back, idtype.SCRU128(b))
	}
	if err := rows.Err(); err != nil || len(clock) != 5000 {
		t.Fatalf("%d rows, %v", len(clock), err)
	}
	sameMs := 0
	for i := 1; i < len(clock); i++ {
		if clock[i].Compare(clock[i-1]) <= 0 {
			t.Fatalf("scru128_generate() ID %d %s not above %s", i, clock[i], clock[i-1])
		}
		if clock[i].Timestamp() == clock[i-1].Timestamp() {
			sameMs++
			if clock[i].Counter() != clock[i-1].Counter()+1 {
				t.Fatalf("scru128_generate() ID %d: counter %d after %d in one millisecond", i, clock[i].Counter(), clock[i-1].Counter())
			}
		}
		if !back[i].Time().Equal(ts) || back[i].Counter() != back[i-1].Counter()+1 {
			t.Fatalf("scru128_generate_at ID %d %s after %s: want time %v, counter + 1", i, back[i], back[i-1], ts)
		}
	}
	if sameMs < 100 {
		t.Fatalf("only %d scru128_generate() IDs shared a millisecond: the counter rule went untested", sameMs)
	}
	var before, after string
	if err := conn.QueryRow(ctx, `SELECT current_setting('sortid.scru128_state')`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, `SELECT scru128_generate_at(now()) IS NOT NULL, current_setting('sortid.scru128_state')`).Scan(new(bool), &after); err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Fatalf("scru128_generate_at changed sortid.scru128_state from %s to %s", before, after)
	}
}

// TestSQLSCRU128AtForeignState: a sortid.scru128_at_state that the function
// did not write is refused with 22023 naming the setting and its value,
// never read as fields; RESET starts a new generator.
func TestSQLSCRU128AtForeignState(t *testing.T) {
	t.Parallel()
	conn := pgtest.Conn(t)
	ctx := t.Context()
	valid := atState(scru128Ms(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)), 5, 0xabcdef, 1)
	for _, bad := range []string{
		strings.Repeat("z", 35),
		strings.ToUpper(valid[:34]) + "A", // upper case: not what the function writes
		valid + "0",
		valid[:34],
		"garbage",
		" " + valid[1:],
	} {
		if _, err := conn.Exec(ctx, "SELECT set_config('sortid.scru128_at_state', $1, false)", bad); err != nil {
			t.Fatal(err)
		}
		_, err := conn.Exec(ctx, "SELECT scru128_generate_at('2026-06-01 00:00:00+00')")
		if sqlState(err) != "22023" || !strings.Contains(err.Error(), "sortid.scru128_at_state holds '"+bad+"'") {
			t.Errorf("state %q: %v; want 22023 naming the setting and the value", bad, err)
		}
	}
	if _, err := conn.Exec(ctx, "RESET sortid.scru128_at_state"); err != nil {
		t.Fatal(err)
	}
	if ids := atIDs(t, conn, "SELECT scru128_generate_at('2026-06-01 00:00:00+00')"); len(ids) != 1 ||
		!ids[0].Time().Equal(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("after RESET: %v; want an ID of 2026-06-01", ids)
	}
}
