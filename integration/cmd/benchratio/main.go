// Command benchratio reads `go test -bench` output on stdin and prints, per
// benchmark group (the name up to its last slash), a Markdown table of each
// contender's median ns/op, its min–max over the runs, the ratio of its
// median to the baseline's, and its median B/op and allocs/op.
//
//	go test -run '^$' -bench . -benchmem -count 6 | go run ./cmd/benchratio -baseline uuid-v4,uuid,ulid
//
// benchstat gives confidence intervals; this adds the ratios the targets are
// stated in.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sortid/sortid/integration/internal/stats"
)

func main() {
	baseline := flag.String("baseline", "uuid-v4,uuid,ulid",
		"comma-separated contender names; in each group the first one present is the baseline")
	flag.Parse()
	groups, err := parse(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchratio:", err)
		os.Exit(1)
	}
	if len(groups) == 0 {
		fmt.Fprintln(os.Stderr, "benchratio: no benchmark lines on stdin")
		os.Exit(1)
	}
	write(os.Stdout, groups, strings.Split(*baseline, ","))
}

// result is the samples of one contender.
type result struct {
	name          string
	ns, b, allocs []float64
}

// group is one benchmark function's contenders, in order of appearance.
type group struct {
	name    string
	results []*result
}

// parse collects the ns/op, B/op and allocs/op samples of every
// sub-benchmark line, grouped by benchmark function.
func parse(r io.Reader) ([]*group, error) {
	var groups []*group
	byName := map[string]*group{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		gname, cname, fields, ok := splitLine(sc.Text())
		if !ok {
			continue
		}
		g := byName[gname]
		if g == nil {
			g = &group{name: gname}
			byName[gname] = g
			groups = append(groups, g)
		}
		g.add(cname, fields)
	}
	return groups, sc.Err()
}

// splitLine splits "BenchmarkX/y-2  N  12.3 ns/op  0 B/op  0 allocs/op"
// into "BenchmarkX", "y" and the unit→value map.
func splitLine(line string) (gname, cname string, fields map[string]float64, ok bool) {
	f := strings.Fields(line)
	if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
		return "", "", nil, false
	}
	name := stripProcs(f[0])
	i := strings.LastIndexByte(name, '/')
	if i < 0 {
		return "", "", nil, false
	}
	fields = map[string]float64{}
	for j := 2; j+1 < len(f); j += 2 {
		var v float64
		if _, err := fmt.Sscan(f[j], &v); err == nil {
			fields[f[j+1]] = v
		}
	}
	if _, has := fields["ns/op"]; !has {
		return "", "", nil, false
	}
	return name[:i], name[i+1:], fields, true
}

// stripProcs removes the -GOMAXPROCS suffix go test adds to names.
func stripProcs(name string) string {
	i := strings.LastIndexByte(name, '-')
	if i < 0 {
		return name
	}
	for _, c := range name[i+1:] {
		if c < '0' || c > '9' {
			return name
		}
	}
	return name[:i]
}

func (g *group) add(cname string, fields map[string]float64) {
	var r *result
	for _, x := range g.results {
		if x.name == cname {
			r = x
		}
	}
	if r == nil {
		r = &result{name: cname}
		g.results = append(g.results, r)
	}
	r.ns = append(r.ns, fields["ns/op"])
	r.b = append(r.b, fields["B/op"])
	r.allocs = append(r.allocs, fields["allocs/op"])
}

// baselineOf returns the first candidate present in g, or g's first contender.
func baselineOf(g *group, candidates []string) *result {
	for _, c := range candidates {
		for _, r := range g.results {
			if r.name == c {
				return r
			}
		}
	}
	return g.results[0]
}

func write(w io.Writer, groups []*group, candidates []string) {
	for _, g := range groups {
		base := baselineOf(g, candidates)
		baseMed := stats.Median(base.ns)
		fmt.Fprintf(w, "\n### %s (baseline %s, n=%d)\n\n", g.name, base.name, len(base.ns))
		fmt.Fprintln(w, "| contender | median ns/op | min–max | × baseline | B/op | allocs/op |")
		fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|")
		for _, r := range g.results {
			s := stats.Of(r.ns)
			fmt.Fprintf(w, "| %s | %.1f | %.1f–%.1f | %s | %.0f | %.0f |\n",
				r.name, s.Median, s.Min, s.Max, stats.Ratio(s.Median, baseMed), stats.Median(r.b), stats.Median(r.allocs))
		}
	}
}
