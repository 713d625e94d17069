package integration_test

import (
	"crypto/rand"
	mrand "math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sortid/sortid/idtype"
	"github.com/sortid/sortid/integration/internal/pgtest"
)

const agreeSamples = 10_000

// randomMicros returns n times with microsecond precision (PostgreSQL's)
// between lo and hi inclusive; every other one is millisecond-aligned, and
// lo and hi themselves come first.
func randomMicros(n int, lo, hi time.Time) []time.Time {
	span := hi.Sub(lo).Microseconds()
	out := []time.Time{lo, hi}
	for i := len(out); i < n; i++ {
		t := lo.Add(time.Duration(mrand.Int64N(span+1)) * time.Microsecond)
		if i%2 == 0 {
			t = t.Truncate(time.Millisecond)
		}
		out = append(out, t.UTC())
	}
	return out
}

// TestSQLRangeAgreesWithGo compares, over 10 000 random timestamps each,
// huid_min/huid_max and scru128_min/scru128_max with idtype:
//
//   - per timestamp t: the SQL functions take t's millisecond (floor), as
//     HUIDFromParts / SCRU128FromFields with t.UnixMilli() do;
//   - per window [from, to): HUIDRange/SCRU128Range span the milliseconds
//     that overlap it, from's millisecond to the one holding the instant
//     before to, which in SQL at microsecond precision is *_min(from) and
//     *_max(to - 1 µs); for millisecond-aligned bounds *_max(to - 1 ms).
func TestSQLRangeAgreesWithGo(t *testing.T) {
	t.Parallel()
	conn := pgtest.Conn(t)
	huidLo := time.UnixMilli(idtype.HUIDEpochMillis).UTC()
	huidHi := time.UnixMilli(idtype.HUIDEpochMillis + idtype.HUIDMaxTimestamp).Add(999 * time.Microsecond).UTC()
	scruLo := time.UnixMilli(idtype.SCRU128EpochMillis).UTC()
	scruHi := time.UnixMilli(idtype.SCRU128EpochMillis + idtype.SCRU128MaxTimestamp).Add(999 * time.Microsecond).UTC()
	t.Run("HUID", func(t *testing.T) {
		ts := randomMicros(agreeSamples, huidLo, huidHi)
		mins, maxs := querySQLPairs[int64](t, conn, "huid_min(t), huid_max(t)", ts)
		for i, tm := range ts {
			lo, _ := idtype.HUIDFromParts(tm, 0)
			hi, _ := idtype.HUIDFromParts(tm, idtype.HUIDMaxRandom)
			if mins[i] != int64(lo) || maxs[i] != int64(hi) {
				t.Fatalf("%s: SQL min/max %d/%d, Go %d/%d", tm.Format(time.RFC3339Nano), mins[i], maxs[i], lo, hi)
			}
		}
		from, to := randomWindows(ts, huidHi)
		sqlLo, _ := querySQLPairs[int64](t, conn, "huid_min(t), 0", from)
		_, sqlHi := querySQLPairs[int64](t, conn, "0, huid_max(t - interval '1 microsecond')", to)
		for i := range from {
			lo, hi, err := idtype.HUIDRange(from[i], to[i])
			if err != nil {
				t.Fatalf("HUIDRange(%v, %v): %v", from[i], to[i], err)
			}
			if sqlLo[i] != int64(lo) || sqlHi[i] != int64(hi) {
				t.Fatalf("[%s, %s): SQL %d..%d, HUIDRange %d..%d", from[i].Format(time.RFC3339Nano),
					to[i].Format(time.RFC3339Nano), sqlLo[i], sqlHi[i], lo, hi)
			}
		}
	})
	t.Run("SCRU128", func(t *testing.T) {
		ts := randomMicros(agreeSamples, scruLo, scruHi)
		mins, maxs := querySQLPairs[string](t, conn, "scru128_min(t)::text, scru128_max(t)::text", ts)
		for i, tm := range ts {
			ms := uint64(tm.UnixMilli() - idtype.SCRU128EpochMillis)
			lo, _ := idtype.SCRU128FromFields(ms, 0, 0, 0)
			hi, _ := idtype.SCRU128FromFields(ms, idtype.SCRU128MaxCounter, idtype.SCRU128MaxPerSecRandom, 1<<32-1)
			if mins[i] != lo.UUIDString() || maxs[i] != hi.UUIDString() {
				t.Fatalf("%s: SQL min/max %s/%s, Go %s/%s", tm.Format(time.RFC3339Nano), mins[i], maxs[i], lo.UUIDString(), hi.UUIDString())
			}
		}
		from, to := randomWindows(ts, scruHi)
		sqlLo, _ := querySQLPairs[string](t, conn, "scru128_min(t)::text, ''", from)
		_, sqlHi := querySQLPairs[string](t, conn, "'', scru128_max(t - interval '1 microsecond')::text", to)
		for i := range from {
			lo, hi, err := idtype.SCRU128Range(from[i], to[i])
			if err != nil {
				t.Fatalf("SCRU128Range(%v, %v): %v", from[i], to[i], err)
			}
			if sqlLo[i] != lo.UUIDString() || sqlHi[i] != hi.UUIDString() {
				t.Fatalf("[%s, %s): SQL %s..%s, SCRU128Range %s..%s", from[i].Format(time.RFC3339Nano),
					to[i].Format(time.RFC3339Nano), sqlLo[i], sqlHi[i], lo.UUIDString(), hi.UUIDString())
			}
		}
	})
}

