package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/sortid/sortid/integration/internal/pgtest"
)

// resolveServer finds the server with the integration harness's rules
// (pgtest.Resolve: SORTID_TEST_DATABASE, else the libpq defaults), without
// its Docker step: benchmark numbers from a throwaway container would not
// describe the server the docs name. It fails, naming the fixes, when none
// answers.
func resolveServer(ctx context.Context, getenv func(string) string) (*pgtest.Server, error) {
	srv, err := pgtest.Resolve(ctx, pgtest.Env{Getenv: getenv})
	if err != nil {
		return nil, fmt.Errorf("pgbench: %w", err)
	}
	return srv, nil
}

// createScratch creates the run's database with the harness and applies the
// sortid migrations to it; a database returned with an error must still be dropped.
func createScratch(ctx context.Context, serverURL string) (*pgtest.Database, error) {
	db, err := pgtest.CreateDatabase(ctx, serverURL)
	if err != nil {
		return nil, fmt.Errorf("create scratch database: %w", err)
	}
	return db, db.Migrate(ctx)
}

// dropScratch drops the scratch database with its own context, so that an
// interrupted run still cleans up.
func dropScratch(db *pgtest.Database) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := db.Drop(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "pgbench: could not drop %s: %v (drop it by hand)\n", db.Name, err)
	}
}
