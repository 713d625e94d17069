package idtype

// Test-only helpers that put a HUIDGenerator in states that otherwise take
// 2^21 Generate calls to reach.

// useAllBut makes ms the generator's current millisecond with every random
// part used but free, as if 2^21-len(free) HUIDs had been made in it and
// none of free. It writes the bitmap's 2^15 words instead of making 2^21
// calls, and leaves the set as add would have (count, and a touched list
// past its cap, so that reset clears the whole bitmap);
// TestUseAllButIsWhatAddsMake checks that.
func (g *HUIDGenerator) useAllBut(ms int64, free ...uint32) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.used == nil {
		g.used = newUsedSet()
	}
	s := g.used
	s.reset()
	g.ms = ms
	for i := range s.words {
		s.words[i] = ^uint64(0)
	}
	s.count = HUIDMaxRandom + 1
	s.touched = s.touched[:maxTouchedList+1]
	for _, v := range free {
		s.remove(v)
	}
}

// remove marks v free again.
func (s *usedSet) remove(v uint32) {
	w, mask := v/64, uint64(1)<<(v%64)
	if s.words[w]&mask != 0 {
		s.words[w] &^= mask
		s.count--
	}
}

// raceEnabled reports whether the tests run under the race detector
// (race_test.go), which makes generation about ten times slower: tests that
// only need volume to be thorough scale down under it.
var raceEnabled bool
