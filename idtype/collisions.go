package idtype

import (
	"fmt"
	"math"
)

const (
	msPerDay  = 86_400_000
	msPerYear = 365.25 * msPerDay
)

// CollisionEstimate is the expected number of ID collisions (pairs of equal
// IDs) between independent generators, from the birthday bound.
type CollisionEstimate struct {
	IDsPerSecond          float64 // total rate over all generators
	Generators            int     // independent generators sharing the rate evenly
	IDsPerMillisecondEach float64 // per generator
	PerMillisecond        float64 // expected collisions in one millisecond
	PerDay                float64
	PerYear               float64 // 365.25 days
}

// HUIDCollisions estimates, by the birthday bound of HUID spec §6.2, the
// expected collisions when idsPerSecond HUIDs are made, spread evenly over
// time and over the given number of independent generators (processes,
// PostgreSQL servers running huid_generate(), or read-only sessions), each of
// which never repeats its own IDs as
// [HUIDGenerator] does. Two generators making n IDs each in a millisecond
// share a 2^21-value space, so each pair expects n²/2^21 collisions there.
// It returns an error wrapping [ErrInvalidArgument] when idsPerSecond is
// negative or not finite, generators < 1, or a generator would need more
// than the 2^21 IDs a millisecond holds.
func HUIDCollisions(idsPerSecond float64, generators int) (CollisionEstimate, error) {
	return collisions(idsPerSecond, generators, 1<<21, 1<<21, "HUID")
}

// SCRU128Collisions estimates the same for SCRU128 generators: within one,
// the counter keeps IDs distinct; between two, IDs made in the same
// millisecond collide only when counter, per_sec_random and per_gen_random
// (84 bits) all agree, so each pair expects n²/2^84 collisions a millisecond.
// Errors are as for [HUIDCollisions], with 2^28 IDs a millisecond.
func SCRU128Collisions(idsPerSecond float64, generators int) (CollisionEstimate, error) {
	return collisions(idsPerSecond, generators, 1<<84, 1<<28, "SCRU128")
}

// collisions applies the birthday bound to pairs of generators whose IDs in a
// millisecond fall in a space of the given size; capacity is how many IDs
// one generator can make in a millisecond.
func collisions(idsPerSecond float64, generators int, space, capacity float64, scheme string) (CollisionEstimate, error) {
	if idsPerSecond < 0 || math.IsNaN(idsPerSecond) || math.IsInf(idsPerSecond, 0) {
		return CollisionEstimate{}, fmt.Errorf("%w: rate %v IDs/s is not a finite non-negative number", ErrInvalidArgument, idsPerSecond)
	}
	if generators < 1 {
		return CollisionEstimate{}, fmt.Errorf("%w: %d generators; want at least 1", ErrInvalidArgument, generators)
	}
	n := idsPerSecond / 1000 / float64(generators)
	if n > capacity {
		return CollisionEstimate{}, fmt.Errorf("%w: %.0f IDs per millisecond per generator exceeds the %.0f one %s millisecond holds",
			ErrInvalidArgument, n, capacity, scheme)
	}
	g := float64(generators)
	perMs := g * (g - 1) / 2 * n * n / space
	return CollisionEstimate{
		IDsPerSecond:          idsPerSecond,
		Generators:            generators,
		IDsPerMillisecondEach: n,
		PerMillisecond:        perMs,
		PerDay:                perMs * msPerDay,
		PerYear:               perMs * msPerYear,
	}, nil
}
