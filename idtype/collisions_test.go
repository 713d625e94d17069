package idtype

import (
	"errors"
	"math"
	"testing"
)

func TestHUIDCollisions(t *testing.T) {
	t.Parallel()
	// One generator never collides with itself.
	if e, err := HUIDCollisions(1e6, 1); err != nil || e.PerYear != 0 {
		t.Fatalf("one generator: %+v, %v", e, err)
	}
	// Two generators at 1000 IDs/ms each: 1 pair × 1000² / 2^21 per ms.
	e, err := HUIDCollisions(2e6, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := 1e6 / (1 << 21)
	if math.Abs(e.PerMillisecond-want) > 1e-12 || math.Abs(e.PerDay-want*86_400_000) > 1e-3 {
		t.Fatalf("2 generators at 1000/ms: %+v, want %v per ms", e, want)
	}
	if e.IDsPerMillisecondEach != 1000 {
		t.Fatalf("IDsPerMillisecondEach = %v", e.IDsPerMillisecondEach)
	}
	// SCRU128 at the same load is 2^63 times less likely to collide.
	s, err := SCRU128Collisions(2e6, 2)
	if err != nil || math.Abs(e.PerMillisecond/s.PerMillisecond-math.Pow(2, 63)) > 1e6 {
		t.Fatalf("SCRU128 ratio: %+v, %v", s, err)
	}
}

// TestHUIDCollisionsMatchesSimulation checks the formula against a Monte
// Carlo run of independent deduplicating generators.
func TestHUIDCollisionsMatchesSimulation(t *testing.T) {
	t.Parallel()
	const generators, perMs, rounds = 4, 500, 400
	clock := newFakeClock(huidAt(0))
	gens := make([]*HUIDGenerator, generators)
	for i := range gens {
		gens[i] = NewHUIDGenerator(WithClock(clock.now), WithRandom(chacha(byte(10+i))))
	}
	collisions := 0
	for round := range rounds {
		seen := map[HUID]int{}
		clock.set(huidAt(int64(round)))
		for _, g := range gens {
			for range perMs {
				h, err := g.Generate()
				if err != nil {
					t.Fatal(err)
				}
				collisions += seen[h]
				seen[h]++
			}
		}
	}
	e, err := HUIDCollisions(generators*perMs*1000, generators)
	if err != nil {
		t.Fatal(err)
	}
	expected := e.PerMillisecond * rounds // ≈ 286
	if sd := math.Sqrt(expected); math.Abs(float64(collisions)-expected) > 5*sd {
		t.Fatalf("simulated %d collisions, predicted %.1f", collisions, expected)
	}
}

func TestCollisionsRejects(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		rate float64
		gens int
	}{{-1, 1}, {math.NaN(), 1}, {math.Inf(1), 1}, {1, 0}, {1, -3}, {3e9, 1}} {
		if _, err := HUIDCollisions(tc.rate, tc.gens); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("HUIDCollisions(%v, %d) = %v", tc.rate, tc.gens, err)
		}
	}
	if _, err := SCRU128Collisions(3e9, 1); err != nil {
		t.Errorf("SCRU128 holds 3e6 IDs/ms: %v", err)
	}
}
