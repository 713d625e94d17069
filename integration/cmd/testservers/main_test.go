package main

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sortid/sortid/integration/internal/mysqltest"
	"github.com/sortid/sortid/integration/internal/pgtest"
)

// envOf returns a pgtest.Env that reads only vars and has no Docker engine.
func envOf(vars map[string]string) pgtest.Env {
	return pgtest.Env{
		Getenv:     func(k string) string { return vars[k] },
		DockerPing: func(context.Context) error { return errors.New("no docker here") },
	}
}

// Not parallel: the tests set SORTID_TEST_MYSQL, which mysqltest reads.

func TestRunFailsFastNamingFixes(t *testing.T) {
	t.Setenv(mysqltest.EnvDSN, "root@tcp(127.0.0.1:1)/")
	tests := []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"env URL", map[string]string{pgtest.EnvURL: "postgres://postgres@127.0.0.1:1/postgres"},
			[]string{"SORTID_TEST_DATABASE=postgres://postgres@127.0.0.1:1/postgres", "no server answers", "Fix"}},
		{"local", map[string]string{"PGHOST": "127.0.0.1", "PGPORT": "1"},
			[]string{"set SORTID_TEST_DATABASE=", "docker compose up -d", "systemctl start postgresql"}},
	}
	for _, tt := range tests {
		var stdout, stderr strings.Builder
		start := time.Now()
		code := run(t.Context(), envOf(tt.env), &stdout, &stderr)
		if elapsed := time.Since(start); elapsed > 10*time.Second {
			t.Errorf("%s: run took %v, want a few seconds", tt.name, elapsed)
		}
		if code != 1 {
			t.Errorf("%s: run = %d, want 1", tt.name, code)
		}
		want := append(tt.want, "127.0.0.1:1", "set SORTID_TEST_MYSQL", "docker compose up -d mariadb", "systemctl start mariadb")
		for _, w := range want {
			if !strings.Contains(stderr.String(), w) {
				t.Errorf("%s: stderr lacks %q:\n%s", tt.name, w, stderr.String())
			}
		}
	}
}

func TestRunReportsServers(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the PostgreSQL and MySQL servers")
	}
	var stdout, stderr strings.Builder
	env := pgpassthrough()
	if code := run(t.Context(), env, &stdout, &stderr); code != 0 {
		t.Fatalf("run = %d with the test servers up; stderr:\n%s", code, stderr.String())
	}
	for _, w := range []string{"PostgreSQL: ", "MySQL/MariaDB: ", "PgBouncer: ", "pg_partman: "} {
		if !strings.Contains(stdout.String(), w) {
			t.Errorf("stdout lacks %q:\n%s", w, stdout.String())
		}
	}
}

// pgpassthrough is the process's own pgtest.Env without Docker, so the test
// uses the server the rest of the suite uses and starts no container.
func pgpassthrough() pgtest.Env {
	env := pgtest.OSEnv()
	env.DockerPing, env.StartContainer = nil, nil
	return env
}

func TestRunFailsWithoutPgBouncerInCI(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the PostgreSQL and MySQL servers")
	}
	env := pgpassthrough()
	getenv := env.Getenv
	env.Getenv = func(k string) string {
		switch k {
		case pgtest.EnvPgBouncer:
			return ""
		case pgtest.EnvCI:
			return "true"
		}
		return getenv(k)
	}
	var stdout, stderr strings.Builder
	if code := run(t.Context(), env, &stdout, &stderr); code != 1 {
		t.Errorf("run = %d under CI=true without %s, want 1", code, pgtest.EnvPgBouncer)
	}
	if !strings.Contains(stderr.String(), "scripts/pgbouncer.sh") {
		t.Errorf("stderr does not name the fix:\n%s", stderr.String())
	}
}
