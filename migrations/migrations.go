package migrations

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
)

//go:embed sql/*.sql goose/*.sql
var files embed.FS

// migration is one version: its golang-migrate up and down file names and contents.
type migration struct {
	Version  int
	Name     string // e.g. "sortid"
	UpFile   string // e.g. "0001_sortid.up.sql"
	DownFile string
	UpSQL    string
	DownSQL  string
}

// MigrateFS returns the migrations in the golang-migrate layout
// (NNNN_name.up.sql / NNNN_name.down.sql at the root), for iofs.New(fsys, ".").
func MigrateFS() fs.FS {
	sub, err := fs.Sub(files, "sql")
	if err != nil {
		panic(err) // cannot happen: "sql" is a valid path
	}
	return sub
}

// GooseFS returns the migrations in the goose layout (NNNNN_name.sql with
// -- +goose Up / Down sections at the root).
func GooseFS() fs.FS {
	sub, err := fs.Sub(files, "goose")
	if err != nil {
		panic(err) // cannot happen: "goose" is a valid path
	}
	return sub
}

// all returns every migration in version order, read from MigrateFS. It fails if a
// file name is malformed or an up file has no down file (or the reverse).
func all() ([]migration, error) {
	return readDir(MigrateFS())
}

// readDir reads the golang-migrate files at the root of fsys.
func readDir(fsys fs.FS) ([]migration, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("migrations: %w", err)
	}
	byVersion := map[int]*migration{}
	for _, e := range entries {
		fileName := e.Name()
		if e.IsDir() || path.Ext(fileName) != ".sql" {
			continue
		}
		base, dir, ok := strings.Cut(strings.TrimSuffix(fileName, ".sql"), ".")
		verText, name, ok2 := strings.Cut(base, "_")
		ver, err := strconv.Atoi(verText)
		if !ok || !ok2 || err != nil || ver <= 0 || (dir != "up" && dir != "down") {
			return nil, fmt.Errorf("migrations: malformed file name %q (want NNNN_name.up.sql or .down.sql)", fileName)
		}
		data, err := fs.ReadFile(fsys, fileName)
		if err != nil {
			return nil, fmt.Errorf("migrations: %s: %w", fileName, err)
		}
		m := byVersion[ver]
		if m == nil {
			m = &migration{Version: ver, Name: name}
			byVersion[ver] = m
		}
		if m.Name != name {
			return nil, fmt.Errorf("migrations: version %d has two names, %q and %q", ver, m.Name, name)
		}
		if dir == "up" {
			m.UpFile, m.UpSQL = fileName, string(data)
		} else {
			m.DownFile, m.DownSQL = fileName, string(data)
		}
	}
	out := make([]migration, 0, len(byVersion))
	for _, m := range byVersion {
		if m.UpFile == "" || m.DownFile == "" {
			return nil, fmt.Errorf("migrations: version %d lacks its up or down file", m.Version)
		}
		out = append(out, *m)
	}
	slices.SortFunc(out, func(a, b migration) int { return a.Version - b.Version })
	return out, nil
}

func mustMigrations() []migration {
	ms, err := all()
	if err != nil {
		panic(err) // the embedded files are checked by the package tests
	}
	return ms
}

// Up returns the SQL of every up migration, concatenated in version order, with no
// transaction control: run it in one transaction (one Exec, or psql --single-transaction;
// `sortid sql up` adds BEGIN/COMMIT).
func Up() string {
	var b strings.Builder
	for _, m := range mustMigrations() {
		b.WriteString(m.UpSQL)
		if !strings.HasSuffix(m.UpSQL, "\n") {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// Down returns the SQL of every down migration, concatenated in reverse version order,
// with no transaction control. Before dropping anything it raises SQLSTATE 2BP01
// naming every object outside sortid that still uses a sortid function or domain, so a
// down that cannot finish changes nothing, in a transaction or not.
func Down() string {
	var b strings.Builder
	ms := mustMigrations()
	for _, m := range slices.Backward(ms) {
		b.WriteString(m.DownSQL)
		if !strings.HasSuffix(m.DownSQL, "\n") {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// Apply runs every up migration, statement by statement, in one transaction, and
// commits. It records no version: the up migrations are idempotent, so Apply can run on
// every start. A transaction-level advisory lock serializes concurrent Apply calls.
// Errors name the file and wrap the driver error.
func Apply(ctx context.Context, db *sql.DB) (err error) {
	ms, err := all()
	if err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrations: begin: %w", err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	// A constant of sortid's own, never to change, so that Apply calls of every
	// version serialize; it means nothing else.
	if _, err = tx.ExecContext(ctx, "SELECT pg_catalog.pg_advisory_xact_lock(126879511733604)"); err != nil {
		return fmt.Errorf("migrations: lock: %w", err)
	}
	for _, m := range ms {
		stmts, err := splitStatements(m.UpSQL)
		if err != nil {
			return fmt.Errorf("migrations: %s: %w", m.UpFile, err)
		}
		for i, st := range stmts {
			if _, err = tx.ExecContext(ctx, st.SQL); err != nil {
				return fmt.Errorf("migrations: %s statement %d: %w", m.UpFile, i+1, err)
			}
		}
	}
	if err = tx.Commit(); err != nil {
		return fmt.Errorf("migrations: commit: %w", err)
	}
	return nil
}

// gooseName returns the goose file name of m, e.g. "00001_sortid.sql".
func gooseName(m migration) string {
	return fmt.Sprintf("%05d_%s.sql", m.Version, m.Name)
}

// gooseSource returns the goose file content generated for m.
func gooseSource(m migration) (string, error) {
	header := "Code generated from sql/" + m.UpFile + " and sql/" + m.DownFile + " by the migrations tests; DO NOT EDIT.\n" +
		"Edit the canonical files and run `go test ./migrations -update`."
	out, err := gooseFromUpDown(header, m.UpSQL, m.DownSQL)
	if err != nil {
		return "", fmt.Errorf("migrations: %s: %w", m.UpFile, err)
	}
	return out, nil
}
