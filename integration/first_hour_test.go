package integration_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// firstHourProgram uses the three modules of the Install section: idtype,
// pgxtype (a HUID through a type map with the codecs registered) and
// gormtype.
const firstHourProgram = `package main

import (
	"fmt"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/sortid/sortid/gormtype"
	"github.com/sortid/sortid/idtype"
	"github.com/sortid/sortid/pgxtype"
)

func main() {
	m := pgtype.NewMap()
	pgxtype.Register(m)
	h := idtype.NewHUID()
	buf, err := m.Encode(pgtype.Int8OID, pgtype.BinaryFormatCode, h, nil)
	if err != nil {
		panic(err)
	}
	var back idtype.HUID
	if err := m.Scan(pgtype.Int8OID, pgtype.BinaryFormatCode, buf, &back); err != nil {
		panic(err)
	}
	fmt.Println(back == h && len(buf) == 8, gormtype.HUID(h).String() == h.String())
}
`

// TestFirstHourInstallFromClone follows the README's Install section in a
// new module outside the repository, as someone with a clone of the
// unpublished modules would: it runs the block marked clone (with SORTID
// naming this clone), then the go get block, exactly as written, checks
// that the three modules now come from the clone, and builds and runs a
// program using idtype, pgxtype and gormtype, and builds every Go block of
// the README there. Third-party modules come from GOPROXY as the
// environment has it; GOFLAGS=-mod=mod lets the build add the drivers the
// examples need.
func TestFirstHourInstallFromClone(t *testing.T) {
	t.Parallel()
	clone, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	var cloneBlocks, getBlocks []readmeBlock
	blocks := readmeBlocks(t)
	for _, b := range blocks {
		switch {
		case b.clone:
			cloneBlocks = append(cloneBlocks, b)
		case b.lang == "sh" && strings.Contains(b.body, "go get github.com/sortid/sortid@"):
			getBlocks = append(getBlocks, b)
		}
	}
	if len(cloneBlocks) != 1 || len(getBlocks) != 1 {
		t.Fatalf("README.md has %d blocks marked clone and %d go get blocks; want one of each", len(cloneBlocks), len(getBlocks))
	}
	dir := t.TempDir()
	if rel, err := filepath.Rel(clone, dir); err != nil || !strings.HasPrefix(rel, "..") {
		t.Fatalf("temporary module %s is inside the clone %s", dir, clone)
	}
	env := append(os.Environ(),
		"SORTID="+clone,
		"GOWORK=off",
		"GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -mod=mod"),
	)
	run := func(what, name string, args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir = dir
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", what, err, out)
		}
		return string(out)
	}
	run("go mod init", "go", "mod", "init", "example.com/firsthour")
	for _, b := range []readmeBlock{cloneBlocks[0], getBlocks[0]} {
		run(fmt.Sprintf("README.md:%d", b.line), "bash", "-euo", "pipefail", "-c", b.body)
	}
	for _, m := range []string{"", "/pgxtype", "/gormtype"} {
		got := strings.TrimSpace(run("go list -m", "go", "list", "-m", "-f", "{{with .Replace}}{{.Dir}}{{end}}", "github.com/sortid/sortid"+m))
		if got != clone+m {
			t.Errorf("github.com/sortid/sortid%s comes from %q; want the clone, %s", m, got, clone+m)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(firstHourProgram), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := run("go run .", "go", "run", "."); strings.TrimSpace(out) != "true true" {
		t.Errorf("the program printed %q; want \"true true\"", out)
	}
	// Every Go block of the README, as a program of this module.
	built := 0
	for i, b := range blocks {
		if b.lang != "go" {
			continue
		}
		pkg := filepath.Join(dir, "readme", fmt.Sprintf("block%d", i))
		if err := os.MkdirAll(pkg, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(pkg, "main.go"), []byte(b.body), 0o644); err != nil {
			t.Fatal(err)
		}
		built++
	}
	if built < 4 {
		t.Fatalf("found %d Go blocks in README.md; want at least 4", built)
	}
	run("go build ./readme/...", "go", "build", "./readme/...")
}
