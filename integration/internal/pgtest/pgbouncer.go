package pgtest

import (
	"context"
	"fmt"
)

// EnvPgBouncer is the environment variable that names, as a postgres:// URL,
// a PgBouncer in transaction pooling mode in front of the server the tests
// use (scripts/pgbouncer.sh starts one and prints it).
const EnvPgBouncer = "SORTID_TEST_PGBOUNCER"

// EnvCI is set to "true" by CI, where a missing PgBouncer fails the
// PgBouncer tests instead of skipping them.
const EnvCI = "CI"

// pgbouncerFix tells how to give the tests a PgBouncer.
const pgbouncerFix = "start one with `eval \"$(scripts/pgbouncer.sh)\"` from the repository root " +
	"(it needs the pgbouncer package: apt-get install pgbouncer), which sets " + EnvPgBouncer

// PgBouncer returns the URL in SORTID_TEST_PGBOUNCER once a PgBouncer answers
// there. Without the variable it returns "" and no error, except under
// CI=true, where it is an error naming the fix; so is a PgBouncer that does
// not answer within DefaultConnectTimeout.
func PgBouncer(ctx context.Context, getenv func(string) string) (string, error) {
	raw := getenv(EnvPgBouncer)
	if raw == "" {
		if getenv(EnvCI) == "true" {
			return "", fmt.Errorf("pgtest: %s is not set and %s=true, so the PgBouncer tests would not run: %s",
				EnvPgBouncer, EnvCI, pgbouncerFix)
		}
		return "", nil
	}
	dsn, err := NormalizeDSN(raw)
	if err != nil {
		return "", fmt.Errorf("pgtest: %s: %w", EnvPgBouncer, err)
	}
	// PgBouncer in transaction mode keeps no prepared statement from one
	// transaction to the next: probe with the simple protocol.
	probe, err := WithParam(dsn, "default_query_exec_mode", "simple_protocol")
	if err != nil {
		return "", fmt.Errorf("pgtest: %s: %w", EnvPgBouncer, err)
	}
	if err := ping(ctx, probe, DefaultConnectTimeout); err != nil {
		return "", fmt.Errorf("pgtest: %s=%s: no PgBouncer answers: %w\nFix: %s",
			EnvPgBouncer, redact(raw), err, pgbouncerFix)
	}
	return dsn, nil
}
