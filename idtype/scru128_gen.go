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

// SCRU128Generator makes SCRU128 v1.0.2 IDs in strictly increasing order:
//   - a new millisecond resets the counter to a random 28-bit value;
//   - within the same millisecond the counter goes up by exactly 1;
//   - per_sec_random is renewed when the timestamp is more than 1000 ms past
//     its last renewal; per_gen_random is fresh for every ID;
//   - when the counter would pass 2^28-1 the generator moves its timestamp
//     on by one millisecond and draws a new counter (it never blocks);
//   - when the clock goes back by up to 10 s it keeps its last timestamp and
//     keeps counting; when it goes back further it restarts from the clock,
//     and only then may an ID sort below an earlier one.
//
// The reserved timestamps 0 and 2^44-1 are never emitted. A SCRU128Generator
// is safe for concurrent use; its output is strictly increasing across all
// goroutines that share it.
type SCRU128Generator struct {
	unixMilli func() int64

	mu     sync.Mutex
	random *randomSource
	state  scru128State
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
// within the process. It returns an error wrapping [ErrClockOutOfRange] when
// the clock is not 1 to 2^44-2 ms past 2020-01-01T00:00:00Z.
func GenerateSCRU128() (SCRU128, error) { return defaultSCRU128Generator.Generate() }

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
	if err != nil {
		return SCRU128{}, err
	}
	perGen, err := g.random.bits(32)
	if err != nil {
		return SCRU128{}, err
	}
	g.state = next
	return makeSCRU128(next.timestamp, next.counter, next.perSec, perGen), nil
}

// next returns the state for an ID made at clock time now (ms since 2020).
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
	if !s.started || s.timestamp-s.lastSec > perSecRenewal {
		s.lastSec = s.timestamp
		if s.perSec, err = random.bits(24); err != nil {
			return s, err
		}
	}
	s.started = true
	return s, nil
}
