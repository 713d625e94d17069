package idtype

import (
	"fmt"
	"math/bits"
	"slices"
	"sync"
	"time"
)

// maxRedraws bounds how often Generate redraws a random part already used
// in the current millisecond before it draws among the free ones by
// scanning. Redraws only become frequent when most of the 2^21 values are
// used.
const maxRedraws = 16

// HUIDGenerator makes HUIDs following spec §5, with two rules on top of it
// so that one generator never returns the same HUID twice, whatever the
// clock does:
//   - within a millisecond it never reuses a random part: it redraws one it
//     has already used, and once all 2^21 are used it moves on to the next
//     millisecond, ahead of the clock;
//   - it never goes back: while the clock reads a millisecond before the
//     last one it used (the clock was stepped back, by any amount, or has
//     not yet caught up with a move on), it keeps that millisecond, moving
//     on from it as above when it is used up, until the clock passes it.
//
// The time fields of one generator's HUIDs therefore never decrease, in the
// order the calls take its lock; within a millisecond their order is random
// (spec §6.1). The price is accuracy: after the clock steps back by d, the
// generator's HUIDs carry times ahead of the clock, by up to d (plus a
// millisecond per 2^21 HUIDs), until the clock catches up, so [HUID.Time]
// is then later than the moment the HUID was made and a time-window query
// ([HUIDRange]) finds it in the window of that later time. The HUID spec
// has no rule for a clock that goes back: §5 takes the time field from the
// clock read for each ID, and §8 asks for synchronized clocks (NTP) to
// preserve the expected temporal ordering; this generator puts uniqueness
// first, as §6.2 leaves strict per-millisecond uniqueness to "additional
// coordination", which the used set is within one generator.
//
// The guarantee is per generator, so per process for the default one. Two
// generators (two processes, a process and the one it restarted as, or a
// process and PostgreSQL's huid_generate) know nothing of each other's
// HUIDs and only the birthday bound of spec §6.2 holds between them (see
// [HUIDCollisions]); after a step back, a restarted process re-lives the
// milliseconds its predecessor used. Rather than repeat, Generate fails
// when the last millisecond of HUID's window is used up; it also fails
// whenever the clock reads outside the window (spec §4.3), even while its
// last millisecond is inside it.
//
// A HUIDGenerator is safe for concurrent use. It keeps a 256 KiB bitmap of
// the random parts used in its current millisecond, allocated on first use.
type HUIDGenerator struct {
	unixMilli func() int64

	mu     sync.Mutex
	random *randomSource
	ms     int64 // time field the used set belongs to
	used   *usedSet
}

// NewHUIDGenerator returns a HUIDGenerator. By default it reads the system
// clock and takes random bits from crypto/rand, read in 4 KiB blocks.
func NewHUIDGenerator(opts ...GeneratorOption) *HUIDGenerator {
	unixMilli, random := newGeneratorConfig(opts)
	return &HUIDGenerator{unixMilli: unixMilli, random: random, ms: -1}
}

var defaultHUIDGenerator = NewHUIDGenerator()

// NewHUID returns a new HUID from the default generator. It panics where
// [GenerateHUID] returns an error: when the clock is outside HUID's window
// or the window's last millisecond is used up.
func NewHUID() HUID {
	h, err := GenerateHUID()
	if err != nil {
		panic(err)
	}
	return h
}

// GenerateHUID returns a new HUID from the default generator, which reads
// the system clock and crypto/rand. It never returns a HUID it returned
// before in this process, and the times of its HUIDs never decrease, even
// when the clock steps back (they then run ahead of the clock until it
// catches up); see [HUIDGenerator] for these rules and their limits. It
// returns an error wrapping [ErrClockOutOfRange] when the clock lies
// outside [2026-01-01T00:00:00.000Z, 2165-05-15T07:35:11.103Z] or the
// window's last millisecond is used up.
func GenerateHUID() (HUID, error) { return defaultHUIDGenerator.Generate() }

