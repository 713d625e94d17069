package pgxtype_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sortid/sortid/idtype"
	"github.com/sortid/sortid/pgretry"
	"github.com/sortid/sortid/pgxtype"
)

// copyKeys fills keys with new HUIDs and copies them into imported(id)
// through tx; when take is set it first inserts keys[0] itself, so that
// the COPY collides.
func copyKeys(ctx context.Context, tx pgx.Tx, keys []idtype.HUID, take bool) error {
	if err := idtype.FillHUIDs(keys); err != nil {
		return err
	}
	if take {
		if _, err := tx.Exec(ctx, "INSERT INTO imported VALUES ($1)", keys[0]); err != nil {
			return err
		}
	}
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"imported"}, []string{"id"},
		pgx.CopyFromSlice(len(keys), func(i int) ([]any, error) { return []any{keys[i]}, nil }))
	return err
}

// TestCopyFromRetryInTransaction checks what docs/pgx.md says of a retried
// COPY inside a transaction: the unique violation aborts the transaction,
// so a plain retry fails with SQLSTATE 25P02 (in_failed_sql_transaction),
// and a retry whose every attempt runs in a savepoint (a nested pgx.Tx,
// rolled back when the attempt fails) succeeds.
func TestCopyFromRetryInTransaction(t *testing.T) {
	ctx := t.Context()
	conn := testConn(t)
	pgxtype.Register(conn.TypeMap())
	if _, err := conn.Exec(ctx, "CREATE TEMP TABLE imported (id bigint PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	keys := make([]idtype.HUID, 100)

	t.Run("plain", func(t *testing.T) {
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		n := 0
		_, err = pgretry.InsertOnKey(ctx, []string{"id"}, 3, func(ctx context.Context) error {
			n++
			return copyKeys(ctx, tx, keys, n == 1)
		})
		if got := pgretry.SQLState(err); got != "25P02" || n != 2 {
			t.Errorf("after %d attempts: %v (SQLSTATE %q); want the second to fail with 25P02", n, err, got)
		}
	})

	t.Run("savepoint", func(t *testing.T) {
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		n := 0
		retries, err := pgretry.InsertOnKey(ctx, []string{"id"}, 3, func(ctx context.Context) error {
			n++
			sp, err := tx.Begin(ctx) // SAVEPOINT
			if err != nil {
				return err
			}
			if err := copyKeys(ctx, sp, keys, n == 1); err != nil {
				_ = sp.Rollback(ctx) // ROLLBACK TO SAVEPOINT: the transaction goes on
				return err
			}
			return sp.Commit(ctx) // RELEASE SAVEPOINT
		})
		if err != nil || retries != 1 {
			t.Fatalf("InsertOnKey = %d, %v; want 1 retry, nil", retries, err)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		var rows int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM imported").Scan(&rows); err != nil {
			t.Fatal(err)
		}
		if rows != len(keys) {
			t.Errorf("imported has %d rows, want %d (the first attempt's taken key rolled back with its savepoint)", rows, len(keys))
		}
	})
}
