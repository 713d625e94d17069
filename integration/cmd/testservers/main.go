// Command testservers finds the PostgreSQL and MySQL/MariaDB servers the
// database tests will use, by the harness's own rules (pgtest.Resolve and
// mysqltest.Server), prints them, and exits 1 naming the fixes when one does
// not answer. It also reports the PgBouncer (pgtest.PgBouncer) and the
// pg_partman extension (pgtest.CheckExtension) that some tests need: their
// absence fails it only under CI=true, where those tests would fail too. scripts/test.sh runs it first, so that a missing server fails
// the run in seconds rather than when the integration module's tests start.
//
// Usage, from the repository root:
//
//	go run ./integration/cmd/testservers
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/sortid/sortid/integration/internal/mysqltest"
	"github.com/sortid/sortid/integration/internal/pgtest"
)

// probeTimeout bounds the whole check when no container has to be started.
const probeTimeout = 20 * time.Second

func main() {
	os.Exit(run(context.Background(), pgtest.OSEnv(), os.Stdout, os.Stderr))
}

// run checks both servers, reporting on stdout what it will use and on
// stderr what is missing, and returns the exit code.
func run(ctx context.Context, env pgtest.Env, stdout, stderr io.Writer) int {
	code := 0
	srv, err := pgtest.Resolve(ctx, env)
	if err != nil {
		fmt.Fprintf(stderr, "PostgreSQL: %v\n", err)
		code = 1
	} else {
		fmt.Fprintf(stdout, "PostgreSQL: %s\n", srv)
		if !extras(ctx, env, srv.URL, stdout, stderr) {
			code = 1
		}
		closeCtx, cancel := context.WithTimeout(ctx, probeTimeout)
		defer cancel()
		if err := srv.Close(closeCtx); err != nil {
			fmt.Fprintf(stderr, "PostgreSQL: release %s: %v\n", srv, err)
		}
	}
	mctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	admin, desc, err := mysqltest.Server(mctx)
	if err != nil {
		fmt.Fprintf(stderr, "MySQL/MariaDB: %v\n", err)
		return 1
	}
	_ = admin.Close()
	fmt.Fprintf(stdout, "MySQL/MariaDB: %s\n", desc)
	return code
}

// extras reports the PgBouncer and the pg_partman extension on the server
// at serverURL, and returns false when one is missing under CI=true or does
// not answer.
func extras(ctx context.Context, env pgtest.Env, serverURL string, stdout, stderr io.Writer) bool {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	getenv := env.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	ok := true
	switch bouncer, err := pgtest.PgBouncer(ctx, getenv); {
	case err != nil:
		fmt.Fprintf(stderr, "PgBouncer: %v\n", err)
		ok = false
	case bouncer == "":
		fmt.Fprintf(stdout, "PgBouncer: none, the PgBouncer tests will skip (set %s)\n", pgtest.EnvPgBouncer)
	default:
		fmt.Fprintf(stdout, "PgBouncer: %s\n", bouncer)
	}
	switch found, err := pgtest.CheckExtension(ctx, serverURL, "pg_partman", getenv); {
	case err != nil:
		fmt.Fprintf(stderr, "pg_partman: %v\n", err)
		ok = false
	case !found:
		fmt.Fprintf(stdout, "pg_partman: missing, its tests will skip (%s)\n", pgtest.ExtensionFix("pg_partman"))
	default:
		fmt.Fprintln(stdout, "pg_partman: available")
	}
	return ok
}
