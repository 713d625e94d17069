package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// closedURL names a port nothing listens on.
const closedURL = "postgres://postgres@127.0.0.1:1/x"

// envOf returns a Getenv that reads vars only.
func envOf(vars map[string]string) func(string) string {
	return func(key string) string { return vars[key] }
}

// noDocker is a DockerPing for a machine without a Docker engine.
func noDocker(context.Context) error { return errors.New("no docker here") }

// unexpectedContainer is a StartContainer that fails tb when called.
func unexpectedContainer(tb testing.TB) func(context.Context) (*Server, error) {
	return func(context.Context) (*Server, error) {
		tb.Error("StartContainer called")
		return nil, errors.New("unexpected")
	}
}

// closedLocal points the local source at a closed port.
var closedLocal = map[string]string{"PGHOST": "127.0.0.1", "PGPORT": "1"}

func TestResolveNothingReachable(t *testing.T) {
	t.Parallel()
	_, err := Resolve(t.Context(), Env{
		Getenv:         envOf(closedLocal),
		DockerPing:     noDocker,
		StartContainer: unexpectedContainer(t),
	})
	var unavailable *UnavailableError
	if !errors.As(err, &unavailable) {
		t.Fatalf("Resolve error = %v, want *UnavailableError", err)
	}
	if len(unavailable.Attempts) != 2 {
		t.Errorf("Attempts = %q, want Docker and local", unavailable.Attempts)
	}
	for _, want := range []string{
		"no docker here", "127.0.0.1:1",
		"SORTID_TEST_DATABASE=postgres://", "host=HOST user=USER", "start Docker", "docker compose up -d postgres",
		"pg_ctlcluster", "go test -short",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

func TestResolveEnvURLTakesPrecedence(t *testing.T) {
	t.Parallel()
	docker := func(context.Context) error {
		t.Error("DockerPing called although SORTID_TEST_DATABASE is set")
		return nil
	}
	_, err := Resolve(t.Context(), Env{
		Getenv:         envOf(map[string]string{EnvURL: closedURL, "PGHOST": "localhost"}),
		DockerPing:     docker,
		StartContainer: unexpectedContainer(t),
	})
	if err == nil {
		t.Fatal("Resolve succeeded with an unreachable SORTID_TEST_DATABASE")
	}
	var unavailable *UnavailableError
	if errors.As(err, &unavailable) {
		t.Errorf("Resolve fell back to other sources: %v", err)
	}
	for _, want := range []string{EnvURL + "=" + closedURL, "no server answers", "or unset it", "docker compose up -d postgres", "systemctl start postgresql"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

func TestResolveEnvURLMustBeAConnectionString(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{"mysql://root@localhost/x", "host=localhost dbname", "postgres://[::1", "host='unclosed"} {
		_, err := Resolve(t.Context(), Env{Getenv: envOf(map[string]string{EnvURL: raw})})
		if !errors.Is(err, ErrDSN) || !strings.Contains(err.Error(), EnvURL) || !strings.Contains(err.Error(), strconv.Quote(raw)) {
			t.Errorf("Resolve with %s=%q: error %v, want ErrDSN naming %s and quoting the input as given", EnvURL, raw, err, EnvURL)
		}
	}
}

// dsnTests are keyword/value DSNs and the URLs NormalizeDSN makes of them.
var dsnTests = []struct{ in, want string }{
	{"postgres://u:p%40w@h:5433/db?sslmode=disable", "postgres://u:p%40w@h:5433/db?sslmode=disable"},
	{"host=127.0.0.1 user=postgres dbname=postgres", "postgres://postgres@127.0.0.1/postgres"},
	{"host=h port=5433 user=u password=secret dbname=d sslmode=disable", "postgres://u:secret@h:5433/d?sslmode=disable"},
	{"host = h  user='o\\'neil x' dbname='my db'", "postgres://o%27neil%20x@h/my%20db"},
	{"host=/var/run/postgresql port=5432 dbname=d", "postgres:///d?host=%2Fvar%2Frun%2Fpostgresql&port=5432"},
	{"host=a,b port=1,2 user=u", "postgres://u@?host=a%2Cb&port=1%2C2"},
	{"password=s3 host=h", "postgres://h?password=s3"},
}

func TestNormalizeDSN(t *testing.T) {
	t.Parallel()
	for _, tt := range dsnTests {
		got, err := NormalizeDSN(tt.in)
		if err != nil {
			t.Errorf("NormalizeDSN(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("NormalizeDSN(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRedact(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"postgres://u:secret@h:5432/db", "postgres://u:xxxxx@h:5432/db"},
		{"postgres://u@h/db?sslmode=disable&password=secret", "postgres://u@h/db?sslmode=disable&password=xxxxx"},
		{"host=h  password = 'sec ret' user=u", "host=h  password = xxxxx user=u"},
		{"password=secret host=h", "password=xxxxx host=h"},
		{"host=h user=u", "host=h user=u"},
	}
	for _, tt := range tests {
		if got := redact(tt.in); got != tt.want {
			t.Errorf("redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestResolveKeywordValueDSN(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("needs a PostgreSQL server")
	}
	// The server the other database tests use, written as keyword/value.
	srv, err := Resolve(t.Context(), Env{Getenv: os.Getenv})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := pgx.ParseConfig(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	dsn := fmt.Sprintf("host=%s port=%d user=%s password='%s' dbname=%s sslmode=disable",
		cfg.Host, cfg.Port, cfg.User, cfg.Password, cfg.Database)
	got, err := Resolve(t.Context(), Env{Getenv: envOf(map[string]string{EnvURL: dsn})})
	if err != nil {
		t.Fatalf("Resolve with %s=%q: %v", EnvURL, redact(dsn), err)
	}
	gotCfg, err := pgx.ParseConfig(got.URL)
	if err != nil || got.Source != SourceEnv || gotCfg.Host != cfg.Host || gotCfg.Port != cfg.Port || gotCfg.Database != cfg.Database {
		t.Errorf("Resolve = %s %q (%v), want %s naming %s:%d/%s", got.Source, redact(got.URL), err, SourceEnv, cfg.Host, cfg.Port, cfg.Database)
	}
}

func TestResolveRecoversDockerPanic(t *testing.T) {
	t.Parallel()
	_, err := Resolve(t.Context(), Env{
		Getenv:         envOf(closedLocal),
		DockerPing:     func(context.Context) error { panic("MustExtractDockerHost: no host") },
		StartContainer: unexpectedContainer(t),
	})
	var unavailable *UnavailableError
	if !errors.As(err, &unavailable) || !strings.Contains(err.Error(), "panic: MustExtractDockerHost") {
		t.Errorf("Resolve error = %v, want *UnavailableError reporting the panic", err)
	}
}

func TestResolveBoundsDockerProbe(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	hang := func(context.Context) error { <-release; return nil } // ignores its context
	start := time.Now()
	_, err := Resolve(t.Context(), Env{
		Getenv:         envOf(closedLocal),
		DockerPing:     hang,
		StartContainer: unexpectedContainer(t),
		DockerTimeout:  50 * time.Millisecond,
	})
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Errorf("Resolve took %v with a hanging Docker probe bounded to 50ms", elapsed)
	}
	if err == nil || !strings.Contains(err.Error(), "no answer within 50ms") {
		t.Errorf("Resolve error = %v, want the probe's timeout", err)
	}
}

func TestResolveUsesContainerWhenDockerAnswers(t *testing.T) {
	t.Parallel()
	const containerURL = "postgres://postgres:secret@127.0.0.1:1/postgres?sslmode=disable"
	start := func(ctx context.Context) (*Server, error) {
		if _, ok := ctx.Deadline(); !ok {
			t.Error("StartContainer got a context without deadline")
		}
		return &Server{URL: containerURL, Source: SourceContainer}, nil
	}
	srv, err := Resolve(t.Context(), Env{
		Getenv:         envOf(closedLocal),
		DockerPing:     func(context.Context) error { return nil },
		StartContainer: start,
	})
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	if srv.Source != SourceContainer || srv.URL != containerURL {
		t.Errorf("Resolve = %s %s, want the container", srv.Source, srv.URL)
	}
	if s := srv.String(); strings.Contains(s, "secret") || !strings.Contains(s, "testcontainers") {
		t.Errorf("Server.String() = %q, want source shown and password hidden", s)
	}
}

func TestResolveFallsThroughFailedContainer(t *testing.T) {
	t.Parallel()
	for name, start := range map[string]func(context.Context) (*Server, error){
		"error": func(context.Context) (*Server, error) { return nil, errors.New("image pull failed") },
		"panic": func(context.Context) (*Server, error) { panic("image pull failed") },
	} {
		_, err := Resolve(t.Context(), Env{
			Getenv:         envOf(closedLocal),
			DockerPing:     func(context.Context) error { return nil },
			StartContainer: start,
		})
		var unavailable *UnavailableError
		if !errors.As(err, &unavailable) || !strings.Contains(err.Error(), "image pull failed") {
			t.Errorf("%s: Resolve error = %v, want *UnavailableError with the container's failure", name, err)
		}
	}
}

func TestLocalURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		env  map[string]string
		want string
	}{
		{nil, "postgres://postgres@localhost:5432/postgres"},
		{
			map[string]string{"PGHOST": "db", "PGPORT": "6543", "PGUSER": "u", "PGPASSWORD": "p@ss/w", "PGDATABASE": "test"},
			"postgres://u:p%40ss%2Fw@db:6543/test",
		},
		{map[string]string{"PGHOST": "::1"}, "postgres://postgres@[::1]:5432/postgres"},
		{
			map[string]string{"PGHOST": "/var/run/postgresql"},
			"postgres://postgres@/postgres?host=%2Fvar%2Frun%2Fpostgresql&port=5432",
		},
	}
	for _, tt := range tests {
		if got := LocalURL(envOf(tt.env)); got != tt.want {
			t.Errorf("LocalURL(%v) = %q, want %q", tt.env, got, tt.want)
		}
		if _, err := NormalizeDSN(tt.want); err != nil {
			t.Errorf("LocalURL(%v) is not a valid URL: %v", tt.env, err)
		}
	}
}

func TestNewDatabaseName(t *testing.T) {
	t.Parallel()
	seen := make(map[string]bool)
	for range 100 {
		name := NewDatabaseName()
		if !IsDatabaseName(name) || len(name) != len(NamePrefix)+16 {
			t.Fatalf("NewDatabaseName() = %q, want %s and 16 hex digits", name, NamePrefix)
		}
		if seen[name] {
			t.Fatalf("NewDatabaseName() repeated %q", name)
		}
		seen[name] = true
	}
	for _, bad := range []string{"sortid_test_", "sortid_test_0123456789ABCDEF", "x_sortid_test_0123456789abcdef", "sortid_test_0123456789abcdef0"} {
		if IsDatabaseName(bad) {
			t.Errorf("IsDatabaseName(%q) = true", bad)
		}
	}
}

func TestWithDatabase(t *testing.T) {
	t.Parallel()
	got, err := WithDatabase("postgres://u:p%40w@h:5433/postgres?sslmode=disable", "sortid_test_00ff")
	if want := "postgres://u:p%40w@h:5433/sortid_test_00ff?sslmode=disable"; err != nil || got != want {
		t.Errorf("WithDatabase = %q, %v; want %q", got, err, want)
	}
	if _, err := WithDatabase("postgres://[::1", "x"); err == nil {
		t.Error("WithDatabase accepted an unparsable URL")
	}
}

func TestIsStale(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	old := commentPrefix + now.Add(-StaleAfter-time.Minute).Format(time.RFC3339)
	fresh := commentPrefix + now.Add(-time.Minute).Format(time.RFC3339)
	tests := []struct {
		name, comment string
		want          bool
	}{
		{"sortid_test_0123456789abcdef", old, true},
		{"sortid_test_0123456789abcdef", fresh, false},
		{"sortid_test_0123456789abcdef", "", false},
		{"sortid_test_0123456789abcdef", commentPrefix + "yesterday", false},
		{"sortid_test_mine", old, false},
	}
	for _, tt := range tests {
		if got := isStale(tt.name, tt.comment, now); got != tt.want {
			t.Errorf("isStale(%q, %q) = %v, want %v", tt.name, tt.comment, got, tt.want)
		}
	}
}

// fakeM counts the runs of a testing.M stand-in.
type fakeM struct{ runs int }

func (m *fakeM) Run() int { m.runs++; return 7 }

func TestRunFailsWithoutServer(t *testing.T) {
	t.Parallel()
	var m fakeM
	var log strings.Builder
	code := run(&m, Env{Getenv: envOf(closedLocal), DockerPing: noDocker}, &log)
	if testing.Short() {
		if code != 7 || m.runs != 1 {
			t.Errorf("-short: run = %d after %d runs, want the tests' code 7 after 1 run", code, m.runs)
		}
		return
	}
	if code != 1 || m.runs != 0 {
		t.Errorf("run = %d after %d test runs, want 1 without running the tests", code, m.runs)
	}
	if !strings.Contains(log.String(), "Fix one of") {
		t.Errorf("run printed %q, want the fixes", log.String())
	}
}
