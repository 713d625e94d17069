//go:build ignore

// gen_goose writes goose/NNNNN_name.sql from every sql/NNNN_name.{up,down}.sql pair.
// Run it with `go generate ./migrations` (from the repository root) or
// `go run gen_goose.go` inside migrations/.
package main

import (
	"log"
	"os"
	"path/filepath"

	"github.com/sortid/sortid/migrations"
)

func main() {
	// Read the files from disk, not the embedded copy, so a fresh edit is picked up
	// even though the package was compiled from the same files.
	ms, err := migrations.ReadDir(os.DirFS("sql"))
	if err != nil {
		log.Fatal(err)
	}
	if err := os.MkdirAll("goose", 0o755); err != nil {
		log.Fatal(err)
	}
	for _, m := range ms {
		src, err := migrations.GooseSource(m)
		if err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("goose", migrations.GooseName(m)), []byte(src), 0o644); err != nil {
			log.Fatal(err)
		}
	}
}