// randomWindows pairs each time with a later one, up to a day later but not
// past last (dropping the rare time that is last itself: [last, last) is
// empty, ErrInvalidRange in Go).
func randomWindows(ts []time.Time, last time.Time) (from, to []time.Time) {
	for _, f := range ts {
		end := f.Add(time.Duration(1+mrand.Int64N(int64(24*time.Hour/time.Microsecond))) * time.Microsecond)
		if mrand.IntN(2) == 0 {
			end = f.Add(time.Duration(1+mrand.IntN(3)) * time.Millisecond) // short windows too
		}
		if end.After(last) {
			end = last
		}
		if f.Before(end) {
			from, to = append(from, f), append(to, end)
		}
	}
	return from, to
}

// querySQLPairs evaluates the two-column select list cols for every t of ts
// in one round trip (unnest of a timestamptz[] parameter) and returns the
// columns in the order of ts.
func querySQLPairs[T any](t *testing.T, conn *pgx.Conn, cols string, ts []time.Time) (a, b []T) {
	t.Helper()
	rows, err := conn.Query(t.Context(), "SELECT "+cols+" FROM unnest($1::timestamptz[]) WITH ORDINALITY AS u(t, i) ORDER BY i", ts)
	if err != nil {
		t.Fatalf("query %s: %v", cols, err)
	}
	defer rows.Close()
	for rows.Next() {
		var x, y T
		if err := rows.Scan(&x, &y); err != nil {
			t.Fatalf("scan %s: %v", cols, err)
		}
		a, b = append(a, x), append(b, y)
	}
	if err := rows.Err(); err != nil || len(a) != len(ts) {
		t.Fatalf("query %s: %d rows for %d times (err %v)", cols, len(a), len(ts), err)
	}
	return a, b
}

// TestSQLSCRU128TextAgreesWithGo: scru128_to_text agrees with
// SCRU128.String() and scru128_from_text round-trips it (upper and lower
// case), over 10 000 random values plus the edge values.
func TestSQLSCRU128TextAgreesWithGo(t *testing.T) {
	t.Parallel()
	ids := []idtype.SCRU128{{}, idtype.MaxSCRU128, idtype.MustParseSCRU128("00PP2Q3JHOU5BOG3RB2PN3AFH8")}
	for len(ids) < agreeSamples {
		var id idtype.SCRU128
		_, _ = rand.Read(id[:])
		ids = append(ids, id)
	}
	uuids := make([]string, len(ids))
	for i, id := range ids {
		uuids[i] = id.UUIDString()
	}
	rows, err := pgtest.Conn(t).Query(t.Context(), `
		SELECT s, scru128_from_text(s)::text, scru128_from_text(lower(s))::text,
		       scru128_to_text(decode(replace(u, '-', ''), 'hex'))
		FROM (SELECT scru128_to_text(u::uuid) AS s, u, i
		      FROM unnest($1::text[]) WITH ORDINALITY AS x(u, i)) q
		ORDER BY i`, uuids)
	if err != nil {
		t.Fatalf("query: %v", err)
	}
	defer rows.Close()
	i := 0
	for ; rows.Next(); i++ {
		var text, back, backLower, fromBytea string
		if err := rows.Scan(&text, &back, &backLower, &fromBytea); err != nil {
			t.Fatalf("scan: %v", err)
		}
		want := ids[i].String()
		if text != want || fromBytea != want || back != uuids[i] || backLower != uuids[i] {
			t.Fatalf("%s: scru128_to_text %s (bytea %s), Go %s; from_text %s, from lower text %s",
				uuids[i], text, fromBytea, want, back, backLower)
		}
		if parsed, err := idtype.ParseSCRU128(strings.ToLower(text)); err != nil || parsed != ids[i] {
			t.Fatalf("ParseSCRU128(%s) = %s, %v; want %s", text, parsed, err, ids[i])
		}
	}
	if err := rows.Err(); err != nil || i != len(ids) {
		t.Fatalf("%d rows for %d IDs (err %v)", i, len(ids), err)
	}
}

