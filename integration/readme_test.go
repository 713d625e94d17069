package integration_test

import (
	"bytes"
	"context"
	"fmt"
	"go/parser"
	"go/token"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sortid/sortid/idtype"
)

// readmeBlock is a fenced code block of README.md.
type readmeBlock struct {
	lang string // go, sql, sh
	body string
	line int    // where the fence opens, for messages
	run  bool   // sh blocks run only when marked <!-- readme-test: run -->
	want string // a regexp that some line of the output must match
	// clone marks (<!-- readme-test: clone -->) a shell block that a new
	// module outside the repository runs, with SORTID naming this clone
	// (TestFirstHourInstallFromClone).
	clone bool
}

var (
	fenceRE  = regexp.MustCompile("(?s)((?:<!-- readme-test: [^>]*-->\\s*)*)```(\\w+)\\n(.*?)```")
	markerRE = regexp.MustCompile(`<!-- readme-test: (run|clone|want (.*?)) -->`)
)

// readmeBlocks returns the fenced blocks of README.md in order.
func readmeBlocks(t *testing.T) []readmeBlock {
	t.Helper()
	return docBlocks(t, "README.md")
}

// docBlocks returns the fenced blocks of a Markdown page, named relative to
// the repository root, in order.
func docBlocks(t *testing.T, page string) []readmeBlock {
	t.Helper()
	text, err := os.ReadFile(filepath.Join("..", page))
	if err != nil {
		t.Fatal(err)
	}
	var blocks []readmeBlock
	for _, m := range fenceRE.FindAllSubmatchIndex(text, -1) {
		b := readmeBlock{
			lang: string(text[m[4]:m[5]]),
			body: string(text[m[6]:m[7]]),
			line: 1 + bytes.Count(text[:m[4]], []byte("\n")),
		}
		for _, mk := range markerRE.FindAllStringSubmatch(string(text[m[2]:m[3]]), -1) {
			switch mk[1] {
			case "run":
				b.run = true
			case "clone":
				b.clone = true
			default:
				b.want = mk[2]
			}
		}
		blocks = append(blocks, b)
	}
	return blocks
}

// TestREADMEQuickStarts runs every Go and SQL block of README.md, and the
// shell blocks marked to run, in order against a fresh database without the
// sortid functions: the migration blocks must install them for the rest.
func TestREADMEQuickStarts(t *testing.T) {
	t.Parallel()
	dbURL, _ := freshDatabase(t)

	blocks := readmeBlocks(t)
	programs := buildGoBlocks(t, "README.md", blocks)
	checkRefuseWithoutDatabaseURL(t, blocks, programs)
	ran := runDocBlocks(t, "README.md", blocks, programs, dbURL)
	if ran["go"] < 4 || ran["sql"] < 1 || ran["sh"] < 3 {
		t.Fatalf("ran %v blocks; the README lost its quick starts, or this test its way of finding them", ran)
	}
}

// runDocBlocks runs a page's Go and SQL blocks, and the shell blocks marked
// to run, in order against dbURL, checks each block's wanted output, and
// returns how many blocks of each language ran.
func runDocBlocks(t *testing.T, page string, blocks []readmeBlock, programs map[int]string, dbURL string) map[string]int {
	t.Helper()
	ran := map[string]int{}
	for i, b := range blocks {
		var out []byte
		var err error
		switch {
		case b.lang == "go":
			out, err = runCommand(programs[i], nil, dbURL)
		case b.lang == "sql":
			err = execSQL(dbURL, b.body)
		case b.lang == "sh" && b.run:
			out, err = runCommand("bash", []string{"-o", "pipefail", "-c", localBuild(b.body)}, dbURL)
		default:
			continue
		}
		ran[b.lang]++
		if err != nil {
			t.Fatalf("%s:%d (%s block): %v\n%s", page, b.line, b.lang, err, out)
		}
		if b.want != "" && !regexp.MustCompile("(?m)"+b.want).Match(out) {
			t.Errorf("%s:%d: output does not match %q:\n%s", page, b.line, b.want, out)
		}
	}
	return ran
}

// releasedCLI is how the README runs the CLI; localBuild swaps in this
// checkout's, since the test must check the code it is run with.
const releasedCLI = "github.com/sortid/sortid/cmd/sortid@v0.1.0"

// localBuild returns a shell block with the released CLI replaced by ./cmd/sortid.
func localBuild(body string) string {
	return strings.ReplaceAll(body, releasedCLI, "./cmd/sortid")
}

// refusal is what every quick start that uses a database prints without one.
const refusal = "DATABASE_URL is not set: export DATABASE_URL=postgres://"

