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

// TestHUIDGeneratorFullMillisecondMovesOn: the last free random parts of a
// millisecond are each taken once, at that millisecond, and then the
// generator moves on to the next one, and stays there while the clock lags.
func TestHUIDGeneratorFullMillisecondMovesOn(t *testing.T) {
	t.Parallel()
	clock := newFakeClock(huidAt(5000))
	g := NewHUIDGenerator(WithClock(clock.now), WithRandom(chacha(1)))
	// The ends of the range and of bitmap words: found by scanning, as
	// redraws almost never hit them.
	free := []uint32{0, 63, 64, 1000, 1 << 20, HUIDMaxRandom}
	g.useAllBut(5000, free...)
	var got []uint32
	for i := range free {
		h := mustHUID(t, g)
		if h.Timestamp() != 5000 {
			t.Fatalf("ID %d of %d free ones has timestamp %d before the millisecond was full", i, len(free), h.Timestamp())
		}
		got = append(got, h.Random())
	}
	slices.Sort(got)
	if !slices.Equal(got, free) {
		t.Fatalf("the last %d IDs of the millisecond took random parts %v, want each free one once: %v", len(free), got, free)
	}
	h := mustHUID(t, g)
	if h.Timestamp() != 5001 {
		t.Fatalf("after the millisecond is used up: timestamp %d, want 5001", h.Timestamp())
	}
	// The clock is still at 5000: the generator keeps 5001 rather than going back.
	if h2 := mustHUID(t, g); h2.Timestamp() != 5001 || h2 == h {
		t.Fatalf("clock behind the borrowed ms: %d (timestamp %d) after %d; want a new HUID at 5001", h2, h2.Timestamp(), h)
	}
}

