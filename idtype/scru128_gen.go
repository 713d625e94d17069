package idtype

import (
	"fmt"
	"sync"
	"time"
)

// perSecRenewal is the age in ms past which per_sec_random is renewed: as
// upstream v1.0.2 generators do, when the timestamp is more than 1000 ms
// past the last renewal.
const perSecRenewal = 1000

// SCRU128Generator makes SCRU128 v1.0.2 IDs. [SCRU128Generator.Generate]
// reads the clock and makes them in strictly increasing order:
//   - a new millisecond resets the counter to a random 28-bit value;
//   - within the same millisecond the counter goes up by exactly 1;
//   - per_sec_random is renewed when the timestamp is more than 1000 ms past
//     its last renewal; per_gen_random is fresh for every ID;
//   - when the counter would pass 2^28-1 the generator moves its timestamp
//     on by one millisecond and draws a new counter (it never blocks);
//   - when the clock goes back by up to 10 s it keeps its last timestamp and
//     keeps counting; when it goes back further it restarts from the clock
//     with a new random counter and per_sec_random, and only then do its IDs
//     sort below earlier ones (those of the timestamps it leaves behind); they
//     are then only as unlikely to repeat one of those as two generators'
//     IDs are (see [SCRU128Collisions]).
//
// The v1.0.2 spec says nothing of a clock going back; the 10 s allowance is
// the default of upstream's reference generators, and PostgreSQL's
// scru128_generate() follows it too. A [HUIDGenerator] never goes back
// instead.
//
// [SCRU128Generator.GenerateAt] makes IDs at given times, for backfills and
// imports, with a state of its own, so that the two never disturb each
// other's order. The reserved timestamps 0 and 2^44-1 are never emitted. A
// SCRU128Generator is safe for concurrent use; Generate's output is strictly
// increasing across all goroutines that share it, but for the exception
// above.
type SCRU128Generator struct {
	unixMilli func() int64

	mu      sync.Mutex
	random  *randomSource
	state   scru128State // Generate's
	atState scru128State // GenerateAt's
}

type scru128State struct {
	started   bool
	timestamp uint64
	counter   uint32
	lastSec   uint64 // timestamp at the last per_sec_random renewal
	perSec    uint32
}

// NewSCRU128Generator returns a SCRU128Generator. By default it reads the
// system clock and takes random bits from crypto/rand, read in 4 KiB blocks.
func NewSCRU128Generator(opts ...GeneratorOption) *SCRU128Generator {
	unixMilli, random := newGeneratorConfig(opts)
	return &SCRU128Generator{unixMilli: unixMilli, random: random}
}

var defaultSCRU128Generator = NewSCRU128Generator()

// NewSCRU128 returns a new SCRU128 from the default generator. It panics
// where [GenerateSCRU128] returns an error: when the clock is outside
// SCRU128's window.
func NewSCRU128() SCRU128 {
	id, err := GenerateSCRU128()
	if err != nil {
		panic(err)
	}
	return id
}

// GenerateSCRU128 returns a new SCRU128 from the default generator, which
// reads the system clock and crypto/rand. Its output is strictly increasing
// within the process, except after the clock goes back by more than 10 s
// (see [SCRU128Generator]). It returns an error wrapping
// [ErrClockOutOfRange] when the clock is not 1 to 2^44-2 ms past
// 2020-01-01T00:00:00Z.
func GenerateSCRU128() (SCRU128, error) { return defaultSCRU128Generator.Generate() }

// GenerateSCRU128At returns a SCRU128 carrying the time t from the default
// generator, as [SCRU128Generator.GenerateAt] does: for backfills and
// imports within one process. Concurrent backfills should each have a
// [SCRU128Generator] of their own: a call at another time in between starts
// a new random counter, so IDs made in a row at one time ascend only from
// one caller at a time. It returns an error wrapping [ErrTimeOutOfRange]
// when t is outside the window, [ErrCounterUsedUp] when the counter of its
// millisecond is used up, or [ErrRandomSource].
func GenerateSCRU128At(t time.Time) (SCRU128, error) { return defaultSCRU128Generator.GenerateAt(t) }

