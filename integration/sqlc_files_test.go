package integration_test

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sortid/sortid/integration/internal/pgtest"
)

const (
	// sqlcDir holds the sqlc example: config, SQL and generated packages.
	sqlcDir = "sqlcexample"
	// sqlcRecipe is the docs page that shows the example.
	sqlcRecipe = "docs/recipes/sqlc.md"
	// sqlcSchemaInRepo is how sqlcexample/sqlc.yaml names the migration; the
	// recipe names the output of `sortid sql up` instead.
	sqlcSchemaInRepo = "../../migrations/sql/0001_sortid.up.sql"
	sqlcSchemaInDocs = "sortid.sql"
)

// sqlcPackages are the packages sqlc generates from sqlcexample/sqlc.yaml.
var sqlcPackages = []string{"pgxdb", "sqldb"}

// TestSQLCNoInterface: no field, parameter or result of the generated code
// is interface{} or any, so every sortid column, function result and
// parameter got a type. Only the DBTX interface, sqlc's handle on a pool,
// connection or transaction, is one.
func TestSQLCNoInterface(t *testing.T) {
	t.Parallel()
	for _, pkg := range sqlcPackages {
		files, err := filepath.Glob(filepath.Join(sqlcDir, pkg, "*.go"))
		if err != nil || len(files) < 3 {
			t.Fatalf("%s: found %v (%v), want db.go, models.go and query.sql.go", pkg, files, err)
		}
		for _, file := range files {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, file, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.TypeSpec:
					return n.Name.Name != "DBTX"
				case *ast.InterfaceType:
					t.Errorf("%s: interface{} in generated code", fset.Position(n.Pos()))
				case *ast.Ident:
					if n.Name == "any" {
						t.Errorf("%s: any in generated code", fset.Position(n.Pos()))
					}
				}
				return true
			})
		}
	}
}

// TestSQLCRecipeShowsExample: the recipe's schema, sqlc.yaml and queries are
// the example's files (its sqlc.yaml naming `sortid sql up`'s output as the
// migration).
func TestSQLCRecipeShowsExample(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ lang, file string }{
		{"sql", "schema.sql"},
		{"yaml", "sqlc.yaml"},
		{"pgsql", "query.sql"},
	} {
		data, err := os.ReadFile(filepath.Join(sqlcDir, tc.file))
		if err != nil {
			t.Fatal(err)
		}
		want := string(data)
		if tc.file == "sqlc.yaml" {
			want = recipeSQLCConfig(t, want)
		}
		if got := recipeBlock(t, tc.lang, tc.file); got != want {
			t.Errorf("%s: the %s block that shows %s differs from it:\n%s\nwant:\n%s", sqlcRecipe, tc.lang, tc.file, got, want)
		}
	}
	// The recipe says the database/sql package imports lib/pq for arrays.
	if code, err := os.ReadFile(filepath.Join(sqlcDir, "sqldb", "query.sql.go")); err != nil || !bytes.Contains(code, []byte("pq.Array(ids)")) {
		t.Errorf("sqldb/query.sql.go does not pass the ids through pq.Array (%v)", err)
	}
	model := recipeBlock(t, "text", "models.go")
	for _, pkg := range sqlcPackages {
		data, err := os.ReadFile(filepath.Join(sqlcDir, pkg, "models.go"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), model) {
			t.Errorf("%s: %s/models.go lacks the model the recipe shows:\n%s", sqlcRecipe, pkg, model)
		}
	}
}

// recipeSQLCConfig returns the example's sqlc.yaml as the recipe shows it.
func recipeSQLCConfig(t *testing.T, config string) string {
	t.Helper()
	if !strings.Contains(config, sqlcSchemaInRepo) {
		t.Fatalf("%s/sqlc.yaml does not name %s", sqlcDir, sqlcSchemaInRepo)
	}
	return strings.ReplaceAll(config, sqlcSchemaInRepo, sqlcSchemaInDocs)
}

// recipeBlock returns the body of the one block of the recipe in lang whose
// preceding line names file.
func recipeBlock(t *testing.T, lang, file string) string {
	t.Helper()
	text, err := os.ReadFile(filepath.Join("..", sqlcRecipe))
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("(?s)`" + regexp.QuoteMeta(file) + "`[^\n]*\n+```" + lang + "\n(.*?)```")
	m := re.FindAllSubmatch(text, -1)
	if len(m) != 1 {
		t.Fatalf("%s: found %d %s blocks introduced by a line naming `%s`, want 1", sqlcRecipe, len(m), lang, file)
	}
	return string(m[0][1])
}

