package integration_test

import (
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sortid/sortid/idtype"
	"github.com/sortid/sortid/integration/internal/pgtest"
)

// huidTailBits is the width of a HUID's random part.
const huidTailBits = 21

// TestSQLHUIDTailsUniform draws 200 000 HUIDs in one session and checks that
// their 21 low bits look like uniform draws: every bit is set in 0.5 ± 0.005
// of them (4.5 sigma), the next value of the same millisecond is larger in
// 0.5 ± 0.01 of the pairs (9 sigma), consecutive tails are uncorrelated
// (|r| < 0.02, 9 sigma) and almost never step by +1 … +128 (expected 6e-5).
func TestSQLHUIDTailsUniform(t *testing.T) {
	t.Parallel()
	const n = 200_000
	ids := queryInt64s(t, `SELECT huid_generate() FROM generate_series(1, 200000) g ORDER BY g`)
	if len(ids) != n {
		t.Fatalf("got %d HUIDs, want %d", len(ids), n)
	}
	var ones [huidTailBits]int
	var pairs, rising, smallSteps int
	var sx, sy, sxx, syy, sxy float64
	for i, v := range ids {
		tail := uint64(v) & idtype.HUIDMaxRandom
		for b := range huidTailBits {
			ones[b] += int(tail >> b & 1)
		}
		if i == 0 || ids[i-1]>>huidTailBits != v>>huidTailBits {
			continue
		}
		prev := uint64(ids[i-1]) & idtype.HUIDMaxRandom
		pairs++
		if tail > prev {
			rising++
		}
		if d := int64(tail) - int64(prev); d >= 1 && d <= 128 {
			smallSteps++
		}
		x, y := float64(prev), float64(tail)
		sx, sy, sxx, syy, sxy = sx+x, sy+y, sxx+x*x, syy+y*y, sxy+x*y
	}
	lo, hi := 1.0, 0.0
	for b, c := range ones {
		f := float64(c) / n
		lo, hi = min(lo, f), max(hi, f)
		if math.Abs(f-0.5) > 0.005 {
			t.Errorf("bit %d set in %.4f of the tails, want 0.5 ± 0.005", b, f)
		}
	}
	if pairs < n/2 {
		t.Fatalf("only %d of %d consecutive pairs share a millisecond: too few to test", pairs, n-1)
	}
	p := float64(pairs)
	if f := float64(rising) / p; math.Abs(f-0.5) > 0.01 {
		t.Errorf("%.4f of %d same-millisecond pairs rise, want 0.5 ± 0.01", f, pairs)
	}
	r := (p*sxy - sx*sy) / math.Sqrt((p*sxx-sx*sx)*(p*syy-sy*sy))
	if math.Abs(r) > 0.02 {
		t.Errorf("lag-1 correlation of same-millisecond tails %.4f, want |r| < 0.02", r)
	}
	if f := float64(smallSteps) / p; f > 0.001 {
		t.Errorf("%.4f of same-millisecond pairs step by +1 … +128, want < 0.001 (uniform: 6e-5)", f)
	}
	t.Logf("bits set in %.4f … %.4f of the tails; %d same-millisecond pairs: %.4f rising, r = %.4f, %d small steps",
		lo, hi, pairs, float64(rising)/p, r, smallSteps)
}

// TestSQLHUIDGenerateNeverRepeatsInSession draws a million HUIDs in one
// statement, about a thousand per millisecond: huid_generate() must not
// repeat a value within the session.
func TestSQLHUIDGenerateNeverRepeatsInSession(t *testing.T) {
	t.Parallel()
	var total, distinct int64
	err := pgtest.Conn(t).QueryRow(t.Context(),
		`SELECT count(*), count(DISTINCT h) FROM (SELECT huid_generate() AS h FROM generate_series(1, 1000000)) q`).
		Scan(&total, &distinct)
	if err != nil {
		t.Fatal(err)
	}
	if total != 1_000_000 || distinct != total {
		t.Fatalf("%d HUIDs, %d distinct: a session repeated itself", total, distinct)
	}
}

