// Command modproxy writes a file-based Go module proxy (GOPROXY=file://DIR)
// holding modules at one version, each zipped from its directory by
// golang.org/x/mod/zip as the go command zips a module (without nested
// modules, VCS directories or files it would refuse). scripts/release-check.sh
// runs it on a `git archive` of a commit to test what users will download
// before the tags exist.
//
// Usage:
//
//	modproxy -out DIR [-version v0.1.0] [-time RFC3339] MODULE_DIR...
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

func main() {
	out := flag.String("out", "", "proxy directory to write (required)")
	version := flag.String("version", "v0.1.0", "version to publish every module at")
	when := flag.String("time", "", "commit time for the .info files (RFC 3339; default now)")
	flag.Parse()
	if *out == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: modproxy -out DIR [-version v0.1.0] [-time RFC3339] MODULE_DIR...")
		os.Exit(2)
	}
	t := time.Now()
	if *when != "" {
		var err error
		if t, err = time.Parse(time.RFC3339, *when); err != nil {
			fmt.Fprintf(os.Stderr, "modproxy: -time %q: %v\n", *when, err)
			os.Exit(2)
		}
	}
	for _, dir := range flag.Args() {
		path, err := publish(*out, *version, t, dir)
		if err != nil {
			fmt.Fprintf(os.Stderr, "modproxy: %s: %v\n", dir, err)
			os.Exit(1)
		}
		fmt.Printf("%s@%s\n", path, *version)
	}
}

// publish writes the list, .info, .mod and .zip files of the module in dir
// at version and returns its module path.
func publish(out, version string, t time.Time, dir string) (string, error) {
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return "", err
	}
	path := modfile.ModulePath(gomod)
	if path == "" {
		return "", fmt.Errorf("go.mod has no module line")
	}
	escaped, err := module.EscapePath(path)
	if err != nil {
		return "", err
	}
	vdir := filepath.Join(out, filepath.FromSlash(escaped), "@v")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		return "", err
	}
	f, err := os.Create(filepath.Join(vdir, version+".zip"))
	if err != nil {
		return "", err
	}
	m := module.Version{Path: path, Version: version}
	if err := zip.CreateFromDir(f, m, dir); err != nil {
		f.Close()
		return "", fmt.Errorf("zipping %s: %w", m, err)
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, t.UTC()})
	if err != nil {
		return "", err
	}
	files := map[string][]byte{
		"list":            []byte(version + "\n"),
		version + ".info": info,
		version + ".mod":  gomod,
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(vdir, name), data, 0o644); err != nil {
			return "", err
		}
	}
	return path, nil
}
