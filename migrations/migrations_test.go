package migrations

import (
	"errors"
	"flag"
	"io/fs"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite goose/*.sql from sql/*.sql")

// TestGooseGolden: goose/NNNNN_name.sql is what gooseSource makes of the
// canonical pair; -update writes it.
func TestGooseGolden(t *testing.T) {
	t.Parallel()
	ms, err := all()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, m := range ms {
		name := gooseName(m)
		want[name] = true
		src, err := gooseSource(m)
		if err != nil {
			t.Fatal(err)
		}
		file := path.Join("goose", name)
		if *update {
			if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		disk, err := os.ReadFile(file)
		if err != nil || string(disk) != src {
			t.Errorf("%s is stale or missing (%v): run go test ./migrations -update", file, err)
		}
	}
	entries, err := os.ReadDir("goose")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !want[e.Name()] {
			t.Errorf("goose/%s has no canonical up/down pair", e.Name())
		}
	}
}

func TestEveryUpHasDown(t *testing.T) {
	t.Parallel()
	entries, err := fs.ReadDir(MigrateFS(), ".")
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, e := range entries {
		names[e.Name()] = true
	}
	ups := 0
	for name := range names {
		if base, ok := strings.CutSuffix(name, ".up.sql"); ok {
			ups++
			if !names[base+".down.sql"] {
				t.Errorf("%s has no %s.down.sql", name, base)
			}
		} else if base, ok := strings.CutSuffix(name, ".down.sql"); ok {
			if !names[base+".up.sql"] {
				t.Errorf("%s has no %s.up.sql", name, base)
			}
		} else {
			t.Errorf("unexpected file %s", name)
		}
	}
	if ups == 0 {
		t.Fatal("no up migrations")
	}
	if _, err := all(); err != nil {
		t.Fatal(err)
	}
}

func TestUpDownOrdered(t *testing.T) {
	t.Parallel()
	ms, err := all()
	if err != nil {
		t.Fatal(err)
	}
	up, down := Up(), Down()
	if strings.TrimSpace(up) == "" || strings.TrimSpace(down) == "" {
		t.Fatal("Up() or Down() is empty")
	}
	prevUp, prevDown := -1, len(down)+1
	for i, m := range ms {
		if i > 0 && m.Version <= ms[i-1].Version {
			t.Fatalf("versions not ascending: %d after %d", m.Version, ms[i-1].Version)
		}
		u := strings.Index(up, m.UpSQL)
		d := strings.Index(down, m.DownSQL)
		if u < 0 || d < 0 {
			t.Fatalf("%s or %s missing from Up()/Down()", m.UpFile, m.DownFile)
		}
		if u <= prevUp {
			t.Errorf("Up(): %s out of order", m.UpFile)
		}
		if d >= prevDown {
			t.Errorf("Down(): %s out of order", m.DownFile)
		}
		prevUp, prevDown = u, d
	}
}

func TestCanonicalFileRules(t *testing.T) {
	t.Parallel()
	for _, m := range mustMigrations() {
		for file, src := range map[string]string{m.UpFile: m.UpSQL, m.DownFile: m.DownSQL} {
			stmts, err := splitStatements(src)
			if err != nil {
				t.Errorf("%s: %v", file, err)
				continue
			}
			for _, st := range stmts {
				first := strings.ToUpper(strings.Fields(st.SQL)[0])
				switch first {
				case "BEGIN", "COMMIT", "ROLLBACK", "START", "END":
					t.Errorf("%s: transaction control %q inside a migration", file, first)
				}
				for line := range strings.Lines(st.SQL) {
					if strings.HasPrefix(strings.TrimSpace(line), `\`) {
						t.Errorf("%s: psql meta-command %q", file, strings.TrimSpace(line))
					}
				}
			}
			if strings.Contains(src, "public.") {
				t.Errorf("%s hard-codes the public schema", file)
			}
		}
	}
}

func TestSplitStatements(t *testing.T) {
	t.Parallel()
	src := "-- lead\n\nCREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $x$ BEGIN RETURN 1; END $x$;\n" +
		"SELECT 'a;b', \"c;d\", $$;$$, /* ; /* nested ; */ */ 1;\n" +
		"SELECT $1::int; -- trailing\n-- tail comment\n"
	stmts, err := splitStatements(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(stmts) != 3 {
		t.Fatalf("got %d statements: %q", len(stmts), stmts)
	}
	if stmts[0].Comment != "-- lead\n\n" || !strings.HasSuffix(stmts[0].SQL, "$x$;") {
		t.Errorf("statement 0 = %+v", stmts[0])
	}
	if !strings.HasPrefix(stmts[1].SQL, "SELECT 'a;b'") || !strings.HasSuffix(stmts[1].SQL, "1;") {
		t.Errorf("statement 1 = %q", stmts[1].SQL)
	}
	if stmts[2].SQL != "SELECT $1::int;" {
		t.Errorf("statement 2 = %q", stmts[2].SQL)
	}
	for _, bad := range []string{"SELECT 'x;", "SELECT $a$ x;", "SELECT 1; SELECT 2", "/* x", "-- +goose Up\nSELECT 1;"} {
		if _, err := splitStatements(bad); err == nil {
			t.Errorf("splitStatements(%q) = nil error", bad)
		}
	}
	if _, err := splitStatements("CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; END;"); !errors.Is(err, errAtomic) {
		t.Errorf("BEGIN ATOMIC: err = %v", err)
	}
}

func TestGooseFromUpDown(t *testing.T) {
	t.Parallel()
	got, err := gooseFromUpDown("hdr", "-- c\nSELECT 1;\nSELECT 2;\n", "SELECT 3;\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "-- hdr\n\n-- +goose Up\n-- c\n-- +goose StatementBegin\nSELECT 1;\n-- +goose StatementEnd\n" +
		"-- +goose StatementBegin\nSELECT 2;\n-- +goose StatementEnd\n\n" +
		"-- +goose Down\n-- +goose StatementBegin\nSELECT 3;\n-- +goose StatementEnd\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if _, err := gooseFromUpDown("", "SELECT 1;", "  \n"); err == nil {
		t.Error("empty down: want error")
	}
}

var (
	// declRE matches a function's argument list and result type.
	declRE = regexp.MustCompile(`(?m)^CREATE OR REPLACE FUNCTION (\w+)\(([^)]*)\)\s*RETURNS ([\w. ]+?)(?:\[\])?\s*$`)
	// guardRE matches the list of bare type names the guard checks.
	guardRE = regexp.MustCompile(`FOREACH typ IN ARRAY ARRAY\[([^\]]*)\] LOOP`)
	// keywordTypes are type names that are SQL keywords: the grammar maps them to
	// pg_catalog's types whatever the search_path.
	keywordTypes = []string{"bigint", "integer", "smallint", "boolean", "double precision", "interval"}
)

// TestDeclaredTypesBareAndGuarded: every type name in a function's argument
// and result lists is bare, since sqlc maps only bare names (RETURNS
// pg_catalog.uuid gave interface{}), and is either a keyword or one the
// migration's search_path guard checks, since a bare name is resolved through
// the search_path at CREATE time.
func TestDeclaredTypesBareAndGuarded(t *testing.T) {
	t.Parallel()
	for _, m := range mustMigrations() {
		decls := declRE.FindAllStringSubmatch(m.UpSQL, -1)
		if n := strings.Count(m.UpSQL, "CREATE OR REPLACE FUNCTION"); len(decls) != n {
			t.Fatalf("%s: matched %d of %d function declarations", m.UpFile, len(decls), n)
		}
		var guarded []string
		if g := guardRE.FindStringSubmatch(m.UpSQL); g != nil {
			for _, name := range strings.Split(g[1], ",") {
				guarded = append(guarded, strings.Trim(strings.TrimSpace(name), "'"))
			}
		}
		for _, d := range decls {
			types := []string{d[3]}
			for _, arg := range strings.Split(d[2], ",") {
				if f := strings.Fields(arg); len(f) > 1 {
					types = append(types, strings.Join(f[1:], " ")) // drop the parameter name
				}
			}
			for _, typ := range types {
				switch {
				case strings.Contains(typ, "."):
					t.Errorf("%s: %s declares the qualified type %s: write it bare (sqlc maps only bare names) and guard it", m.UpFile, d[1], typ)
				case !slices.Contains(keywordTypes, typ) && !slices.Contains(guarded, typ):
					t.Errorf("%s: %s declares the bare type %s, which the search_path guard (%v) does not check", m.UpFile, d[1], typ, guarded)
				}
			}
		}
	}
}
