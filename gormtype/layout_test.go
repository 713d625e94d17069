package gormtype_test

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestFilesUseOnlyThoseBefore: every file of the package uses only names
// declared in itself or in the files before it, in the order doc.go gives
// (errors.go first, as every file returns its errors).
func TestFilesUseOnlyThoseBefore(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)Each file uses only those before it: (.*?)\.\npackage`).FindSubmatch(doc)
	if m == nil {
		t.Fatal("doc.go does not give the order of the files")
	}
	order := []string{"errors"}
	for _, name := range regexp.MustCompile(`(?:^|,)\s*(?:// )?(\w+)`).FindAllSubmatch(regexp.MustCompile(`\([^)]*\)`).ReplaceAll(m[1], nil), -1) {
		order = append(order, string(name[1]))
	}
	fset := token.NewFileSet()
	var files []*ast.File
	paths, _ := filepath.Glob("*.go")
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") || p == "doc.go" {
			continue
		}
		if !slices.Contains(order, strings.TrimSuffix(p, ".go")) {
			t.Errorf("doc.go does not place %s in the order of the files", p)
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	pkg, err := (&types.Config{Importer: importer.ForCompiler(fset, "source", nil)}).Check("gormtype", fset, files, info)
	if err != nil {
		t.Fatal(err)
	}
	rank := func(pos token.Pos) int {
		return slices.Index(order, strings.TrimSuffix(filepath.Base(fset.Position(pos).Filename), ".go"))
	}
	for id, obj := range info.Uses {
		if obj.Pkg() != pkg || obj.Parent() != nil && obj.Parent() != pkg.Scope() {
			continue // another package's, or a local name
		}
		if rank(obj.Pos()) > rank(id.Pos()) {
			t.Errorf("%s uses %s, declared in %s, a later file", fset.Position(id.Pos()), id.Name, filepath.Base(fset.Position(obj.Pos()).Filename))
		}
	}
}