// sqlcVersionRE finds the sqlc version in a generated file's header.
var sqlcVersionRE = regexp.MustCompile(`(?m)^//\s+sqlc (v\S+)$`)

// TestSQLCGeneratedUpToDate: the committed generated code is what the
// installed sqlc, of the version that generated it, makes of
// sqlcexample/sqlc.yaml, and of the recipe's sqlc.yaml with the output of
// `sortid sql up` as the migration. Without sqlc it skips, except under
// CI=true, where it fails.
func TestSQLCGeneratedUpToDate(t *testing.T) {
	t.Parallel()
	header, err := os.ReadFile(filepath.Join(sqlcDir, sqlcPackages[0], "db.go"))
	if err != nil {
		t.Fatal(err)
	}
	m := sqlcVersionRE.FindSubmatch(header)
	if m == nil {
		t.Fatalf("%s/%s/db.go names no sqlc version", sqlcDir, sqlcPackages[0])
	}
	want := string(m[1])
	sqlc, err := exec.LookPath("sqlc")
	if err != nil {
		msg := "sqlc is not installed: go install github.com/sqlc-dev/sqlc/cmd/sqlc@" + want
		if os.Getenv(pgtest.EnvCI) == "true" {
			t.Fatal(msg + " (.ci/run does)")
		}
		t.Skip(msg)
	}
	out, err := exec.Command(sqlc, "version").CombinedOutput()
	if got := strings.TrimSpace(string(out)); err != nil || got != want {
		t.Fatalf("sqlc version = %q (%v), but the committed code was generated by sqlc %s: go install github.com/sqlc-dev/sqlc/cmd/sqlc@%s", got, err, want, want)
	}

	t.Run("sqlc diff", func(t *testing.T) {
		t.Parallel()
		cmd := exec.Command(sqlc, "diff", "-f", filepath.Join(sqlcDir, "sqlc.yaml"))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("the generated code differs from what sqlc makes of %s/sqlc.yaml (%v): run sqlc generate -f integration/%s/sqlc.yaml\n%s", sqlcDir, err, sqlcDir, out)
		}
	})

	sortid := exec.Command("go", "run", "./cmd/sortid", "sql", "up")
	sortid.Dir = ".."
	up, err := sortid.Output()
	if err != nil {
		t.Fatalf("sortid sql up: %v", err)
	}

	t.Run("recipe", func(t *testing.T) {
		t.Parallel()
		dir := sqlcGenerate(t, sqlc, string(up))
		for _, pkg := range sqlcPackages {
			committed, _ := filepath.Glob(filepath.Join(sqlcDir, pkg, "*.go"))
			generated, _ := filepath.Glob(filepath.Join(dir, pkg, "*.go"))
			if len(committed) != len(generated) {
				t.Errorf("%s: the recipe generates %d files, the example has %d", pkg, len(generated), len(committed))
			}
			for _, file := range committed {
				want, _ := os.ReadFile(file)
				got, err := os.ReadFile(filepath.Join(dir, pkg, filepath.Base(file)))
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("%s: the recipe's sqlc.yaml generates something else (%v)", file, err)
				}
			}
		}
	})

	// The reason the migration declares bare type names: were sqlc to map
	// pg_catalog.uuid one day, this fails, and the rule could go.
	t.Run("pg_catalog.uuid gives interface{}", func(t *testing.T) {
		t.Parallel()
		const bare, qualified = "RETURNS uuid\n", "RETURNS pg_catalog.uuid\n"
		if !strings.Contains(string(up), bare) {
			t.Fatalf("sortid sql up has no %q", bare)
		}
		dir := sqlcGenerate(t, sqlc, strings.ReplaceAll(string(up), bare, qualified))
		code, err := os.ReadFile(filepath.Join(dir, "pgxdb", "query.sql.go"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(code, []byte("Scru128 interface{}")) {
			t.Errorf("with %q, sqlc types scru128_generate() in NewIDs without interface{}:\n%s", qualified, code)
		}
	})
}

// sqlcGenerate runs sqlc generate with the recipe's sqlc.yaml, the example's
// schema.sql and query.sql, and sortidSQL as the migration, in a temporary
// directory, and returns the directory.
func sqlcGenerate(t *testing.T, sqlc, sortidSQL string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{"sqlc.yaml": recipeBlock(t, "yaml", "sqlc.yaml"), sqlcSchemaInDocs: sortidSQL}
	for _, name := range []string{"schema.sql", "query.sql"} {
		data, err := os.ReadFile(filepath.Join(sqlcDir, name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = string(data)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(sqlc, "generate")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sqlc generate with the recipe's sqlc.yaml: %v\n%s", err, out)
	}
	return dir
}