// TestSQLUntypedLiteralsResolve: scru128_to_text and scru128_timestamp take an
// untyped literal (a uuid written as text) and agree with the uuid variants.
func TestSQLUntypedLiteralsResolve(t *testing.T) {
	t.Parallel()
	const u = "017fa1de-54ba-4a5b-bf6a-0c9cf97d98d0"
	var text, typedText string
	var ts, typedTS time.Time
	err := pgtest.Conn(t).QueryRow(t.Context(), `SELECT scru128_to_text('`+u+`'), scru128_to_text('`+u+`'::uuid),
		scru128_timestamp('`+u+`'), scru128_timestamp('`+u+`'::uuid)`).Scan(&text, &typedText, &ts, &typedTS)
	if err != nil {
		t.Fatalf("untyped literals: %v", err)
	}
	id := idtype.MustParseSCRU128(u)
	if text != typedText || text != id.String() || !ts.Equal(typedTS) || !ts.Equal(id.Time()) {
		t.Errorf("literal %s: text %s / %s (Go %s), time %v / %v (Go %v)", u, text, typedText, id.String(), ts, typedTS, id.Time())
	}
}

// TestSQLBoundsPairWithHUIDRange checks what the README and the SQL comments
// say about bounds: a literal without an offset is read in the session's
// TimeZone, one with +00 is UTC whatever the TimeZone; for whole-millisecond
// bounds a and b, id >= huid_min(a) AND id < huid_min(b) is HUIDRange(a, b),
// and BETWEEN huid_min(a) AND huid_max(b) includes b's millisecond, which is
// HUIDRange(a, b + 1 ms).
func TestSQLBoundsPairWithHUIDRange(t *testing.T) {
	t.Parallel()
	conn := pgtest.Conn(t)
	if _, err := conn.Exec(t.Context(), "SET TimeZone = 'America/New_York'"); err != nil {
		t.Fatal(err)
	}
	var local, utcMin, utcEnd, utcMax int64
	err := conn.QueryRow(t.Context(), `SELECT huid_min('2026-06-01'), huid_min('2026-06-01+00'),
		huid_min('2026-07-01+00'), huid_max('2026-07-01+00')`).Scan(&local, &utcMin, &utcEnd, &utcMax)
	if err != nil {
		t.Fatal(err)
	}
	newYork, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	a, b := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)
	localLo, _, err := idtype.HUIDRange(time.Date(2026, 6, 1, 0, 0, 0, 0, newYork), b)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi, err := idtype.HUIDRange(a, b)
	if err != nil {
		t.Fatal(err)
	}
	_, hiIncl, err := idtype.HUIDRange(a, b.Add(time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if local != int64(localLo) || local == utcMin {
		t.Errorf("huid_min('2026-06-01') under New York time = %d, want New York midnight %d (not UTC's %d)", local, localLo, utcMin)
	}
	if utcMin != int64(lo) || utcEnd-1 != int64(hi) || utcMax != int64(hiIncl) {
		t.Errorf("SQL huid_min(a) %d, huid_min(b)-1 %d, huid_max(b) %d; HUIDRange(a, b) %d..%d, HUIDRange(a, b+1ms) hi %d",
			utcMin, utcEnd-1, utcMax, lo, hi, hiIncl)
	}
}
