// Command testservers finds the PostgreSQL and MySQL/MariaDB servers the
// database tests will use, by the harness's own rules (pgtest.Resolve and
// mysqltest.Server), prints them, and exits 1 naming the fixes when one does
// not answer. scripts/test.sh runs it first, so that a missing server fails
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
