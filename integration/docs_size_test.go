package integration_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocsFirstHour: the README stays short enough to read in minutes,
// with its first Go example near the top, and docs/BENCHMARKS.md holds
// results, not an archive (no files under docs/bench).
func TestDocsFirstHour(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := len([]rune(string(readme))); n > 12000 {
		t.Errorf("README.md has %d characters, more than 12 000", n)
	}
	lines := strings.Split(string(readme), "\n")
	first := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "```go") {
			first = i + 1
			break
		}
	}
	if first < 0 || first > 120 {
		t.Errorf("README.md's first Go example starts at line %d; want it within the first 120 lines", first)
	}
	bench, err := os.ReadFile("../docs/BENCHMARKS.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := len([]rune(string(bench))); n > 20000 {
		t.Errorf("docs/BENCHMARKS.md has %d characters, more than 20 000", n)
	}
	if extra, _ := filepath.Glob("../docs/bench/*"); len(extra) > 0 {
		t.Errorf("files under docs/bench: %v", extra)
	}
}
