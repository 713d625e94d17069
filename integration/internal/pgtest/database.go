package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/sortid/sortid/migrations"
)

// NamePrefix starts the name of every database the harness creates.
const NamePrefix = "sortid_test_"

// StaleAfter is the age past which a database left by a crashed run is
// dropped when the next run starts.
const StaleAfter = 6 * time.Hour

// commentPrefix starts the COMMENT that records when a database was created.
const commentPrefix = "pgtest run started "

// nameRE matches the names NewDatabaseName makes.
var nameRE = regexp.MustCompile(`^` + NamePrefix + `[0-9a-f]{16}$`)

// NewDatabaseName returns NamePrefix followed by 16 hex digits from crypto/rand.
func NewDatabaseName() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails; it crashes instead.
	return NamePrefix + hex.EncodeToString(b[:])
}

// IsDatabaseName reports whether name is one NewDatabaseName could make.
func IsDatabaseName(name string) bool {
	return nameRE.MatchString(name)
}

// WithDatabase returns serverURL naming database name instead of its own,
// keeping every other part of it.
func WithDatabase(serverURL, name string) (string, error) {
	u, err := url.Parse(serverURL)
	if err != nil {
		return "", fmt.Errorf("parse server URL: %w", err)
	}
	u.Path, u.RawPath = "/"+name, ""
	return u.String(), nil
}

// WithParam returns rawURL with the query parameter key set to value.
func WithParam(rawURL, key, value string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", fmt.Errorf("parse URL: %w", err)
	}
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// Database is a database created on a server for one test run.
type Database struct {
	// Name is the database's name, as NewDatabaseName makes them.
	Name string
	// URL connects to the database.
	URL string
	// serverURL connects to the maintenance database it was created from.
	serverURL string
}

// CreateDatabase creates a database with a fresh name on the server at
// serverURL, from template0 with UTF8 encoding and the C collation (so text
// sorts bytewise), and records its creation time in its COMMENT.
func CreateDatabase(ctx context.Context, serverURL string) (*Database, error) {
	name := NewDatabaseName()
	dbURL, err := WithDatabase(serverURL, name)
	if err != nil {
		return nil, err
	}
	conn, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", redact(serverURL), err)
	}
	defer conn.Close(context.Background())
	ident := pgx.Identifier{name}.Sanitize()
	create := "CREATE DATABASE " + ident +
		" TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'"
	if _, err := conn.Exec(ctx, create); err != nil {
		return nil, fmt.Errorf("create database %s: %w", ident, err)
	}
	db := &Database{Name: name, URL: dbURL, serverURL: serverURL}
	comment := fmt.Sprintf("COMMENT ON DATABASE %s IS '%s%s'",
		ident, commentPrefix, time.Now().UTC().Format(time.RFC3339))
	if _, err := conn.Exec(ctx, comment); err != nil {
		return nil, errors.Join(fmt.Errorf("comment on database %s: %w", ident, err), db.Drop(ctx))
	}
	return db, nil
}

// Migrate applies every sortid migration to the database with migrations.Apply.
func (d *Database) Migrate(ctx context.Context) error {
	cfg, err := pgx.ParseConfig(d.URL)
	if err != nil {
		return fmt.Errorf("parse database URL: %w", err)
	}
	sqlDB := stdlib.OpenDB(*cfg)
	defer sqlDB.Close()
	if err := migrations.Apply(ctx, sqlDB); err != nil {
		return fmt.Errorf("apply migrations to %s: %w", d.Name, err)
	}
	return nil
}

// Drop drops the database, ending any session still connected to it.
func (d *Database) Drop(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, d.serverURL)
	if err != nil {
		return fmt.Errorf("connect to %s: %w", redact(d.serverURL), err)
	}
	defer conn.Close(context.Background())
	ident := pgx.Identifier{d.Name}.Sanitize()
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+ident+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("drop database %s: %w", ident, err)
	}
	return nil
}

// DropStale drops the databases of earlier runs, found by name and by the
// creation time in their COMMENT, that are older than StaleAfter: runs that
// crashed or were killed before they could drop their own. It returns the
// names dropped; a database still in use is left alone.
func DropStale(ctx context.Context, serverURL string, now time.Time) ([]string, error) {
	conn, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", redact(serverURL), err)
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(ctx, `SELECT datname, coalesce(shobj_description(oid, 'pg_database'), '')
		FROM pg_database WHERE datname LIKE 'sortid\_test\_%'`)
	if err != nil {
		return nil, fmt.Errorf("list databases: %w", err)
	}
	var stale []string
	for rows.Next() {
		var name, comment string
		if err := rows.Scan(&name, &comment); err != nil {
			return nil, fmt.Errorf("scan database: %w", err)
		}
		if isStale(name, comment, now) {
			stale = append(stale, name)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list databases: %w", err)
	}
	var dropped []string
	for _, name := range stale {
		// No FORCE: a database someone is connected to is not stale.
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()); err == nil {
			dropped = append(dropped, name)
		}
	}
	return dropped, nil
}

// isStale reports whether a database is one the harness made more than
// StaleAfter before now.
func isStale(name, comment string, now time.Time) bool {
	if !IsDatabaseName(name) {
		return false
	}
	stamp, ok := strings.CutPrefix(comment, commentPrefix)
	if !ok {
		return false
	}
	created, err := time.Parse(time.RFC3339, stamp)
	return err == nil && now.Sub(created) > StaleAfter
}