func TestHUIDGeneratorLastMillisecondExhausted(t *testing.T) {
	t.Parallel()
	clock := newFakeClock(huidAt(HUIDMaxTimestamp))
	g := NewHUIDGenerator(WithClock(clock.now), WithRandom(chacha(2)))
	free := []uint32{7, 8, HUIDMaxRandom}
	g.useAllBut(HUIDMaxTimestamp, free...)
	seen := map[HUID]bool{}
	for i := range free {
		h, err := g.Generate()
		if err != nil || h.Timestamp() != HUIDMaxTimestamp || seen[h] {
			t.Fatalf("free ID %d of the last millisecond: %d (timestamp %d, repeat %v), %v", i, h, h.Timestamp(), seen[h], err)
		}
		seen[h] = true
	}
	for range 2 { // and it stays refused
		if h, err := g.Generate(); !errors.Is(err, ErrClockOutOfRange) {
			t.Fatalf("ID 2^21+1 of the last millisecond = %d, %v; want ErrClockOutOfRange", h, err)
		}
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

// TestHUIDGeneratorNeverGoesBack steps the clock back by various amounts:
// the generator keeps its last millisecond and never repeats a HUID; when
// that millisecond is used up while the clock is behind, it moves on to the
// next one and stays there until the clock passes it.
func TestHUIDGeneratorNeverGoesBack(t *testing.T) {
	t.Parallel()
	const start = 2 * 3_600_000 // ms since the HUID epoch, so that 1 h back is in the window
	for _, step := range []int64{1, 10_000, 10_001, 11_000, 3_600_000} {
		t.Run(time.Duration(step*int64(time.Millisecond)).String(), func(t *testing.T) {
			t.Parallel()
			clock := newFakeClock(huidAt(start))
			g := NewHUIDGenerator(WithClock(clock.now), WithRandom(chacha(11)))
			seen := map[HUID]bool{}
			last := int64(-1)
			check := func(what string, h HUID, want int64) {
				t.Helper()
				switch {
				case seen[h]:
					t.Fatalf("%s: %d repeats an earlier HUID", what, h)
				case h.Timestamp() < last:
					t.Fatalf("%s: timestamp %d after %d", what, h.Timestamp(), last)
				case h.Timestamp() != want:
					t.Fatalf("%s: timestamp %d, want %d (clock at %d)", what, h.Timestamp(), want, clock.ms.Load()-HUIDEpochMillis)
				}
				seen[h], last = true, h.Timestamp()
			}
			for range 1000 {
				check("before the step", mustHUID(t, g), start)
			}
			clock.set(huidAt(start - step))
			for range 1000 {
				check("after the step", mustHUID(t, g), start)
			}
			batch := make([]HUID, 300)
			if err := g.Fill(batch); err != nil {
				t.Fatal(err)
			}
			for _, h := range batch {
				check("Fill after the step", h, start)
			}
			// Use up start but for two parts it has not used, the clock still behind.
			var free []uint32
			for r := uint32(0); len(free) < 2; r++ {
				if !seen[makeHUID(start, r)] {
					free = append(free, r)
				}
			}
			g.useAllBut(start, free...)
			for range free {
				check("last free parts of the millisecond", mustHUID(t, g), start)
			}
			check("millisecond used up", mustHUID(t, g), start+1)
			clock.set(huidAt(start - step/2)) // the clock moves on but is still behind
			check("clock still behind", mustHUID(t, g), start+1)
			clock.set(huidAt(start + 1)) // caught up with the generator
			for range 1000 {
				check("clock caught up", mustHUID(t, g), start+1)
			}
			clock.set(huidAt(start + 2)) // past it: the clock leads again
			check("clock ahead", mustHUID(t, g), start+2)
		})
	}
}

// TestHUIDGeneratorFollowsClockMaximum walks the clock forward and back by
// steps up to an hour: each HUID's time is the latest the clock has read,
// and none repeats.
func TestHUIDGeneratorFollowsClockMaximum(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	steps := []int64{-3_600_000, -11_000, -10_001, -10_000, -1, 0, 1, 2, 9_999, 3_600_000}
	now := int64(10 * 3_600_000)
	clock := newFakeClock(huidAt(now))
	g := NewHUIDGenerator(WithClock(clock.now), WithRandom(chacha(12)))
	seen := map[HUID]bool{}
	latest := now
	for i := range 20_000 {
		now = max(now+steps[r.IntN(len(steps))], 0)
		clock.set(huidAt(now))
		latest = max(latest, now)
		h := mustHUID(t, g)
		if h.Timestamp() != latest || seen[h] {
			t.Fatalf("ID %d: %d has timestamp %d (repeat %v), want %d, the clock's latest (it reads %d)", i, h, h.Timestamp(), seen[h], latest, now)
		}
		seen[h] = true
	}
}

func TestHUIDGeneratorRandomFailure(t *testing.T) {
	t.Parallel()
	var usedDraws []uint32 // 16 draws of a used part, then the source ends
	for range maxRedraws {
		usedDraws = append(usedDraws, 3, 0)
	}
	cases := []struct {
		name   string
		random io.Reader
		free   []uint32 // nil: a fresh millisecond; else all parts used but these
	}{
		{"first draw short", script(2, 0xffff), nil},
		{"rank of a free part", script(usedDraws...), []uint32{5, 6}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := NewHUIDGenerator(WithClock(newFakeClock(huidAt(1)).now), WithRandom(tc.random))
			if tc.free != nil {
				g.useAllBut(1, tc.free...)
			}
			if h, err := g.Generate(); !errors.Is(err, ErrRandomSource) {
				t.Fatalf("random source ends: %d, %v; want ErrRandomSource", h, err)
			}
		})
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
// millisecond past its capacity, so they race through redraws, scans for the
// last free parts and the move to the next millisecond: no HUID may repeat.
func TestHUIDGeneratorConcurrentFullMillisecond(t *testing.T) {
	t.Parallel()
	const goroutines, each = 4, 600
	g := NewHUIDGenerator(WithClock(newFakeClock(huidAt(42)).now))
	var free []uint32 // 1024 free parts, one in every 2048, at varied bits
	for i := range uint32(1024) {
		free = append(free, i*2048+i%2048)
	}
	g.useAllBut(42, free...)
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
	var at42 []uint32
	for _, h := range all {
		switch h.Timestamp() {
		case 42:
			at42 = append(at42, h.Random())
		case 43:
		default:
			t.Fatalf("HUID %d has timestamp %d, want 42 or 43", h, h.Timestamp())
		}
	}
	if !slices.Equal(at42, free) { // all is sorted, so at42 ascends
		t.Fatalf("millisecond 42 gave %d random parts, want its %d free ones, each once", len(at42), len(free))
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
	g.useAllBut(7000, free...)
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
		g.used.remove(r) // free it again for the next trial
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

// TestUseAllButIsWhatAddsMake checks the test helper useAllBut against the
// set that adding every other value makes, and that both reset to empty.
func TestUseAllButIsWhatAddsMake(t *testing.T) {
	t.Parallel()
	free := []uint32{0, 1, 64, 99_999, HUIDMaxRandom}
	added := newUsedSet()
	for v := range uint32(HUIDMaxRandom + 1) {
		if !slices.Contains(free, v) && !added.add(v) {
			t.Fatalf("add(%d) to a set without it reported it used", v)
		}
	}
	g := NewHUIDGenerator()
	g.useAllBut(9, free...)
	forged := g.used
	if g.ms != 9 || forged.words != added.words || forged.count != added.count || forged.full() {
		t.Fatalf("useAllBut: ms %d, count %d, full %v; adds: count %d (bitmaps equal: %v)",
			g.ms, forged.count, forged.full(), added.count, forged.words == added.words)
	}
	if len(forged.touched) <= maxTouchedList || len(added.touched) <= maxTouchedList {
		t.Fatalf("touched lists of %d and %d words: both must be past %d, so that reset clears all", len(forged.touched), len(added.touched), maxTouchedList)
	}
	for _, s := range []*usedSet{forged, added} {
		s.reset()
		if s.count != 0 || s.words != ([usedWords]uint64{}) || !s.add(HUIDMaxRandom) {
			t.Fatalf("after reset: count %d, bitmap empty %v", s.count, s.words == [usedWords]uint64{})
		}
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
