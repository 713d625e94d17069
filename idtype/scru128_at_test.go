package idtype

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// scru128AtTimes are times given to GenerateAt, with the time of the ID it
// must make (truncated to the millisecond), or the zero time where it must
// refuse. FuzzSCRU128GenerateAt starts from them too.
var scru128AtTimes = []struct {
	name string
	t    time.Time
	want time.Time
}{
	{"first valid millisecond", time.Date(2020, 1, 1, 0, 0, 0, 1_000_000, time.UTC), time.UnixMilli(SCRU128EpochMillis + 1)},
	{"first valid millisecond, its last nanosecond", time.Date(2020, 1, 1, 0, 0, 0, 1_999_999, time.UTC), time.UnixMilli(SCRU128EpochMillis + 1)},
	{"reserved timestamp 0", time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), time.Time{}},
	{"reserved timestamp 0, its last nanosecond", time.Date(2020, 1, 1, 0, 0, 0, 999_999, time.UTC), time.Time{}},
	{"one ms before the epoch", time.Date(2019, 12, 31, 23, 59, 59, 999_000_000, time.UTC), time.Time{}},
	{"last valid millisecond", time.Date(2577, 6, 22, 6, 20, 44, 414_000_000, time.UTC), time.UnixMilli(SCRU128EpochMillis + SCRU128MaxTimestamp - 1)},
	{"last valid millisecond, its last nanosecond", time.Date(2577, 6, 22, 6, 20, 44, 414_999_999, time.UTC), time.UnixMilli(SCRU128EpochMillis + SCRU128MaxTimestamp - 1)},
	{"reserved timestamp 2^44-1", time.Date(2577, 6, 22, 6, 20, 44, 415_000_000, time.UTC), time.Time{}},
	{"past 44 bits", time.Date(2577, 6, 22, 6, 20, 44, 416_000_000, time.UTC), time.Time{}},
	{"microseconds in another zone", time.Date(2026, 6, 1, 14, 30, 0, 123_456_789, time.FixedZone("UTC+2", 2*3600)), time.Date(2026, 6, 1, 12, 30, 0, 123_000_000, time.UTC)},
	{"zero time", time.Time{}, time.Time{}},
	{"before 1970", time.Unix(-1, 999_999_999), time.Time{}},
	// Its Unix milliseconds overflow int64 and wrap to 2026-01-01.
	{"UnixMilli wraps into the window", time.Unix(1<<61+1767225600, 0), time.Time{}},
}

func TestSCRU128GenerateAtWindow(t *testing.T) {
	t.Parallel()
	for _, tc := range scru128AtTimes {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			random := bytes.NewReader(bytes.Repeat([]byte{0x5a}, 11))
			g := NewSCRU128Generator(WithRandom(random))
			id, err := g.GenerateAt(tc.t)
			if tc.want.IsZero() {
				if !errors.Is(err, ErrTimeOutOfRange) {
					t.Fatalf("GenerateAt(%v) = %s, %v; want ErrTimeOutOfRange", tc.t, id, err)
				}
				for _, part := range []string{tc.t.UTC().Format(time.RFC3339Nano), "[2020-01-01T00:00:00.001Z, 2577-06-22T06:20:44.414Z]"} {
					if !strings.Contains(err.Error(), part) {
						t.Errorf("error %q does not name %s", err, part)
					}
				}
				if g.atState != (scru128State{}) || random.Len() != 11 {
					t.Errorf("refused GenerateAt changed the state to %+v or read %d random bytes", g.atState, 11-random.Len())
				}
				return
			}
			if err != nil || !id.Time().Equal(tc.want) || !id.Time().Equal(tc.t.Truncate(time.Millisecond)) {
				t.Fatalf("GenerateAt(%v) = %s (time %v), %v; want time %v", tc.t, id, id.Time(), err, tc.want)
			}
			if ts := id.Timestamp(); ts == 0 || ts == SCRU128MaxTimestamp {
				t.Fatalf("GenerateAt(%v) gave the reserved timestamp %d", tc.t, ts)
			}
		})
	}
}

// atStep is one call in a scenario: GenerateAt at SCRU128 timestamp ms plus
// ns nanoseconds, or Generate with the clock at ms; random is the script of
// the bytes it must read (width, value pairs), want its fields or, with
// wantErr, the sentinel of the error it must return.
type atStep struct {
	generate bool
	ms, ns   int64
	random   []uint32
	counter  uint32
	perSec   uint32
	perGen   uint32
	wantErr  error
}

