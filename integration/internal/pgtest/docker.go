package pgtest

import (
	"context"
	"fmt"

	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/modules/postgres"
)

// ContainerImage is the PostgreSQL image the testcontainers-go source runs.
const ContainerImage = "postgres:17-alpine"

// dockerPing reports whether testcontainers-go finds a Docker engine that
// answers, as testcontainers.SkipIfProviderIsNotHealthy checks it. It panics
// where testcontainers-go does when no Docker host can be found.
func dockerPing(ctx context.Context) error {
	provider, err := testcontainers.ProviderDefault.GetProvider()
	if err != nil {
		return fmt.Errorf("docker provider: %w", err)
	}
	defer provider.Close()
	if err := provider.Health(ctx); err != nil {
		return fmt.Errorf("docker health: %w", err)
	}
	return nil
}

// startContainer runs ContainerImage and waits until it accepts connections.
func startContainer(ctx context.Context) (*Server, error) {
	ctr, err := postgres.Run(ctx, ContainerImage,
		postgres.WithDatabase("postgres"),
		postgres.WithUsername("postgres"),
		postgres.WithPassword("postgres"),
		postgres.BasicWaitStrategies(),
	)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", ContainerImage, terminateAfter(ctr, err))
	}
	url, err := ctr.ConnectionString(ctx, "sslmode=disable")
	if err != nil {
		return nil, fmt.Errorf("connection string: %w", terminateAfter(ctr, err))
	}
	stop := func(context.Context) error { return testcontainers.TerminateContainer(ctr) }
	return &Server{URL: url, Source: SourceContainer, stop: stop}, nil
}

// terminateAfter terminates a container that failed to start and returns err,
// joined with any failure to terminate it.
func terminateAfter(ctr *postgres.PostgresContainer, err error) error {
	if ctr == nil {
		return err
	}
	if terr := testcontainers.TerminateContainer(ctr); terr != nil {
		return fmt.Errorf("%w (and terminate: %w)", err, terr)
	}
	return err
}
