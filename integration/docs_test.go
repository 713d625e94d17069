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
	pages, err := filepath.Glob("../docs/recipes/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range pages {
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