func at(ms int64, random ...uint32) atStep { return atStep{ms: ms, random: random} }

func (s atStep) fields(counter, perSec uint32) atStep {
	s.counter, s.perSec = counter, perSec
	if n := len(s.random); n > 0 {
		s.perGen = s.random[n-1]
	}
	return s
}

// TestSCRU128GenerateAtRules runs GenerateAt (and Generate) through
// scenarios, checking every ID's fields and that each call reads exactly
// the random bytes documented, in order.
func TestSCRU128GenerateAtRules(t *testing.T) {
	t.Parallel()
	withNs := func(s atStep, ns int64) atStep { s.ns = ns; return s }
	clock := func(s atStep) atStep { s.generate = true; return s }
	refused := func(ms int64, err error) atStep { return atStep{ms: ms, wantErr: err} }
	scenarios := []struct {
		name  string
		steps []atStep
	}{
		{"one millisecond counts up by 1, whatever its nanoseconds", []atStep{
			at(5000, 4, 0xf0000010, 3, 0xabcdef, 4, 1).fields(0x10, 0xabcdef),
			withNs(at(5000, 4, 2), 999_999).fields(0x11, 0xabcdef),
			withNs(at(5000, 4, 3), 1).fields(0x12, 0xabcdef),
		}},
		{"a later millisecond draws a counter", []atStep{
			at(5000, 4, 0x10, 3, 0xabcdef, 4, 1).fields(0x10, 0xabcdef),
			at(5001, 4, 0x500, 4, 2).fields(0x500, 0xabcdef),
		}},
		{"an earlier millisecond draws a counter and renews per_sec_random", []atStep{
			at(5000, 4, 0x10, 3, 0xabcdef, 4, 1).fields(0x10, 0xabcdef),
			at(4999, 4, 0x20, 3, 0x123456, 4, 2).fields(0x20, 0x123456),
			at(4999, 4, 3).fields(0x21, 0x123456),
		}},
		{"a millisecond returned to starts afresh", []atStep{
			at(5000, 4, 0x10, 3, 0xabcdef, 4, 1).fields(0x10, 0xabcdef),
			at(6000, 4, 0x900, 4, 2).fields(0x900, 0xabcdef),
			at(5000, 4, 0x30, 4, 3).fields(0x30, 0xabcdef),
		}},
		{"per_sec_random kept at 1000 ms past its renewal, renewed at 1001", []atStep{
			at(5000, 4, 0x10, 3, 0xabcdef, 4, 1).fields(0x10, 0xabcdef),
			at(6000, 4, 0x20, 4, 2).fields(0x20, 0xabcdef),
			at(6001, 4, 0x30, 3, 0x123456, 4, 3).fields(0x30, 0x123456),
			at(7001, 4, 0x40, 4, 4).fields(0x40, 0x123456),
			at(7002, 4, 0x50, 3, 0x654321, 4, 5).fields(0x50, 0x654321),
		}},
		{"per_sec_random kept going back to its renewal, renewed before it", []atStep{
			at(5000, 4, 0x10, 3, 0xabcdef, 4, 1).fields(0x10, 0xabcdef),
			at(5500, 4, 0x20, 4, 2).fields(0x20, 0xabcdef),
			at(5000, 4, 0x30, 4, 3).fields(0x30, 0xabcdef),
			at(4999, 4, 0x40, 3, 0x123456, 4, 4).fields(0x40, 0x123456),
		}},
		{"a used-up counter is refused, not moved to the next millisecond", []atStep{
			at(7000, 4, 0xfffffffe, 3, 1, 4, 1).fields(0x0ffffffe, 1),
			at(7000, 4, 2).fields(0x0fffffff, 1),
			refused(7000, ErrCounterUsedUp),
			refused(7000, ErrCounterUsedUp),
			at(7001, 4, 0x60, 4, 3).fields(0x60, 1),
			at(7000, 4, 0x70, 4, 4).fields(0x70, 1),
		}},
		{"the first counter drawn may be the last", []atStep{
			at(SCRU128MaxTimestamp-1, 4, 0x0fffffff, 3, 9, 4, 1).fields(0x0fffffff, 9),
			refused(SCRU128MaxTimestamp-1, ErrCounterUsedUp),
		}},
		{"Generate and GenerateAt keep their own counters and per_sec_random", []atStep{
			clock(at(5000, 4, 0x100, 3, 0xaaaaaa, 4, 1).fields(0x100, 0xaaaaaa)),
			at(5000, 4, 0x900, 3, 0xbbbbbb, 4, 2).fields(0x900, 0xbbbbbb),
			clock(at(5000, 4, 3).fields(0x101, 0xaaaaaa)),
			at(5000, 4, 4).fields(0x901, 0xbbbbbb),
			at(1000, 4, 0x50, 3, 0xcccccc, 4, 5).fields(0x50, 0xcccccc),
			clock(at(5000, 4, 6).fields(0x102, 0xaaaaaa)),
			clock(at(6001, 4, 0x200, 3, 0xdddddd, 4, 7).fields(0x200, 0xdddddd)),
			at(1000, 4, 8).fields(0x51, 0xcccccc),
		}},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			var all []uint32
			for _, s := range sc.steps {
				all = append(all, s.random...)
			}
			random := script(all...)
			clock := newFakeClock(0)
			g := NewSCRU128Generator(WithClock(clock.now), WithRandom(random))
			left := random.Len()
			for i, s := range sc.steps {
				clock.set(scru128At(s.ms))
				before, beforeClock := g.atState, g.state
				var id SCRU128
				var err error
				if s.generate {
					id, err = g.Generate()
				} else {
					id, err = g.GenerateAt(time.UnixMilli(scru128At(s.ms)).Add(time.Duration(s.ns)))
				}
				for j := 0; j < len(s.random); j += 2 {
					left -= int(s.random[j])
				}
				if random.Len() != left {
					t.Fatalf("step %d read %d random bytes more than documented", i, left-random.Len())
				}
				if s.wantErr != nil {
					if !errors.Is(err, s.wantErr) || g.atState != before || g.state != beforeClock {
						t.Fatalf("step %d: %s, %v, state %+v (was %+v); want %v and the state unchanged", i, id, err, g.atState, before, s.wantErr)
					}
					continue
				}
				if err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				checkFields(t, id, uint64(s.ms), s.counter, s.perSec, s.perGen)
				if s.generate && g.atState != before || !s.generate && g.state != beforeClock {
					t.Fatalf("step %d changed the other method's state", i)
				}
			}
		})
	}
}

