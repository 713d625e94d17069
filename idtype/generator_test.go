package idtype

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeClock is a settable clock in Unix milliseconds.
type fakeClock struct{ ms atomic.Int64 }

func newFakeClock(unixMilli int64) *fakeClock {
	c := &fakeClock{}
	c.ms.Store(unixMilli)
	return c
}

func (c *fakeClock) now() time.Time  { return time.UnixMilli(c.ms.Load()) }
func (c *fakeClock) set(ms int64)    { c.ms.Store(ms) }
func (c *fakeClock) advance(d int64) { c.ms.Add(d) }

// script builds a random byte stream from big-endian fields of the given
// byte widths: script(3, 0x15555) is the bytes 01 55 55.
func script(fields ...uint32) *bytes.Reader {
	var b []byte
	for i := 0; i < len(fields); i += 2 {
		var buf [4]byte
		binary.BigEndian.PutUint32(buf[:], fields[i+1])
		b = append(b, buf[4-fields[i]:]...)
	}
	return bytes.NewReader(b)
}

// huidAt is the Unix ms of HUID time field ms.
func huidAt(ms int64) int64 { return HUIDEpochMillis + ms }

func TestHUIDGeneratorFollowsSpec(t *testing.T) {
	t.Parallel()
	clock := newFakeClock(huidAt(123))
	g := NewHUIDGenerator(WithClock(clock.now), WithRandom(script(3, 0xff5555)))
	h, err := g.Generate()
	if err != nil {
		t.Fatal(err)
	}
	// The random part is the low 21 bits of the 3 bytes ff 55 55: 0x1f5555.
	if h.Timestamp() != 123 || h.Random() != 0x1f5555 {
		t.Fatalf("Generate() = %d (timestamp %d random %#x), want timestamp 123 random 0x1f5555", h, h.Timestamp(), h.Random())
	}
}

func TestHUIDGeneratorRedrawsUsedRandom(t *testing.T) {
	t.Parallel()
	clock := newFakeClock(huidAt(1000))
	g := NewHUIDGenerator(WithClock(clock.now), WithRandom(script(3, 7, 3, 7, 3, 7, 3, 9, 3, 7)))
	var got []uint32
	for range 2 {
		h, err := g.Generate()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, h.Random())
	}
	if got[0] != 7 || got[1] != 9 {
		t.Fatalf("random parts %v, want [7 9]: the repeated 7s must be redrawn", got)
	}
	// A new millisecond forgets the used set: 7 is fine again.
	clock.advance(1)
	h, err := g.Generate()
	if err != nil || h.Random() != 7 || h.Timestamp() != 1001 {
		t.Fatalf("next millisecond: %d (random %d), %v; want random 7 at 1001", h, h.Random(), err)
	}
}

// chacha returns a deterministic, fast random source.
func chacha(seed byte) io.Reader {
	var s [32]byte
	s[0] = seed
	return rand.NewChaCha8(s)
}

func TestHUIDGeneratorFullMillisecondMovesOn(t *testing.T) {
	t.Parallel()
	clock := newFakeClock(huidAt(5000))
	g := NewHUIDGenerator(WithClock(clock.now), WithRandom(chacha(1)))
	seen := make([]bool, 1<<21)
	for i := 0; i < 1<<21; i++ {
		h, err := g.Generate()
		if err != nil {
			t.Fatal(err)
		}
		if h.Timestamp() != 5000 {
			t.Fatalf("ID %d has timestamp %d before the millisecond was full", i, h.Timestamp())
		}
		if seen[h.Random()] {
			t.Fatalf("ID %d repeats random part %d", i, h.Random())
		}
		seen[h.Random()] = true
	}
	h, err := g.Generate()
	if err != nil || h.Timestamp() != 5001 {
		t.Fatalf("after 2^21 IDs: %d (timestamp %d), %v; want timestamp 5001", h, h.Timestamp(), err)
	}
	// The clock is still at 5000: the generator keeps 5001 rather than going back.
	h, err = g.Generate()
	if err != nil || h.Timestamp() != 5001 {
		t.Fatalf("clock behind the borrowed ms: timestamp %d, %v; want 5001", h.Timestamp(), err)
	}
}

