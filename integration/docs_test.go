package integration_test

import (
	"path/filepath"
	"regexp"
	"testing"
)

// createExtensionRE finds the extensions a page creates, which the server
// must have for the page to run.
var createExtensionRE = regexp.MustCompile(`(?i)CREATE EXTENSION (?:IF NOT EXISTS )?(\w+)`)

// TestDocsRecipes runs the blocks of every page in docs/recipes/ as the
// README's are run: Go and SQL blocks, and shell blocks marked to run, in
// order, each page against a fresh database without the sortid functions.
func TestDocsRecipes(t *testing.T) {
	t.Parallel()
	runDocPages(t, "../docs/recipes/*.md", nil)
}

// notRunPages are the pages of docs/ whose blocks are not for this harness:
// measurements with the commands that made them, and prose.
var notRunPages = map[string]bool{"BENCHMARKS.md": true, "SCALE.md": true}

// TestDocsPages runs the blocks of every other page in docs/ (the guides
// and references the README links) as TestDocsRecipes runs the recipes.
func TestDocsPages(t *testing.T) {
	t.Parallel()
	runDocPages(t, "../docs/*.md", notRunPages)
}

// runDocPages runs, in parallel subtests, the blocks of every page matching
// glob (relative to this directory) but those named in skip, each page
// against a fresh database, and fails a page that has no block to run.
func runDocPages(t *testing.T, glob string, skip map[string]bool) {
	t.Helper()
	pages, err := filepath.Glob(glob)
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 {
		t.Fatalf("no page matches %s", glob)
	}
	for _, path := range pages {
		if skip[filepath.Base(path)] {
			continue
		}
		page, _ := filepath.Rel("..", path)
		t.Run(filepath.Base(page), func(t *testing.T) {
			t.Parallel()
			dbURL, _ := freshDatabase(t)
			blocks := docBlocks(t, page)
			for _, b := range blocks {
				for _, m := range createExtensionRE.FindAllStringSubmatch(b.body, -1) {
					needExtension(t, m[1])
				}
			}
			programs := buildGoBlocks(t, page, blocks)
			checkGoBlocksRefuse(t, page, blocks, programs)
			if ran := runDocBlocks(t, page, blocks, programs, dbURL); ran["go"]+ran["sql"]+ran["sh"] == 0 {
				t.Fatalf("%s has no block this test runs", page)
			}
		})
	}
}
