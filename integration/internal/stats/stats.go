// Package stats summarises repeated measurements as median and range.
package stats

import (
	"fmt"
	"slices"
)

// Summary is the median and range of a set of samples.
type Summary struct {
	Median, Min, Max float64
	N                int
}

// Of summarises xs; the zero Summary for no samples.
func Of(xs []float64) Summary {
	if len(xs) == 0 {
		return Summary{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return Summary{Median: median(s), Min: s[0], Max: s[len(s)-1], N: len(s)}
}

// Median returns the median of xs (the mean of the middle two for an even
// count), or 0 for no samples.
func Median(xs []float64) float64 { return Of(xs).Median }

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// Ratio returns a/b formatted to two decimals, or "n/a" when b is 0.
func Ratio(a, b float64) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f", a/b)
}