// Generate returns a new HUID, one this generator has not returned before,
// at the clock's millisecond or, when the clock is behind the generator's
// last millisecond, at that one (at the next once it is used up; see
// [HUIDGenerator]). Its random part takes 3 bytes from the random source
// (the low 21 bits of them, big-endian), 3 more per redraw of a used part;
// after 16 used ones in a row it draws instead which free part to take, by
// its rank, from the fewest bytes that cover the number of free parts
// (drawn again while too large). It returns an error wrapping [ErrClockOutOfRange] when
// the clock lies outside HUID's window (or when the last millisecond of the
// window is used up), or wrapping [ErrRandomSource] when the random source
// fails.
func (g *HUIDGenerator) Generate() (HUID, error) {
	now, err := g.clock()
	if err != nil {
		return 0, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.next(now)
}

// fillChunk is how many HUIDs Fill makes per clock read and lock: about
// 10 µs of work, so their time field lags the clock by no more than that.
const fillChunk = 256

// FillHUIDs sets every element of dst to a new HUID from the default
// generator and sorts them; see [HUIDGenerator.Fill].
func FillHUIDs(dst []HUID) error { return defaultHUIDGenerator.Fill(dst) }

// Fill sets every element of dst to a new HUID, each one what Generate
// would have returned at that moment, and sorts dst. HUIDs of one
// millisecond come in random order (spec §6.1); a batch of keys inserted in
// ascending order is appended at the right edge of a B-tree index instead
// of splitting pages in its middle, so bulk inserts keep the index as dense
// as sequential keys do. Fill reads the clock and takes the lock once per
// 256 HUIDs, which also makes it cheaper per HUID than Generate.
//
// Fill returns the errors of Generate. On error the elements of dst are
// unspecified.
func (g *HUIDGenerator) Fill(dst []HUID) error {
	for chunk := dst; len(chunk) > 0; {
		n := min(len(chunk), fillChunk)
		if err := g.fill(chunk[:n]); err != nil {
			return err
		}
		chunk = chunk[n:]
	}
	slices.Sort(dst)
	return nil
}

func (g *HUIDGenerator) fill(dst []HUID) error {
	now, err := g.clock()
	if err != nil {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for i := range dst {
		if dst[i], err = g.next(now); err != nil {
			return err
		}
	}
	return nil
}

// clock returns the time field for the current time, or an error wrapping
// ErrClockOutOfRange.
func (g *HUIDGenerator) clock() (int64, error) {
	unixMs := g.unixMilli()
	now, ok := huidField(unixMs)
	if !ok {
		return 0, fmt.Errorf("%w: the clock reads %s, outside HUID's window %s",
			ErrClockOutOfRange, time.UnixMilli(unixMs).UTC().Format(time.RFC3339Nano), huidWindow)
	}
	return now, nil
}

// next returns the HUID that follows at time field now. g.mu must be held.
func (g *HUIDGenerator) next(now int64) (HUID, error) {
	if g.used == nil {
		g.used = newUsedSet()
	}
	if now > g.ms { // a clock behind g.ms leaves it: the generator never goes back
		g.used.reset()
		g.ms = now
	}
	if g.used.full() {
		if g.ms == HUIDMaxTimestamp {
			return 0, fmt.Errorf("%w: all 2^21 HUIDs of the window's last millisecond are used", ErrClockOutOfRange)
		}
		g.used.reset()
		g.ms++
	}
	random, err := g.drawUnused()
	if err != nil {
		return 0, err
	}
	return makeHUID(g.ms, random), nil
}

// drawUnused returns a random part not yet used in g.ms, uniform over the
// unused ones (spec §5), and marks it used.
func (g *HUIDGenerator) drawUnused() (uint32, error) {
	for range maxRedraws {
		r, err := g.random.bits(huidRandomBits)
		if err != nil {
			return 0, err
		}
		if g.used.add(r) {
			return r, nil
		}
	}
	// The set is crowded: draw which free value to take, by its rank among
	// the free ones, rather than redraw without bound.
	k, err := g.random.below(uint32(HUIDMaxRandom + 1 - g.used.count))
	if err != nil {
		return 0, err
	}
	r := g.used.nthFree(k)
	g.used.add(r)
	return r, nil
}

const (
	usedWords      = 1 << huidRandomBits / 64
	maxTouchedList = 1024 // beyond this many words, reset clears the whole bitmap
)

// usedSet records which 21-bit values are taken. reset costs in proportion to
// what was added: it clears the touched words, or the whole 256 KiB bitmap
// when more than maxTouchedList words were touched.
type usedSet struct {
	words   [usedWords]uint64
	touched []uint32 // indexes of non-zero words while len <= maxTouchedList
	count   int
}

func newUsedSet() *usedSet {
	return &usedSet{touched: make([]uint32, 0, maxTouchedList+1)}
}

// add marks v used and reports whether it was free.
func (s *usedSet) add(v uint32) bool {
	w, mask := v/64, uint64(1)<<(v%64)
	old := s.words[w]
	if old&mask != 0 {
		return false
	}
	if old == 0 && len(s.touched) <= maxTouchedList {
		s.touched = append(s.touched, w) // one past the cap marks "clear all"
	}
	s.words[w] = old | mask
	s.count++
	return true
}

func (s *usedSet) full() bool { return s.count == HUIDMaxRandom+1 }

// nthFree returns the free value of rank k (from 0) in ascending order.
// k must be below the number of free values.
func (s *usedSet) nthFree(k uint32) uint32 {
	for w, word := range s.words {
		free := ^word
		if n := uint32(bits.OnesCount64(free)); k >= n {
			k -= n
			continue
		}
		for ; k > 0; k-- {
			free &= free - 1
		}
		return uint32(w)*64 + uint32(bits.TrailingZeros64(free))
	}
	panic("idtype: nthFree beyond the free values")
}

func (s *usedSet) reset() {
	if len(s.touched) > maxTouchedList {
		clear(s.words[:])
	} else {
		for _, w := range s.touched {
			s.words[w] = 0
		}
	}
	s.touched = s.touched[:0]
	s.count = 0
}
