package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sortid/sortid/pgretry"
)

// defaultKind is one server-side key generator of the DEFAULT benchmark.
type defaultKind struct{ name, table, column string }

var defaultKinds = []defaultKind{
	{"gen_random_uuid()", "bench_default_uuid", "id uuid PRIMARY KEY DEFAULT gen_random_uuid()"},
	{"huid_generate()", "bench_default_huid", "id bigint PRIMARY KEY DEFAULT huid_generate()"},
	{"scru128_generate()", "bench_default_scru128", "id uuid PRIMARY KEY DEFAULT scru128_generate()"},
	{"bigserial", "bench_default_bigserial", "id bigserial PRIMARY KEY"},
}

const defaultBaseline = "gen_random_uuid()"

// defaultRound times INSERT INTO t (n) SELECT g FROM generate_series(1, n)
// with the key filled by each DEFAULT, rotating the order per round.
func defaultRound(ctx context.Context, conn *pgx.Conn, round, n int, t *table) error {
	for i := range defaultKinds {
		k := defaultKinds[(i+round)%len(defaultKinds)]
		ddl := fmt.Sprintf("DROP TABLE IF EXISTS %[1]s; CREATE TABLE %[1]s (%[2]s, n int NOT NULL); CHECKPOINT", k.table, k.column)
		if _, err := conn.Exec(ctx, ddl); err != nil {
			return err
		}
		start := time.Now()
		tag, err := conn.Exec(ctx, "INSERT INTO "+k.table+" (n) SELECT g FROM generate_series(1, $1::int) g", n)
		d := time.Since(start)
		if pgErr := (*pgconn.PgError)(nil); errors.As(err, &pgErr) && pgErr.Code == pgretry.UniqueViolation {
			// A generator that repeats a key is a result, not a crash of the
			// benchmark: report it, keep the other rounds' times.
			t.note("Round %d: %s failed: %s. The round has no time for it.", round+1, k.name, pgErr.Message)
			logf("round %d: DEFAULT %-18s FAILED: %v", round+1, k.name, err)
			continue
		}
		if err != nil {
			return fmt.Errorf("DEFAULT %s: %w", k.name, err)
		}
		if tag.RowsAffected() != int64(n) {
			return fmt.Errorf("DEFAULT %s: inserted %d rows of %d", k.name, tag.RowsAffected(), n)
		}
		t.add(k.name, d.Seconds())
		logf("round %d: DEFAULT %-18s %6.2fs", round+1, k.name, d.Seconds())
	}
	return nil
}
