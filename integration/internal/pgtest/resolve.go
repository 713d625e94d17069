package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvURL is the environment variable that names the PostgreSQL server the
// tests must use, as a postgres:// URL or a libpq keyword/value DSN (see
// [NormalizeDSN]) of a database on it that the user may CREATE DATABASE from.
const EnvURL = "SORTID_TEST_DATABASE"

// Default bounds of the probes made by Resolve.
const (
	DefaultDockerTimeout    = 5 * time.Second
	DefaultConnectTimeout   = 3 * time.Second
	DefaultContainerTimeout = 3 * time.Minute
)

// Source tells where a Server was found.
type Source string

// The sources Resolve tries, in order.
const (
	SourceEnv       Source = EnvURL
	SourceContainer Source = "testcontainers"
	SourceLocal     Source = "local server"
)

// Server is a PostgreSQL server the tests may create databases on.
type Server struct {
	// URL is a postgres:// URL of a maintenance database on the server.
	URL string
	// Source tells how the server was found.
	Source Source
	// stop releases the server, such as a container; nil when there is none.
	stop func(ctx context.Context) error
}

// Close releases what Resolve started for the server, such as a container.
func (s *Server) Close(ctx context.Context) error {
	if s.stop == nil {
		return nil
	}
	return s.stop(ctx)
}

// String describes the server without its password.
func (s *Server) String() string {
	return fmt.Sprintf("%s (%s)", s.Source, redact(s.URL))
}

// Env is everything Resolve reads from its surroundings, so that tests can
// replace it instead of changing the process environment.
type Env struct {
	// Getenv reads an environment variable, as os.Getenv does.
	Getenv func(key string) string
	// DockerPing reports whether a Docker engine answers. It may panic;
	// nil means Docker is not tried.
	DockerPing func(ctx context.Context) error
	// StartContainer starts a PostgreSQL container and returns it as a
	// ready Server. It may panic.
	StartContainer func(ctx context.Context) (*Server, error)
	// DockerTimeout bounds DockerPing; zero means DefaultDockerTimeout.
	DockerTimeout time.Duration
	// ConnectTimeout bounds each connection probe; zero means DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// ContainerTimeout bounds StartContainer; zero means DefaultContainerTimeout.
	ContainerTimeout time.Duration
}

// OSEnv returns the Env of this process: its environment variables and the
// Docker engine testcontainers-go finds.
func OSEnv() Env {
	return Env{
		Getenv:         os.Getenv,
		DockerPing:     dockerPing,
		StartContainer: startContainer,
	}
}

func (e Env) withDefaults() Env {
	if e.Getenv == nil {
		e.Getenv = func(string) string { return "" }
	}
	if e.DockerTimeout <= 0 {
		e.DockerTimeout = DefaultDockerTimeout
	}
	if e.ConnectTimeout <= 0 {
		e.ConnectTimeout = DefaultConnectTimeout
	}
	if e.ContainerTimeout <= 0 {
		e.ContainerTimeout = DefaultContainerTimeout
	}
	return e
}

// Resolve finds a PostgreSQL server for the tests, trying in order:
//
//  1. the URL in SORTID_TEST_DATABASE, when set; it is then the only
//     candidate, and an unreachable one is an error;
//  2. a postgres:17-alpine container from testcontainers-go, when a Docker
//     engine answers within Env.DockerTimeout;
//  3. a local server at the libpq defaults (see [LocalURL]), when it
//     answers within Env.ConnectTimeout.
//
// When none is usable the error is an *UnavailableError that names each fix.
func Resolve(ctx context.Context, env Env) (*Server, error) {
	env = env.withDefaults()
	if raw := env.Getenv(EnvURL); raw != "" {
		return fromEnvURL(ctx, env, raw)
	}
	var attempts []string
	srv, err := fromContainer(ctx, env)
	if err == nil {
		return srv, nil
	}
	attempts = append(attempts, fmt.Sprintf("Docker (testcontainers-go, %s): %v", ContainerImage, err))
	local := LocalURL(env.Getenv)
	if err := ping(ctx, local, env.ConnectTimeout); err != nil {
		attempts = append(attempts, fmt.Sprintf("local server %s: %v", redact(local), err))
		return nil, &UnavailableError{Attempts: attempts}
	}
	return &Server{URL: local, Source: SourceLocal}, nil
}