func TestSCRU128GenerateAtCounterUsedUpMessage(t *testing.T) {
	t.Parallel()
	g := NewSCRU128Generator(WithRandom(script(4, 0x0fffffff, 3, 1, 4, 1)))
	when := time.Date(2026, 6, 1, 12, 0, 0, 123_456_000, time.UTC)
	if _, err := g.GenerateAt(when); err != nil {
		t.Fatal(err)
	}
	_, err := g.GenerateAt(when)
	if !errors.Is(err, ErrCounterUsedUp) || errors.Is(err, ErrTimeOutOfRange) {
		t.Errorf("error %v: want ErrCounterUsedUp only (the time is valid)", err)
	}
	for _, part := range []string{"2026-06-01T12:00:00.123Z", "used up", "another time or with another generator"} {
		if err == nil || !strings.Contains(err.Error(), part) {
			t.Errorf("error %v does not say %q", err, part)
		}
	}
}

// TestSCRU128GenerateAtRandomFailureKeepsState fails each of the three
// reads of GenerateAt in turn; the state must stay as it was, so the call
// that follows, with the bytes there, makes the ID the failed one would
// have.
func TestSCRU128GenerateAtRandomFailureKeepsState(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		ms      int64
		partial []uint32 // what the source holds at the failed call
		rest    []uint32 // what it is given after
		counter uint32
		perSec  uint32
	}{
		{"new counter", 8500, nil, []uint32{4, 0x77, 4, 9}, 0x77, 0x1111},
		{"new per_sec_random", 9001, []uint32{4, 0x77}, []uint32{4, 0x77, 3, 0x2222, 4, 9}, 0x77, 0x2222},
		{"per_gen_random, same millisecond", 8000, nil, []uint32{4, 9}, 0x11, 0x1111},
		{"per_gen_random, new millisecond", 8001, []uint32{4, 0x77}, []uint32{4, 0x77, 4, 9}, 0x77, 0x1111},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var src bytes.Buffer
			src.ReadFrom(script(4, 0x10, 3, 0x1111, 4, 1))
			g := NewSCRU128Generator(WithRandom(&src))
			if _, err := g.GenerateAt(time.UnixMilli(scru128At(8000))); err != nil {
				t.Fatal(err)
			}
			before := g.atState
			src.ReadFrom(script(tc.partial...))
			when := time.UnixMilli(scru128At(tc.ms))
			if id, err := g.GenerateAt(when); !errors.Is(err, ErrRandomSource) || g.atState != before {
				t.Fatalf("failing source: %s, %v, state %+v (was %+v); want ErrRandomSource and the state unchanged", id, err, g.atState, before)
			}
			src.Reset()
			src.ReadFrom(script(tc.rest...))
			id, err := g.GenerateAt(when)
			if err != nil {
				t.Fatal(err)
			}
			checkFields(t, id, uint64(tc.ms), tc.counter, tc.perSec, 9)
		})
	}
}

