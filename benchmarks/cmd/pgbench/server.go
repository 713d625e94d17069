package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/sortid/sortid/migrations"
)

// envURL names the server, as for the integration harness (pgtest).
const envURL = "SORTID_TEST_DATABASE"

// resolveServer returns the URL of a maintenance database to create the
// scratch database from: SORTID_TEST_DATABASE when set, else the libpq
// defaults, as the integration harness does (without its Docker step:
// benchmark numbers from a throwaway container would not describe the
// server the docs name). It fails, naming the fixes, when none answers.
func resolveServer(ctx context.Context, getenv func(string) string) (string, error) {
	raw, source := getenv(envURL), envURL
	if raw == "" {
		raw, source = localURL(getenv), "libpq defaults (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE)"
	}
	if err := ping(ctx, raw); err != nil {
		return "", fmt.Errorf("pgbench: no PostgreSQL server at %s from %s: %w\n"+
			"Fix one of:\n"+
			"  - set %s=postgres://USER:PASSWORD@HOST:PORT/DB to a server where USER may CREATE DATABASE\n"+
			"  - start a local server: `docker compose up -d` in the repository root (then\n"+
			"    %s=postgres://postgres:postgres@localhost:5432/test), or `pg_ctlcluster <version> main start`",
			redact(raw), source, err, envURL, envURL)
	}
	return raw, nil
}

// localURL builds the URL libpq would use from its environment variables,
// defaulting to localhost:5432, user and database postgres.
func localURL(getenv func(string) string) string {
	or := func(k, d string) string {
		if v := getenv(k); v != "" {
			return v
		}
		return d
	}
	host, port, user := or("PGHOST", "localhost"), or("PGPORT", "5432"), or("PGUSER", "postgres")
	u := url.URL{Scheme: "postgres", Path: "/" + or("PGDATABASE", "postgres"), User: url.User(user)}
	if pw := getenv("PGPASSWORD"); pw != "" {
		u.User = url.UserPassword(user, pw)
	}
	if strings.HasPrefix(host, "/") {
		u.RawQuery = url.Values{"host": {host}, "port": {port}}.Encode()
	} else {
		u.Host = net.JoinHostPort(host, port)
	}
	return u.String()
}

func ping(ctx context.Context, raw string) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, raw)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	return conn.Ping(ctx)
}

func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "<unparsable URL>"
	}
	return u.Redacted()
}

// scratch is the database one run creates and drops.
type scratch struct {
	name, serverURL, url string
}

// createScratch creates sortid_bench_<hex> from template0 and applies the
// sortid migrations to it.
func createScratch(ctx context.Context, serverURL string) (*scratch, error) {
	var b [6]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails; it crashes instead
	s := &scratch{name: "sortid_bench_" + hex.EncodeToString(b[:]), serverURL: serverURL}
	u, err := url.Parse(serverURL)
	if err != nil {
		return nil, err
	}
	u.Path, u.RawPath = "/"+s.name, ""
	s.url = u.String()
	if err := adminExec(ctx, serverURL, "CREATE DATABASE "+pgx.Identifier{s.name}.Sanitize()+" TEMPLATE template0"); err != nil {
		return nil, fmt.Errorf("create scratch database: %w", err)
	}
	cfg, err := pgx.ParseConfig(s.url)
	if err != nil {
		return nil, err
	}
	db := stdlib.OpenDB(*cfg)
	defer db.Close()
	if err := migrations.Apply(ctx, db); err != nil {
		return s, fmt.Errorf("apply migrations: %w", err)
	}
	return s, nil
}

// drop drops the scratch database; it uses its own context so that an
// interrupted run still cleans up.
func (s *scratch) drop() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := adminExec(ctx, s.serverURL, "DROP DATABASE IF EXISTS "+pgx.Identifier{s.name}.Sanitize()+" WITH (FORCE)"); err != nil {
		fmt.Fprintf(os.Stderr, "pgbench: could not drop %s: %v (drop it by hand)\n", s.name, err)
	}
}

func adminExec(ctx context.Context, serverURL, sql string) error {
	conn, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, sql)
	return err
}