func fromEnvURL(ctx context.Context, env Env, raw string) (*Server, error) {
	dsn, err := NormalizeDSN(raw)
	if err != nil {
		return nil, fmt.Errorf("pgtest: %s: %w", EnvURL, err)
	}
	if err := ping(ctx, dsn, env.ConnectTimeout); err != nil {
		return nil, fmt.Errorf("pgtest: %s=%s: no server answers: %w\n"+
			"Fix one of:\n  - start that server, or correct %s, or unset it to let the harness use Docker or a local server\n%s",
			EnvURL, redact(raw), err, EnvURL, fixes)
	}
	return &Server{URL: dsn, Source: SourceEnv}, nil
}

func fromContainer(ctx context.Context, env Env) (*Server, error) {
	if env.DockerPing == nil || env.StartContainer == nil {
		return nil, errors.New("not configured")
	}
	if err := callBounded(ctx, env.DockerTimeout, env.DockerPing); err != nil {
		return nil, fmt.Errorf("no Docker engine answers: %w", err)
	}
	cctx, cancel := context.WithTimeout(ctx, env.ContainerTimeout)
	defer cancel()
	var srv *Server
	err := recovered(func() error {
		var err error
		srv, err = env.StartContainer(cctx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("start container: %w", err)
	}
	return srv, nil
}

// callBounded runs f in its own goroutine, turning a panic into an error and
// giving up after timeout even if f ignores its context.
func callBounded(ctx context.Context, timeout time.Duration, f func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- recovered(func() error { return f(ctx) }) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("no answer within %v: %w", timeout, ctx.Err())
	}
}

// recovered calls f and returns its error, or its panic as an error.
func recovered(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return f()
}

// LocalURL returns the URL of the local server that libpq would reach from
// PGHOST, PGPORT, PGUSER, PGPASSWORD and PGDATABASE as read by getenv,
// defaulting to localhost:5432, user postgres, database postgres. A PGHOST
// that starts with / is a Unix socket directory.
func LocalURL(getenv func(string) string) string {
	host := valueOr(getenv("PGHOST"), "localhost")
	port := valueOr(getenv("PGPORT"), "5432")
	user := valueOr(getenv("PGUSER"), "postgres")
	u := url.URL{Scheme: "postgres", Path: "/" + valueOr(getenv("PGDATABASE"), "postgres")}
	u.User = url.User(user)
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

func valueOr(v, fallback string) string {
	if v == "" {
		return fallback
	}
	return v
}

// ping connects to rawURL, bounded by timeout, and checks that the server answers.
func ping(ctx context.Context, rawURL string, timeout time.Duration) error {
	cfg, err := pgx.ParseConfig(rawURL)
	if err != nil {
		return fmt.Errorf("parse URL: %w", err)
	}
	cfg.ConnectTimeout = timeout
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if err := conn.Ping(ctx); err != nil {
		return fmt.Errorf("ping: %w", err)
	}
	return nil
}

// UnavailableError reports that Resolve found no server, with each attempt.
type UnavailableError struct {
	// Attempts says, per source tried, why it was not used.
	Attempts []string
}

// Error lists the attempts and the ways to give the tests a server.
func (e *UnavailableError) Error() string {
	var b strings.Builder
	b.WriteString("pgtest: no PostgreSQL server for the database tests.\nTried:\n")
	for _, a := range e.Attempts {
		fmt.Fprintf(&b, "  - %s\n", a)
	}
	b.WriteString("Fix one of:\n" + fixes)
	return b.String()
}

// fixes lists the ways to give the tests a server, for every error that
// reports a missing one.
const fixes = "  - set " + EnvURL + "=postgres://USER:PASSWORD@HOST:PORT/DB (or 'host=HOST user=USER dbname=DB')\n" +
	"    to a server where USER may CREATE DATABASE\n" +
	"  - start Docker, so testcontainers-go can run " + ContainerImage + " (when " + EnvURL + " is unset)\n" +
	"  - start a local PostgreSQL: `docker compose up -d postgres` with the repository's docker-compose.yml\n" +
	"    (then " + EnvURL + "=postgres://postgres:postgres@localhost:5432/test), or your system's service\n" +
	"    (`systemctl start postgresql`, `brew services start postgresql`, `pg_ctlcluster <version> main start`);\n" +
	"    PGHOST, PGPORT, PGUSER, PGPASSWORD and PGDATABASE point the harness at it when " + EnvURL + " is unset\n" +
	"  - or run `go test -short` to skip the database tests\n"