func TestHUIDGeneratorLastMillisecondExhausted(t *testing.T) {
	t.Parallel()
	clock := newFakeClock(huidAt(HUIDMaxTimestamp))
	g := NewHUIDGenerator(WithClock(clock.now), WithRandom(chacha(2)))
	for i := 0; i < 1<<21; i++ {
		if _, err := g.Generate(); err != nil {
			t.Fatalf("ID %d of the last millisecond: %v", i, err)
		}
	}
	if h, err := g.Generate(); !errors.Is(err, ErrClockOutOfRange) {
		t.Fatalf("ID 2^21+1 of the last millisecond = %d, %v; want ErrClockOutOfRange", h, err)
	}
}

func TestHUIDGeneratorClockWindow(t *testing.T) {
	t.Parallel()
	cases := []struct {
		unixMilli int64
		wantErr   bool
	}{
		{HUIDEpochMillis - 1, true},
		{HUIDEpochMillis, false},
		{HUIDEpochMillis + HUIDMaxTimestamp, false},
		{HUIDEpochMillis + HUIDMaxTimestamp + 1, true},
		{0, true},
	}
	for _, tc := range cases {
		g := NewHUIDGenerator(WithClock(newFakeClock(tc.unixMilli).now), WithRandom(chacha(3)))
		h, err := g.Generate()
		if tc.wantErr {
			if !errors.Is(err, ErrClockOutOfRange) {
				t.Errorf("clock %d: %d, %v; want ErrClockOutOfRange", tc.unixMilli, h, err)
			}
			continue
		}
		if err != nil || h.Time().UnixMilli() != tc.unixMilli {
			t.Errorf("clock %d: %d (time %d), %v", tc.unixMilli, h, h.Time().UnixMilli(), err)
		}
	}
}

func TestHUIDGeneratorClockRollback(t *testing.T) {
	t.Parallel()
	clock := newFakeClock(huidAt(100_000))
	g := NewHUIDGenerator(WithClock(clock.now), WithRandom(chacha(4)))
	mustTimestamp := func(want int64) {
		t.Helper()
		h, err := g.Generate()
		if err != nil || h.Timestamp() != want {
			t.Fatalf("timestamp %d, %v; want %d", h.Timestamp(), err, want)
		}
	}
	mustTimestamp(100_000)
	clock.set(huidAt(90_000)) // back exactly 10 s: keep the last millisecond
	mustTimestamp(100_000)
	clock.set(huidAt(89_999)) // back more than 10 s: restart from the clock
	mustTimestamp(89_999)
}

func TestHUIDGeneratorRandomFailure(t *testing.T) {
	t.Parallel()
	g := NewHUIDGenerator(WithClock(newFakeClock(huidAt(1)).now), WithRandom(script(2, 0xffff)))
	if h, err := g.Generate(); !errors.Is(err, ErrRandomSource) {
		t.Fatalf("short random source: %d, %v; want ErrRandomSource", h, err)
	}
}

func TestHUIDGeneratorFillSortsWhatGenerateMakes(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 5, fillChunk - 1, fillChunk, fillChunk + 1, 3*fillChunk + 7} {
		filler := NewHUIDGenerator(WithClock(newFakeClock(huidAt(42)).now), WithRandom(chacha(8)))
		single := NewHUIDGenerator(WithClock(newFakeClock(huidAt(42)).now), WithRandom(chacha(8)))
		got := make([]HUID, n)
		if err := filler.Fill(got); err != nil {
			t.Fatal(err)
		}
		want := make([]HUID, n)
		for i := range want {
			want[i] = mustHUID(t, single)
		}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("Fill of %d = %v, want the sorted output of %d Generate calls %v", n, got, n, want)
		}
	}
}

