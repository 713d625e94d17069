package main

import (
	"strings"
	"testing"
)

func TestParseAndWrite(t *testing.T) {
	in := `goos: linux
BenchmarkGenerate/huid-2     1000   50.0 ns/op   0 B/op   0 allocs/op
BenchmarkGenerate/uuid-v4-2  1000  100.0 ns/op  16 B/op   1 allocs/op
BenchmarkGenerate/huid-2     1000   70.0 ns/op   0 B/op   0 allocs/op
BenchmarkGenerate/uuid-v4-2  1000  100.0 ns/op  16 B/op   1 allocs/op
PASS
`
	groups, err := parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != 1 || len(groups[0].results) != 2 {
		t.Fatalf("parsed %d groups", len(groups))
	}
	var out strings.Builder
	write(&out, groups, []string{"uuid-v4"})
	if !strings.Contains(out.String(), "| huid | 60.0 | 50.0–70.0 | 0.60 | 0 | 0 |") {
		t.Fatalf("unexpected table:\n%s", out.String())
	}
}

func TestStripProcs(t *testing.T) {
	for in, want := range map[string]string{"B/x-2": "B/x", "B/uuid-v4": "B/uuid-v4", "B/uuid-v4-8": "B/uuid-v4"} {
		if got := stripProcs(in); got != want {
			t.Errorf("stripProcs(%q) = %q, want %q", in, got, want)
		}
	}
}
