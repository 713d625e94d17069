package integration_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sortid/sortid/integration/internal/pgtest"
)

// shownFileRE finds the blocks of a page that show a file of the repository
// (```go file=PATH): code the tests build where it lives, such as an ent
// schema that generated code depends on, rather than as a program.
var shownFileRE = regexp.MustCompile("(?s)```\\w+ file=(\\S+)\\n(.*?)```")

// TestDocsRecipesShowFiles checks that every file=PATH block of
// docs/recipes/ is that file's text, so the two cannot drift apart.
func TestDocsRecipesShowFiles(t *testing.T) {
	t.Parallel()
	pages, err := filepath.Glob("../docs/recipes/*.md")
	if err != nil {
		t.Fatal(err)
	}
	shown := 0
	for _, page := range pages {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range shownFileRE.FindAllStringSubmatch(string(text), -1) {
			shown++
			want, err := os.ReadFile(filepath.Join("..", m[1]))
			if err != nil {
				t.Errorf("%s shows %s: %v", page, m[1], err)
				continue
			}
			if m[2] != string(want) {
				t.Errorf("%s shows %s, but not as it is: copy the file into the page", page, m[1])
			}
		}
	}
	if shown == 0 {
		t.Fatal("no page of docs/recipes shows a file; this test lost its way of finding them")
	}
}

// checkGoBlocksRefuse runs each Go block of a page that reads DATABASE_URL
// with it empty, and checks that it fails with the README's refusal.
func checkGoBlocksRefuse(t *testing.T, page string, blocks []readmeBlock, programs map[int]string) {
	t.Helper()
	for i, b := range blocks {
		if b.lang != "go" || !strings.Contains(b.body, "DATABASE_URL") {
			continue
		}
		out, err := runCommand(programs[i], nil, "")
		if err == nil || !strings.Contains(string(out), refusal) {
			t.Errorf("%s:%d (go block) with DATABASE_URL empty: %v, output lacks %q:\n%s", page, b.line, err, refusal, out)
		}
	}
}

var (
	// citedTestRE finds a test the docs cite by name (`TestName` is the
	// legend of docs/SCALE.md), and citedFileRE a test file they cite.
	citedTestRE = regexp.MustCompile("`(Test[A-Z]\\w*)`")
	citedFileRE = regexp.MustCompile("`([\\w./-]+_test\\.go)`")
	testFuncRE  = regexp.MustCompile(`(?m)^func (Test\w+)\(`)
)

// TestDocsCiteExistingTests: every test function and test file that
// README.md and docs/ name as checking a statement exists, so that a renamed
// or removed test cannot leave a statement resting on nothing.
func TestDocsCiteExistingTests(t *testing.T) {
	t.Parallel()
	tests := map[string]bool{}
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return err
		}
		code, err := os.ReadFile(path)
		for _, m := range testFuncRE.FindAllStringSubmatch(string(code), -1) {
			tests[m[1]] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	pages, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	recipes, err := filepath.Glob("../docs/recipes/*.md")
	if err != nil {
		t.Fatal(err)
	}
	cited := 0
	for _, page := range append(append(pages, recipes...), "../README.md") {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range citedTestRE.FindAllStringSubmatch(string(text), -1) {
			cited++
			if m[1] != "TestName" && !tests[m[1]] {
				t.Errorf("%s cites %s, which no _test.go file defines", page, m[1])
			}
		}
		for _, m := range citedFileRE.FindAllStringSubmatch(string(text), -1) {
			cited++
			if _, err := os.Stat(filepath.Join("..", m[1])); err != nil {
				t.Errorf("%s cites %s: %v", page, m[1], err)
			}
		}
	}
	if cited == 0 {
		t.Fatal("no page cites a test; this test lost its way of finding them")
	}
}

// TestDocsRecipesNameTestedVersions checks that each recipe names the
// version of the tool its tests use: the module in go.mod, the sqlc that
// generated the example, the pg_partman the test server has.
func TestDocsRecipesNameTestedVersions(t *testing.T) {
	t.Parallel()
	gomod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	required := func(module string) string {
		m := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(module) + ` (v\S+)`).FindSubmatch(gomod)
		if m == nil {
			t.Fatalf("go.mod does not require %s", module)
		}
		return string(m[1])
	}
	header, err := os.ReadFile(filepath.Join(sqlcDir, sqlcPackages[0], "db.go"))
	if err != nil {
		t.Fatal(err)
	}
	sqlc := sqlcVersionRE.FindSubmatch(header)
	if sqlc == nil {
		t.Fatal("the sqlc example's header names no sqlc version")
	}
	cases := []struct{ page, says string }{
		{"ent.md", "[ent](https://entgo.io) (" + required("entgo.io/ent") + ")"},
		{"bun.md", "[bun](https://bun.uptrace.dev) (" + required("github.com/uptrace/bun") + ")"},
		{"sqlc.md", "[sqlc](https://sqlc.dev) " + string(sqlc[1])},
	}
	if partman := partmanVersion(t); partman != "" {
		cases = append(cases, struct{ page, says string }{"partitioning.md", "pg_partman " + partman})
	}
	for _, c := range cases {
		text, err := os.ReadFile(filepath.Join("../docs/recipes", c.page))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(text), c.says) {
			t.Errorf("docs/recipes/%s does not say %q, the version its tests use", c.page, c.says)
		}
	}
}

// partmanVersion is the major.minor version of pg_partman the test server
// offers; without it "" (the partitioning tests fail under CI=true).
func partmanVersion(t *testing.T) string {
	t.Helper()
	v, err := pgtest.ExtensionVersion(t.Context(), pgtest.URL(t), "pg_partman")
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.SplitN(v, ".", 3)
	return strings.Join(parts[:min(2, len(parts))], ".")
}