func mustHUID(t *testing.T, g *HUIDGenerator) HUID {
	t.Helper()
	h, err := g.Generate()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestHUIDGeneratorFillReadsClockPerChunk(t *testing.T) {
	t.Parallel()
	clock := newFakeClock(huidAt(500))
	reads := 0
	tick := func() time.Time { reads++; clock.advance(1); return clock.now() }
	g := NewHUIDGenerator(WithClock(tick), WithRandom(chacha(9)))
	dst := make([]HUID, 3*fillChunk)
	if err := g.Fill(dst); err != nil {
		t.Fatal(err)
	}
	if reads != 3 {
		t.Fatalf("Fill of %d read the clock %d times, want 3 (once per %d)", len(dst), reads, fillChunk)
	}
	for i, h := range dst {
		if want := int64(501 + i/fillChunk); h.Timestamp() != want {
			t.Fatalf("dst[%d] has time field %d, want %d", i, h.Timestamp(), want)
		}
		if i > 0 && dst[i-1] >= h {
			t.Fatalf("dst[%d] = %d does not ascend after %d", i, h, dst[i-1])
		}
	}
	// Generate in the same millisecond as the last chunk never repeats it.
	clock.advance(-1)
	seen := map[HUID]bool{}
	for _, h := range dst[2*fillChunk:] {
		seen[h] = true
	}
	for range 4 * fillChunk {
		if h := mustHUID(t, g); seen[h] {
			t.Fatalf("Generate repeated %d from Fill", h)
		}
	}
}

func TestHUIDGeneratorFillErrors(t *testing.T) {
	t.Parallel()
	early := NewHUIDGenerator(WithClock(newFakeClock(huidAt(-1)).now), WithRandom(chacha(10)))
	if err := early.Fill(make([]HUID, 3)); !errors.Is(err, ErrClockOutOfRange) {
		t.Errorf("Fill before the epoch: %v, want ErrClockOutOfRange", err)
	}
	short := NewHUIDGenerator(WithClock(newFakeClock(huidAt(1)).now), WithRandom(script(3, 1, 3, 2)))
	if err := short.Fill(make([]HUID, 3)); !errors.Is(err, ErrRandomSource) {
		t.Errorf("Fill of 3 with 2 random parts: %v, want ErrRandomSource", err)
	}
}

func TestFillHUIDs(t *testing.T) {
	t.Parallel()
	before := time.Now().UnixMilli() - HUIDEpochMillis
	dst := make([]HUID, 2000)
	if err := FillHUIDs(dst); err != nil {
		t.Fatal(err)
	}
	after := time.Now().UnixMilli() - HUIDEpochMillis
	for i, h := range dst {
		if h.Timestamp() < before || h.Timestamp() > after {
			t.Fatalf("dst[%d] has time field %d, outside the call [%d, %d]", i, h.Timestamp(), before, after)
		}
		if i > 0 && dst[i-1] >= h {
			t.Fatalf("dst[%d] = %d does not ascend after %d", i, h, dst[i-1])
		}
	}
}

// scru128At is the Unix ms of SCRU128 timestamp ts.
func scru128At(ts int64) int64 { return SCRU128EpochMillis + ts }

func mustSCRU128(t *testing.T, g *SCRU128Generator) SCRU128 {
	t.Helper()
	id, err := g.Generate()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func checkFields(t *testing.T, id SCRU128, ts uint64, counter, perSec, perGen uint32) {
	t.Helper()
	if id.Timestamp() != ts || id.Counter() != counter || id.PerSecRandom() != perSec || id.PerGenRandom() != perGen {
		t.Fatalf("%s fields = %d %#x %#x %#x; want %d %#x %#x %#x", id,
			id.Timestamp(), id.Counter(), id.PerSecRandom(), id.PerGenRandom(), ts, counter, perSec, perGen)
	}
}

func TestSCRU128GeneratorSequence(t *testing.T) {
	t.Parallel()
	clock := newFakeClock(scru128At(5000))
	random := script(
		4, 0xf0000010, 3, 0xabcdef, 4, 0x11111111, // first ID: counter (28 of 32 bits), per_sec, per_gen
		4, 0x22222222, // same ms: counter+1, per_gen only
		4, 0x00000100, 4, 0x33333333, // new ms (+1000): new counter, per_sec kept (1000 is not > 1000)
		4, 0x00000200, 3, 0x123456, 4, 0x44444444, // +1001 past renewal: new counter and per_sec
	)
	g := NewSCRU128Generator(WithClock(clock.now), WithRandom(random))
	checkFields(t, mustSCRU128(t, g), 5000, 0x0000010, 0xabcdef, 0x11111111)
	checkFields(t, mustSCRU128(t, g), 5000, 0x0000011, 0xabcdef, 0x22222222)
	clock.set(scru128At(6000))
	checkFields(t, mustSCRU128(t, g), 6000, 0x100, 0xabcdef, 0x33333333)
	clock.set(scru128At(6001))
	checkFields(t, mustSCRU128(t, g), 6001, 0x200, 0x123456, 0x44444444)
	if random.Len() != 0 {
		t.Fatalf("%d random bytes left unread: the generator read fewer bytes than documented", random.Len())
	}
}

func TestSCRU128GeneratorCounterOverflow(t *testing.T) {
	t.Parallel()
	clock := newFakeClock(scru128At(7000))
	random := script(
		4, 0x0ffffffe, 3, 1, 4, 0,
		4, 1, // counter 0x0fffffff
		4, 0x00000005, 4, 2, // overflow: timestamp+1, new counter
		4, 3, // clock still at 7000: keep 7001, counter+1
	)
	g := NewSCRU128Generator(WithClock(clock.now), WithRandom(random))
	a := mustSCRU128(t, g)
	b := mustSCRU128(t, g)
	c := mustSCRU128(t, g)
	d := mustSCRU128(t, g)
	checkFields(t, a, 7000, 0x0ffffffe, 1, 0)
	checkFields(t, b, 7000, 0x0fffffff, 1, 1)
	checkFields(t, c, 7001, 5, 1, 2)
	checkFields(t, d, 7001, 6, 1, 3)
	if !(a.Compare(b) < 0 && b.Compare(c) < 0 && c.Compare(d) < 0) {
		t.Fatal("not ascending across the overflow")
	}
}

func TestSCRU128GeneratorClockRollback(t *testing.T) {
	t.Parallel()
	clock := newFakeClock(scru128At(100_000))
	random := script(
		4, 0x100, 3, 0xaaaaaa, 4, 1,
		4, 2, // back 10 s exactly: keep 100000, counter+1
		4, 0x500, 3, 0xbbbbbb, 4, 3, // back more: restart with new counter and per_sec
	)
	g := NewSCRU128Generator(WithClock(clock.now), WithRandom(random))
	checkFields(t, mustSCRU128(t, g), 100_000, 0x100, 0xaaaaaa, 1)
	clock.set(scru128At(90_000))
	checkFields(t, mustSCRU128(t, g), 100_000, 0x101, 0xaaaaaa, 2)
	clock.set(scru128At(89_999))
	checkFields(t, mustSCRU128(t, g), 89_999, 0x500, 0xbbbbbb, 3)
}

func TestSCRU128GeneratorClockWindow(t *testing.T) {
	t.Parallel()
	cases := []struct {
		ts      int64
		wantErr bool
	}{
		{-1, true},
		{0, true}, // reserved
		{1, false},
		{SCRU128MaxTimestamp - 1, false},
		{SCRU128MaxTimestamp, true}, // reserved
	}
	for _, tc := range cases {
		g := NewSCRU128Generator(WithClock(newFakeClock(scru128At(tc.ts)).now), WithRandom(chacha(5)))
		id, err := g.Generate()
		if tc.wantErr != (err != nil) || (err != nil && !errors.Is(err, ErrClockOutOfRange)) {
			t.Errorf("clock at timestamp %d: %v, %v; want error %v", tc.ts, id, err, tc.wantErr)
		}
		if err == nil && id.Timestamp() != uint64(tc.ts) {
			t.Errorf("clock at timestamp %d gave timestamp %d", tc.ts, id.Timestamp())
		}
	}
}

func TestSCRU128GeneratorNeverEmitsReservedMax(t *testing.T) {
	t.Parallel()
	clock := newFakeClock(scru128At(SCRU128MaxTimestamp - 1))
	g := NewSCRU128Generator(WithClock(clock.now), WithRandom(script(4, 0x0fffffff, 3, 0, 4, 0)))
	checkFields(t, mustSCRU128(t, g), SCRU128MaxTimestamp-1, 0x0fffffff, 0, 0)
	if id, err := g.Generate(); !errors.Is(err, ErrClockOutOfRange) {
		t.Fatalf("counter overflow in the last millisecond = %v, %v; want ErrClockOutOfRange", id, err)
	}
}

func TestSCRU128GeneratorRandomFailureKeepsState(t *testing.T) {
	t.Parallel()
	clock := newFakeClock(scru128At(1000))
	// Enough for one ID and a counter, then the source ends mid-ID.
	random := script(4, 0x10, 3, 0x1, 4, 0x1, 4, 0x20)
	g := NewSCRU128Generator(WithClock(clock.now), WithRandom(random))
	first := mustSCRU128(t, g)
	clock.advance(1)
	if id, err := g.Generate(); !errors.Is(err, ErrRandomSource) {
		t.Fatalf("exhausted source: %v, %v; want ErrRandomSource", id, err)
	}
	if g.state.timestamp != first.Timestamp() || g.state.counter != first.Counter() {
		t.Fatalf("state changed by a failed Generate: %+v", g.state)
	}
}

// TestSCRU128GeneratorAscendsUnderJitter drives the clock forward and back
// (within the 10 s tolerance) and checks that output strictly ascends and
// that the counter steps by exactly 1 within a timestamp.
func TestSCRU128GeneratorAscendsUnderJitter(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	clock := newFakeClock(scru128At(1_000_000))
	g := NewSCRU128Generator(WithClock(clock.now), WithRandom(chacha(6)))
	prev := mustSCRU128(t, g)
	for i := range 100_000 {
		clock.advance(r.Int64N(7) - 3) // mostly small steps both ways
		id := mustSCRU128(t, g)
		if prev.Compare(id) >= 0 {
			t.Fatalf("ID %d: %s does not ascend from %s", i, id, prev)
		}
		if id.Timestamp() == prev.Timestamp() && id.Counter() != prev.Counter()+1 {
			t.Fatalf("ID %d: counter %d after %d in the same millisecond", i, id.Counter(), prev.Counter())
		}
		prev = id
	}
}

func TestSCRU128PerSecRandomRenewedEverySecond(t *testing.T) {
	t.Parallel()
	clock := newFakeClock(scru128At(10_000))
	g := NewSCRU128Generator(WithClock(clock.now), WithRandom(chacha(7)))
	lastRenewal := int64(-1)
	prev := mustSCRU128(t, g)
	renewedAt := int64(prev.Timestamp())
	for range 5000 {
		clock.advance(1)
		id := mustSCRU128(t, g)
		if id.PerSecRandom() != prev.PerSecRandom() {
			lastRenewal = renewedAt
			renewedAt = int64(id.Timestamp())
			if gap := renewedAt - lastRenewal; gap != 1001 {
				t.Fatalf("per_sec_random renewed after %d ms; want 1001 (upstream: > 1000 ms)", gap)
			}
		}
		if int64(id.Timestamp())-renewedAt > 1000 {
			t.Fatalf("per_sec_random not renewed for %d ms", int64(id.Timestamp())-renewedAt)
		}
		prev = id
	}
	if lastRenewal < 0 {
		t.Fatal("per_sec_random was never renewed over 5 s")
	}
}

func TestFastClockTracksWallClock(t *testing.T) {
	t.Parallel()
	c := newFastClock()
	before := time.Now().UnixMilli()
	got := c.unixMilli()
	after := time.Now().UnixMilli()
	if got < before-1 || got > after+1 {
		t.Fatalf("unixMilli = %d, want within [%d, %d]", got, before, after)
	}
	// Pretend the anchor is stale and the wall clock has been stepped by an
	// hour since: the next reading re-anchors and follows the wall clock.
	stale := time.Now().Add(-2 * reanchorInterval)
	c.anchor.Store(&clockAnchor{mono: stale, unixNano: stale.UnixNano() + int64(time.Hour)})
	if got, now := c.unixMilli(), time.Now().UnixMilli(); got < now-5 || got > now+5 {
		t.Fatalf("after a wall-clock step unixMilli = %d, want about %d", got, now)
	}
}

func TestDefaultGenerators(t *testing.T) {
	t.Parallel()
	now := time.Now()
	h := NewHUID()
	s := NewSCRU128()
	for _, got := range []time.Time{h.Time(), s.Time()} {
		if d := got.Sub(now); d < -time.Second || d > time.Second {
			t.Errorf("default generator time %v is %v away from the clock", got, d)
		}
	}
	if _, err := GenerateHUID(); err != nil {
		t.Error(err)
	}
	if _, err := GenerateSCRU128(); err != nil {
		t.Error(err)
	}
}

// TestHUIDGeneratorConcurrentFullMillisecond has goroutines share one frozen
// millisecond past its 2^21 capacity, so they race through claims, scans
// and the move to the next millisecond: no HUID may repeat.
func TestHUIDGeneratorConcurrentFullMillisecond(t *testing.T) {
	t.Parallel()
	const goroutines, each = 4, 600_000
	g := NewHUIDGenerator(WithClock(newFakeClock(huidAt(42)).now))
	results := make([][]HUID, goroutines)
	var wg sync.WaitGroup
	for i := range goroutines {
		wg.Go(func() {
			out := make([]HUID, each)
			for j := range out {
				h, err := g.Generate()
				if err != nil {
					t.Error(err)
					return
				}
				out[j] = h
			}
			results[i] = out
		})
	}
	wg.Wait()
	all := slices.Concat(results...)
	slices.Sort(all)
	if i := firstRepeat(all); i >= 0 {
		t.Fatalf("HUID %d repeated", all[i])
	}
	if first, last := all[0].Timestamp(), all[len(all)-1].Timestamp(); first != 42 || last != 43 {
		t.Fatalf("timestamps span %d..%d, want 42..43 (2.4M IDs fill one ms and spill into the next)", first, last)
	}
}

// TestHUIDGeneratorRestartAfterLongRollback checks that after the clock goes
// back more than 10 s the generator restarts from it and still never
// repeats within the new millisecond.
func TestHUIDGeneratorRestartAfterLongRollback(t *testing.T) {
	t.Parallel()
	clock := newFakeClock(huidAt(50_000))
	g := NewHUIDGenerator(WithClock(clock.now), WithRandom(chacha(8)))
	for range 100_000 {
		if _, err := g.Generate(); err != nil {
			t.Fatal(err)
		}
	}
	clock.set(huidAt(20_000))
	seen := map[HUID]bool{}
	for range 100_000 {
		h, err := g.Generate()
		if err != nil || h.Timestamp() != 20_000 || seen[h] {
			t.Fatalf("after a restart: %d (timestamp %d), %v, repeated %v", h, h.Timestamp(), err, seen[h])
		}
		seen[h] = true
	}
}

// TestHUIDGeneratorCrowdedPickIsUniform leaves four free random parts in a
// millisecond, after used runs of very different lengths, so that Generate
// falls back from redrawing to drawing among the free ones: each must come
// out equally often (spec §5), not in proportion to the run before it.
func TestHUIDGeneratorCrowdedPickIsUniform(t *testing.T) {
	t.Parallel()
	free := []uint32{1000, 1001, 500_000, HUIDMaxRandom}
	clock := newFakeClock(huidAt(7000))
	g := NewHUIDGenerator(WithClock(clock.now), WithRandom(chacha(9)))
	if _, err := g.Generate(); err != nil { // sets g.ms and allocates g.used
		t.Fatal(err)
	}
	g.used.reset()
	for v := range uint32(HUIDMaxRandom + 1) {
		if !slices.Contains(free, v) {
			g.used.add(v)
		}
	}
	const trials = 8000
	counts := map[uint32]int{}
	for range trials {
		h, err := g.Generate()
		if err != nil {
			t.Fatal(err)
		}
		r := h.Random()
		if h.Timestamp() != 7000 || !slices.Contains(free, r) {
			t.Fatalf("Generate() = timestamp %d random %d, want timestamp 7000 and one of %v", h.Timestamp(), r, free)
		}
		counts[r]++
		g.used.words[r/64] &^= 1 << (r % 64) // free it again for the next trial
		g.used.count--
	}
	want := float64(trials) / float64(len(free))
	chi2 := 0.0
	for _, v := range free {
		d := float64(counts[v]) - want
		chi2 += d * d / want
	}
	// 3 degrees of freedom: P(chi2 > 27.9) = 1e-5.
	if chi2 > 27.9 {
		t.Fatalf("picks %v over %d trials: chi-square %.1f, not uniform over the free parts", counts, trials, chi2)
	}
}

func TestRandomSourceBelow(t *testing.T) {
	t.Parallel()
	for _, n := range []uint32{1, 2, 3, 5, 64, 1000, 1 << 21} {
		s := newRandomSource(chacha(byte(n)), 64)
		counts := make([]int, min(n, 8))
		for range 4000 {
			v, err := s.below(n)
			if err != nil {
				t.Fatal(err)
			}
			if v >= n {
				t.Fatalf("below(%d) = %d", n, v)
			}
			if n <= 8 {
				counts[v]++
			}
		}
		for v, c := range counts {
			if want := 4000 / int(n); n <= 8 && (c < want*3/4 || c > want*5/4) {
				t.Errorf("below(%d) gave %d %d times in 4000, want about %d", n, v, c, want)
			}
		}
	}
}

// TestGeneratorsRefuseFarClocks: a clock reading whose Unix milliseconds
// wrap around into a window is refused, not taken for a time in it.
func TestGeneratorsRefuseFarClocks(t *testing.T) {
	t.Parallel()
	for _, at := range []time.Time{
		wrapsToHUIDEpoch,
		time.Unix(1<<61+SCRU128EpochMillis/1000+1, 0),
		time.Unix(-1<<61+HUIDEpochMillis/1000, 0),
	} {
		clock := func() time.Time { return at }
		if h, err := NewHUIDGenerator(WithClock(clock), WithRandom(chacha(3))).Generate(); !errors.Is(err, ErrClockOutOfRange) {
			t.Errorf("HUID with the clock at %v: %d, %v; want ErrClockOutOfRange", at, h, err)
		}
		if id, err := NewSCRU128Generator(WithClock(clock), WithRandom(chacha(3))).Generate(); !errors.Is(err, ErrClockOutOfRange) {
			t.Errorf("SCRU128 with the clock at %v: %v, %v; want ErrClockOutOfRange", at, id, err)
		}
	}
}
