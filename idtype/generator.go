package idtype

import (
	"io"
	"time"
)

// rollbackTolerance is how far the clock may go back before a
// SCRU128Generator gives up keeping its last timestamp and restarts from the
// clock. Within it the generator keeps counting on the last timestamp, so
// its output stays ascending across small NTP corrections; past it, IDs may
// sort below earlier ones. A HUIDGenerator has no such limit: it never goes
// back (see its doc).
const rollbackTolerance = 10_000 // ms

// GeneratorOption configures a [HUIDGenerator] or a [SCRU128Generator].
type GeneratorOption func(*generatorConfig)

type generatorConfig struct {
	clock  func() time.Time
	random io.Reader
}

// WithClock makes the generator read the time from now instead of the
// system clock, for tests and simulations.
func WithClock(now func() time.Time) GeneratorOption {
	return func(c *generatorConfig) { c.clock = now }
}

// WithRandom makes the generator take its random bits from r instead of
// crypto/rand. The generator reads exactly the bytes each field needs, in
// the order documented on its Generate method, without reading ahead, so a
// fixed byte stream gives a reproducible sequence of IDs.
func WithRandom(r io.Reader) GeneratorOption {
	return func(c *generatorConfig) { c.random = r }
}

func newGeneratorConfig(opts []GeneratorOption) (unixMilli func() int64, random *randomSource) {
	var c generatorConfig
	for _, opt := range opts {
		opt(&c)
	}
	if c.clock == nil {
		unixMilli = newFastClock().unixMilli
	} else {
		clock := c.clock
		unixMilli = func() int64 { return saturatedUnixMilli(clock()) }
	}
	if c.random == nil {
		random = newRandomSource(nil, defaultRandomBuffer)
	} else {
		random = newRandomSource(c.random, 0)
	}
	return unixMilli, random
}

// clockLimit bounds the Unix milliseconds a clock reading is taken as: far
// beyond both ID windows, and far from where UnixMilli wraps around.
const clockLimit = 1 << 60

// saturatedUnixMilli returns t in Unix milliseconds, held within
// ±clockLimit, so that a clock reading far outside the windows is refused
// as such rather than wrapping around into them.
func saturatedUnixMilli(t time.Time) int64 {
	switch {
	case t.Before(time.UnixMilli(-clockLimit)):
		return -clockLimit
	case t.After(time.UnixMilli(clockLimit)):
		return clockLimit
	}
	return t.UnixMilli()
}