// Generate returns the next SCRU128. It reads from the random source, as
// big-endian integers: 4 bytes (28 bits used) for a new counter when one is
// drawn, 3 bytes for a new per_sec_random when it is renewed, then 4 bytes
// for per_gen_random. It returns an error wrapping [ErrClockOutOfRange] when
// the clock is outside SCRU128's window or the counter runs past its last
// millisecond, or wrapping [ErrRandomSource] when the random source fails;
// the generator's state is unchanged then.
func (g *SCRU128Generator) Generate() (SCRU128, error) {
	now := g.unixMilli() - SCRU128EpochMillis
	if now < 1 || now > SCRU128MaxTimestamp-1 {
		return SCRU128{}, fmt.Errorf("%w: the clock reads %s, outside SCRU128's window (1 to 2^44-2 ms after 2020-01-01T00:00:00Z)",
			ErrClockOutOfRange, time.UnixMilli(now+SCRU128EpochMillis).UTC().Format(time.RFC3339Nano))
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	next, err := g.state.next(uint64(now), g.random)
	return g.emit(&g.state, next, err)
}

// GenerateAt returns a SCRU128 whose time is t, truncated to the
// millisecond, for backfills and imports. Its fields follow the spec as for
// an ID made at t: within the same millisecond as the previous GenerateAt
// call the counter goes up by exactly 1, so IDs made one after another at
// one time strictly increase; any other millisecond, later or earlier, gets
// a random counter. per_sec_random is renewed when the timestamp is more
// than 1000 ms past its last renewal or before it (a backfill's times may
// go back); per_gen_random is fresh for every ID. GenerateAt keeps a state
// of its own, apart from [SCRU128Generator.Generate]'s, so calls of the two
// can be mixed. IDs sort by the times given, whatever the order of the
// calls; a millisecond returned to after another one starts from a new
// random counter, so its new IDs may sort below its earlier ones.
//
// It reads from the random source in Generate's order, as big-endian
// integers: 4 bytes (28 bits used) for a new counter when one is drawn, 3
// bytes for a new per_sec_random when it is renewed, then 4 bytes for
// per_gen_random.
//
// It returns an error wrapping [ErrTimeOutOfRange] when t is outside
// [2020-01-01T00:00:00.001Z, 2577-06-22T06:20:44.414Z] (SCRU128 timestamps
// 1 to 2^44-2; 0 and 2^44-1 are reserved), or wrapping [ErrCounterUsedUp]
// when the counter of t's millisecond is used up in this generator: it
// does not move to the next millisecond, as the ID must carry t. As the first counter of a
// millisecond is random, n IDs made in a row at one time hit that limit
// with a probability of about n/2^28. It returns an error wrapping
// [ErrRandomSource] when the random source fails. The generator's state is
// unchanged after an error.
func (g *SCRU128Generator) GenerateAt(t time.Time) (SCRU128, error) {
	const first, last = SCRU128EpochMillis + 1, SCRU128EpochMillis + SCRU128MaxTimestamp - 1
	if !withinMillis(t, first, last) {
		return SCRU128{}, fmt.Errorf("%w: %s is outside SCRU128's window [%s, %s] (timestamps 0 and 2^44-1 are reserved)",
			ErrTimeOutOfRange, t.UTC().Format(time.RFC3339Nano), formatMilli(first), formatMilli(last))
	}
	ts := uint64(t.UnixMilli() - SCRU128EpochMillis)
	g.mu.Lock()
	defer g.mu.Unlock()
	next, err := g.atState.nextAt(ts, g.random)
	return g.emit(&g.atState, next, err)
}

// emit draws per_gen_random and returns the ID of state next, storing next
// in *state; after an error, err's or the draw's, *state is left unchanged.
// The caller holds g.mu.
func (g *SCRU128Generator) emit(state *scru128State, next scru128State, err error) (SCRU128, error) {
	if err != nil {
		return SCRU128{}, err
	}
	perGen, err := g.random.bits(32)
	if err != nil {
		return SCRU128{}, err
	}
	*state = next
	return makeSCRU128(next.timestamp, next.counter, next.perSec, perGen), nil
}

// next returns the state for an ID made by Generate at clock time now (ms
// since 2020).
func (s scru128State) next(now uint64, random *randomSource) (scru128State, error) {
	if s.started && now+rollbackTolerance < s.timestamp {
		s.started = false // the clock went back too far: restart from it
	}
	var err error
	switch {
	case !s.started || now > s.timestamp:
		s.timestamp = now
		s.counter, err = random.bits(28)
	case s.counter < SCRU128MaxCounter:
		s.counter++
	default: // counter overflow: borrow the next millisecond
		if s.timestamp+1 > SCRU128MaxTimestamp-1 {
			return s, fmt.Errorf("%w: the counter of the window's last millisecond is used up", ErrClockOutOfRange)
		}
		s.timestamp++
		s.counter, err = random.bits(28)
	}
	if err != nil {
		return s, err
	}
	return s.renewPerSec(random)
}

// nextAt returns the state for an ID made by GenerateAt at timestamp ts (ms
// since 2020, within the window).
func (s scru128State) nextAt(ts uint64, random *randomSource) (scru128State, error) {
	var err error
	switch {
	case !s.started || ts != s.timestamp:
		s.timestamp = ts
		s.counter, err = random.bits(28)
	case s.counter < SCRU128MaxCounter:
		s.counter++
	default: // the ID must carry ts, so there is no next millisecond to borrow
		return s, fmt.Errorf("%w: the counter of %s is used up in this generator (2^28-1 reached); make this ID at another time or with another generator",
			ErrCounterUsedUp, formatMilli(int64(ts)+SCRU128EpochMillis))
	}
	if err != nil {
		return s, err
	}
	return s.renewPerSec(random)
}

// renewPerSec renews per_sec_random on the first ID, and when the timestamp
// is more than 1000 ms past the last renewal or before it (which only
// GenerateAt's times can be, as Generate restarts when it goes back), and
// marks s started.
func (s scru128State) renewPerSec(random *randomSource) (scru128State, error) {
	if !s.started || s.timestamp < s.lastSec || s.timestamp-s.lastSec > perSecRenewal {
		var err error
		if s.perSec, err = random.bits(24); err != nil {
			return s, err
		}
		s.lastSec = s.timestamp
	}
	s.started = true
	return s, nil
}
