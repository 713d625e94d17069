package idtype

import (
	"slices"
	"sync"
	"testing"
)

// TestDefaultGeneratorsConcurrentUniqueness runs 16 goroutines making 250k
// IDs each (50k under the race detector, which finds a missing lock in far
// fewer) from the default generators: no HUID or SCRU128 may repeat, and
// each goroutine's SCRU128s must ascend.
func TestDefaultGeneratorsConcurrentUniqueness(t *testing.T) {
	t.Parallel()
	goroutines, perGoroutine := 16, 250_000
	if raceEnabled {
		perGoroutine = 50_000
	}
	huids := make([][]HUID, goroutines)
	scrus := make([][]SCRU128, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			hs := make([]HUID, perGoroutine)
			ss := make([]SCRU128, perGoroutine)
			for i := range perGoroutine {
				hs[i] = NewHUID()
				ss[i] = NewSCRU128()
			}
			huids[g], scrus[g] = hs, ss
		})
	}
	wg.Wait()

	for g, ss := range scrus {
		for i := 1; i < len(ss); i++ {
			if ss[i-1].Compare(ss[i]) >= 0 {
				t.Fatalf("goroutine %d: SCRU128 %d (%s) does not ascend from %s", g, i, ss[i], ss[i-1])
			}
		}
	}
	allH := slices.Concat(huids...)
	slices.Sort(allH)
	if i := firstRepeat(allH); i >= 0 {
		t.Fatalf("HUID %d repeated among %d", allH[i], len(allH))
	}
	allS := slices.Concat(scrus...)
	slices.SortFunc(allS, SCRU128.Compare)
	if i := firstRepeat(allS); i >= 0 {
		t.Fatalf("SCRU128 %s repeated among %d", allS[i], len(allS))
	}
}

// firstRepeat returns the index of the first element equal to its
// predecessor in a sorted slice, or -1.
func firstRepeat[T comparable](sorted []T) int {
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			return i
		}
	}
	return -1
}