// checkRefuseWithoutDatabaseURL runs every block that reads DATABASE_URL
// with it empty, and checks that each fails with the refusal instead of
// reaching some database.
func checkRefuseWithoutDatabaseURL(t *testing.T, blocks []readmeBlock, programs map[int]string) {
	t.Helper()
	checked := 0
	for i, b := range blocks {
		if !strings.Contains(b.body, "DATABASE_URL") {
			continue
		}
		var out []byte
		var err error
		switch {
		case b.lang == "go":
			out, err = runCommand(programs[i], nil, "")
		case b.lang == "sh" && b.run:
			out, err = runCommand("bash", []string{"-o", "pipefail", "-c", localBuild(b.body)}, "")
		default:
			continue
		}
		checked++
		if err == nil || !strings.Contains(string(out), refusal) {
			t.Errorf("README.md:%d (%s block) with DATABASE_URL empty: %v, output lacks %q:\n%s", b.line, b.lang, err, refusal, out)
		}
	}
	// migrations.Apply, psql, pgx, GORM.
	if checked < 4 {
		t.Errorf("checked %d blocks that read DATABASE_URL, want at least 4", checked)
	}
}

// TestREADMEInstallCoversImports checks that every module a Go block of
// README.md imports from is named in a `go get` of its Install section.
func TestREADMEInstallCoversImports(t *testing.T) {
	t.Parallel()
	text, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	start := strings.Index(string(text), "## Install\n")
	end := strings.Index(string(text), "## Try it\n")
	if start < 0 || end < start {
		t.Fatal("README.md has no Install section before Try it")
	}
	install := string(text[start:end])
	var modules []string
	for _, f := range strings.Fields(strings.NewReplacer("`", " ", "|", " ").Replace(install)) {
		if strings.Contains(strings.SplitN(f, "/", 2)[0], ".") {
			modules = append(modules, strings.SplitN(f, "@", 2)[0])
		}
	}
	imports := 0
	for _, b := range readmeBlocks(t) {
		if b.lang != "go" {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), "", b.body, parser.ImportsOnly)
		if err != nil {
			t.Fatalf("README.md:%d: %v", b.line, err)
		}
		for _, spec := range f.Imports {
			path, _ := strconv.Unquote(spec.Path.Value)
			if !strings.Contains(strings.SplitN(path, "/", 2)[0], ".") {
				continue // standard library
			}
			imports++
			if !slices.ContainsFunc(modules, func(m string) bool { return path == m || strings.HasPrefix(path, m+"/") }) {
				t.Errorf("README.md:%d imports %s, which no go get of the Install section (%v) provides", b.line, path, modules)
			}
		}
	}
	if imports < 10 {
		t.Errorf("found %d non-standard imports in the Go blocks; the test lost its way of finding them", imports)
	}
}