// TestSCRU128GenerateAtManyAtOneTime makes 100 000 IDs at one time: they
// strictly increase, the counter going up by exactly 1.
func TestSCRU128GenerateAtManyAtOneTime(t *testing.T) {
	t.Parallel()
	g := NewSCRU128Generator(WithRandom(io.MultiReader(script(4, 0x1000), chacha(12))))
	when := time.Date(2024, 2, 29, 23, 59, 59, 999_500_000, time.UTC)
	prev, err := g.GenerateAt(when)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100_000 {
		id, err := g.GenerateAt(when)
		if err != nil {
			t.Fatalf("ID %d: %v", i, err)
		}
		if id.Compare(prev) <= 0 || id.Counter() != prev.Counter()+1 || id.PerSecRandom() != prev.PerSecRandom() ||
			!id.Time().Equal(when.Truncate(time.Millisecond)) {
			t.Fatalf("ID %d: %s (counter %d, time %v) after %s (counter %d)", i, id, id.Counter(), id.Time(), prev, prev.Counter())
		}
		prev = id
	}
}

// TestSCRU128GenerateAtConcurrent has goroutines share a generator, most
// calling GenerateAt at one time and some Generate with the clock at that
// same millisecond: GenerateAt's counters are one run without gaps or
// repeats, and Generate's IDs still strictly ascend in each goroutine.
func TestSCRU128GenerateAtConcurrent(t *testing.T) {
	t.Parallel()
	const atGoroutines, clockGoroutines, each = 8, 2, 5000
	when := time.UnixMilli(scru128At(3_000_000))
	g := NewSCRU128Generator(WithClock(newFakeClock(scru128At(3_000_000)).now),
		WithRandom(io.MultiReader(script(4, 0, 3, 0, 4, 0), chacha(13))))
	first, err := g.GenerateAt(when) // counter 0, so that the run cannot reach 2^28-1
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]SCRU128, atGoroutines+clockGoroutines)
	var wg sync.WaitGroup
	for i := range out {
		wg.Go(func() {
			for range each {
				var id SCRU128
				var err error
				if i < atGoroutines {
					id, err = g.GenerateAt(when)
				} else {
					id, err = g.Generate()
				}
				if err != nil {
					t.Error(err)
					return
				}
				out[i] = append(out[i], id)
			}
		})
	}
	wg.Wait()
	counters := []uint32{first.Counter()}
	for i, ids := range out {
		if len(ids) != each {
			t.Fatalf("goroutine %d made %d IDs, want %d", i, len(ids), each)
		}
		for j, id := range ids {
			if j > 0 && id.Compare(ids[j-1]) <= 0 {
				t.Fatalf("goroutine %d: ID %d %s does not ascend from %s", i, j, id, ids[j-1])
			}
			if i < atGoroutines {
				if !id.Time().Equal(when) {
					t.Fatalf("GenerateAt gave time %v, want %v", id.Time(), when)
				}
				counters = append(counters, id.Counter())
			}
		}
	}
	slices.Sort(counters)
	for i, c := range counters {
		if c != uint32(i) {
			t.Fatalf("GenerateAt's sorted counters have %d at position %d: not one run from the first (0)", c, i)
		}
	}
}

func TestGenerateSCRU128At(t *testing.T) {
	t.Parallel()
	when := time.Date(2023, 7, 14, 9, 26, 53, 589_793_238, time.UTC)
	a, errA := GenerateSCRU128At(when)
	b, errB := GenerateSCRU128At(when)
	if errA != nil || errB != nil || !a.Time().Equal(when.Truncate(time.Millisecond)) || b.Compare(a) <= 0 {
		t.Fatalf("GenerateSCRU128At twice: %s, %v, then %s, %v; want time %v, ascending", a, errA, b, errB, when.Truncate(time.Millisecond))
	}
	if id, err := GenerateSCRU128At(time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC)); !errors.Is(err, ErrTimeOutOfRange) {
		t.Fatalf("GenerateSCRU128At(2019) = %s, %v; want ErrTimeOutOfRange", id, err)
	}
}