// huidRepeats counts the repeated HUIDs of a table whose rows say, in
// column conn, which session made their id.
type huidRepeats struct {
	rows, within, across int64
	// expected is the birthday expectation of across: Σ over milliseconds
	// of Σ over session pairs n_a·n_b / 2^21, from the sessions' actual
	// per-millisecond counts.
	expected float64
}

func countHUIDRepeats(t *testing.T, conn *pgx.Conn, table string) huidRepeats {
	t.Helper()
	var r huidRepeats
	err := conn.QueryRow(t.Context(), fmt.Sprintf(`
		WITH per_ms AS (SELECT id >> 21 AS ms, conn, count(*) AS n FROM %[1]s GROUP BY 1, 2)
		SELECT (SELECT count(*) FROM %[1]s),
		       (SELECT count(*) - count(DISTINCT (conn, id)) FROM %[1]s),
		       (SELECT coalesce(sum(c * (c - 1) / 2), 0) FROM (SELECT count(*) AS c FROM %[1]s GROUP BY id) q),
		       (SELECT coalesce(sum((s * s - ss) / 2), 0)::float8 / 2097152
		        FROM (SELECT sum(n) AS s, sum(n * n) AS ss FROM per_ms GROUP BY ms) q)`, table)).
		Scan(&r.rows, &r.within, &r.across, &r.expected)
	if err != nil {
		t.Fatalf("count repeats in %s: %v", table, err)
	}
	return r
}

// check fails t unless no session repeated itself and the duplicate pairs
// between sessions are within E ± (5√E + 5) of the birthday expectation E.
func (r huidRepeats) check(t *testing.T) {
	t.Helper()
	if r.within != 0 {
		t.Errorf("%d of %d HUIDs repeated within a session; want 0", r.within, r.rows)
	}
	if slack := 5*math.Sqrt(r.expected) + 5; math.Abs(float64(r.across)-r.expected) > slack {
		t.Errorf("%d duplicate pairs between sessions, birthday expectation %.1f ± %.1f", r.across, r.expected, slack)
	}
	t.Logf("%d rows: %d duplicate pairs between sessions, birthday expectation %.1f", r.rows, r.across, r.expected)
}

// execConcurrently runs stmt with the arguments (c, perConn) on conns
// connections to the shared server at once, c = 0 … conns-1, and fails the
// test on any error.
func execConcurrently(t *testing.T, conns, perConn int, stmt string) {
	t.Helper()
	cs := make([]*pgx.Conn, conns)
	for c := range cs {
		cs[c] = pgtest.Conn(t)
	}
	execOnEach(t, cs, perConn, stmt)
}

// execOnEach runs stmt with the arguments (c, perConn) on every conns[c] at
// once, and fails the test on any error.
func execOnEach(t *testing.T, conns []*pgx.Conn, perConn int, stmt string) {
	t.Helper()
	errs := make([]error, len(conns))
	var wg sync.WaitGroup
	for c, conn := range conns {
		wg.Go(func() { _, errs[c] = conn.Exec(t.Context(), stmt, c, perConn) })
	}
	wg.Wait()
	for c, err := range errs {
		if err != nil {
			t.Fatalf("connection %d: %v", c, err)
		}
	}
}

// queryInt64s returns the single bigint column of every row of query, run
// on a new connection to the run's database.
func queryInt64s(t *testing.T, query string, args ...any) []int64 {
	t.Helper()
	return queryInt64sOn(t, pgtest.Conn(t), query, args...)
}

// queryInt64sOn is queryInt64s on conn.
func queryInt64sOn(t *testing.T, conn *pgx.Conn, query string, args ...any) []int64 {
	t.Helper()
	rows, err := conn.Query(t.Context(), query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return out
}
