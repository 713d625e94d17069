package idtype

import (
	"sync/atomic"
	"time"
)

// reanchorInterval is how often the fast clock re-reads the wall clock, so
// that wall-clock steps (NTP, an operator) reach the generators within it.
const reanchorInterval = time.Second

// fastClock tells Unix milliseconds for the default generators at the cost
// of a monotonic clock read (time.Since) instead of a full time.Now, which
// costs about twice as much here. It pairs one wall-clock reading with the
// monotonic clock and re-anchors every reanchorInterval. A re-anchor may step
// the result back (the wall clock was stepped back, or drifted): the HUID
// generator keeps its millisecond then, and the SCRU128 generator its
// timestamp unless the step exceeds 10 s.
type fastClock struct {
	anchor atomic.Pointer[clockAnchor]
}

type clockAnchor struct {
	mono     time.Time // carries the monotonic reading
	unixNano int64     // the wall clock at mono
}

func newFastClock() *fastClock {
	c := &fastClock{}
	c.reanchor()
	return c
}

func (c *fastClock) reanchor() *clockAnchor {
	now := time.Now()
	a := &clockAnchor{mono: now, unixNano: now.UnixNano()}
	c.anchor.Store(a)
	return a
}

// unixMilli returns the current Unix time in milliseconds.
func (c *fastClock) unixMilli() int64 {
	a := c.anchor.Load()
	elapsed := time.Since(a.mono)
	if elapsed >= reanchorInterval || elapsed < 0 {
		a = c.reanchor()
		elapsed = 0
	}
	return floorDiv(a.unixNano+int64(elapsed), int64(time.Millisecond))
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