// buildGoBlocks compiles each Go block of a page, in parallel, as a program
// in this module (which requires every library the README and docs use); it
// returns the binaries by block index.
func buildGoBlocks(t *testing.T, page string, blocks []readmeBlock) map[int]string {
	t.Helper()
	dir := t.TempDir()
	programs := map[int]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i, b := range blocks {
		if b.lang != "go" {
			continue
		}
		src := filepath.Join(dir, fmt.Sprintf("block%d.go", i))
		bin := filepath.Join(dir, fmt.Sprintf("block%d", i))
		if err := os.WriteFile(src, []byte(b.body), 0o644); err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			out, err := exec.Command("go", "build", "-o", bin, src).CombinedOutput()
			if err != nil {
				t.Errorf("%s:%d: the Go block does not build: %v\n%s", page, b.line, err, out)
				return
			}
			mu.Lock()
			programs[i] = bin
			mu.Unlock()
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	return programs
}

// execSQL runs a block of SQL statements in one simple-protocol Exec.
func execSQL(databaseURL, sql string) error {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

// runCommand runs name with args in the repository root with DATABASE_URL
// set, and returns its combined output.
func runCommand(name string, args []string, databaseURL string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "DATABASE_URL="+databaseURL)
	return cmd.CombinedOutput()
}

// TestREADMECollisionTable checks the README's collision table against
// idtype's birthday-bound estimates.
func TestREADMECollisionTable(t *testing.T) {
	t.Parallel()
	checkCollisionTable(t, "README.md", 3)
}

// collisionHeading opens every collision table of the docs; its first two
// columns give the rate and the number of generators of a row.
const collisionHeading = "| IDs/s | generators |"

// collisionColumns maps each further column heading a collision table may
// have to the idtype figure its cells must match.
var collisionColumns = map[string]func(huid, scru128 idtype.CollisionEstimate) float64{
	"HUID per day":     func(h, _ idtype.CollisionEstimate) float64 { return h.PerDay },
	"HUID per year":    func(h, _ idtype.CollisionEstimate) float64 { return h.PerYear },
	"SCRU128 per year": func(_, s idtype.CollisionEstimate) float64 { return s.PerYear },
	// Every collision fails one insert of a pair, which is retried.
	"HUID inserts per retry": func(h, _ idtype.CollisionEstimate) float64 {
		return h.IDsPerSecond / 1000 / h.PerMillisecond
	},
}

// checkCollisionTable checks every cell of the first collision table of a
// Markdown page, named relative to the repository root, against
// idtype.HUIDCollisions and SCRU128Collisions (within 2 %, the rounding of
// three significant digits), and that it has at least minRows rows.
func checkCollisionTable(t *testing.T, page string, minRows int) {
	t.Helper()
	text, err := os.ReadFile(filepath.Join("..", page))
	if err != nil {
		t.Fatal(err)
	}
	start := strings.Index(string(text), collisionHeading)
	if start < 0 {
		t.Fatalf("%s has no collision table (a line starting %q)", page, collisionHeading)
	}
	lines := strings.Split(string(text[start:]), "\n")
	headings := tableCells(lines[0])
	figures := make([]func(h, s idtype.CollisionEstimate) float64, len(headings))
	for i, h := range headings[2:] {
		if figures[2+i] = collisionColumns[h]; figures[2+i] == nil {
			t.Fatalf("%s: collision table column %q is none this test knows", page, h)
		}
	}
	rows := 0
	for _, line := range lines[2:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := tableCells(line)
		if len(cells) != len(headings) {
			t.Fatalf("%s: table row %q has %d cells, the heading %d", page, line, len(cells), len(headings))
		}
		nums := make([]float64, len(cells))
		for i, c := range cells {
			if nums[i], err = strconv.ParseFloat(strings.ReplaceAll(c, " ", ""), 64); err != nil {
				t.Fatalf("%s: table row %q: %v", page, line, err)
			}
		}
		h, err := idtype.HUIDCollisions(nums[0], int(nums[1]))
		if err != nil {
			t.Fatal(err)
		}
		s, err := idtype.SCRU128Collisions(nums[0], int(nums[1]))
		if err != nil {
			t.Fatal(err)
		}
		for i := 2; i < len(cells); i++ {
			if want := figures[i](h, s); math.Abs(nums[i]-want) > 0.02*want {
				t.Errorf("%s: row %q column %q: %v, but idtype estimates %.3g", page, line, headings[i], nums[i], want)
			}
		}
		rows++
	}
	if rows < minRows {
		t.Fatalf("%s: collision table has %d rows, want at least %d", page, rows, minRows)
	}
}

// tableCells returns the trimmed cells of a Markdown table line.
func tableCells(line string) []string {
	cells := strings.Split(strings.Trim(line, "| "), "|")
	for i, c := range cells {
		cells[i] = strings.TrimSpace(c)
	}
	return cells
}

// TestDocsFailedCreatesPerDay: the figure docs/gorm.md gives for the
// failed Creates a day, at a rate over some generators, is idtype's
// estimate of HUID collisions a day for them.
func TestDocsFailedCreatesPerDay(t *testing.T) {
	t.Parallel()
	text, err := os.ReadFile(filepath.Join("..", "docs", "gorm.md"))
	if err != nil {
		t.Fatal(err)
	}
	prose := strings.Join(strings.Fields(string(text)), " ")
	m := regexp.MustCompile(`at (\d[\d ]*) Go-made HUIDs/s over (\d+) generators, about (\d+) failed Creates a day`).FindStringSubmatch(prose)
	if m == nil {
		t.Fatal("docs/gorm.md gives no figure of failed Creates a day")
	}
	rate, _ := strconv.ParseFloat(strings.ReplaceAll(m[1], " ", ""), 64)
	generators, _ := strconv.Atoi(m[2])
	figure, _ := strconv.ParseFloat(m[3], 64)
	h, err := idtype.HUIDCollisions(rate, generators)
	if err != nil {
		t.Fatal(err)
	}
	if math.Round(h.PerDay) != figure {
		t.Errorf("docs/gorm.md: about %v failed Creates a day at %v HUIDs/s over %d generators; idtype estimates %.3g", figure, rate, generators, h.PerDay)
	}
}
