package main

import (
	"fmt"
	"io"

	"github.com/sortid/sortid/integration/internal/stats"
)

// table collects one measurement's samples per contender, one per round.
type table struct {
	title    string
	unit     string // of the samples, e.g. "ms", "MiB"
	baseline string
	order    []string
	samples  map[string][]float64
	notes    []string
}

func newTable(title, unit, baseline string) *table {
	return &table{title: title, unit: unit, baseline: baseline, samples: map[string][]float64{}}
}

func (t *table) add(contender string, v float64) {
	if _, ok := t.samples[contender]; !ok {
		t.order = append(t.order, contender)
	}
	t.samples[contender] = append(t.samples[contender], v)
}

func (t *table) note(format string, args ...any) {
	t.notes = append(t.notes, fmt.Sprintf(format, args...))
}

// write prints the table in Markdown: median, min–max and the ratio of the
// medians to the baseline's.
func (t *table) write(w io.Writer) {
	base := stats.Median(t.samples[t.baseline])
	fmt.Fprintf(w, "\n### %s\n\n", t.title)
	fmt.Fprintf(w, "| contender | median %s | min–max | × %s | n |\n|---|---:|---:|---:|---:|\n", t.unit, t.baseline)
	for _, c := range t.order {
		s := stats.Of(t.samples[c])
		fmt.Fprintf(w, "| %s | %s | %s–%s | %s | %d |\n", c, num(s.Median), num(s.Min), num(s.Max), stats.Ratio(s.Median, base), s.N)
	}
	for _, n := range t.notes {
		fmt.Fprintf(w, "\n%s\n", n)
	}
}

// num prints with three significant-ish digits, enough for timings and sizes.
func num(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.3f", v)
	}
}
