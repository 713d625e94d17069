package integration_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sortid/sortid/integration/internal/pgtest"
	"github.com/sortid/sortid/pgretry"
)

// onConflictInsert and retryDoBlock are the plain-SQL patterns the pgretry
// package documentation shows, verbatim (TestRetrySQLPatternsDocumented).
const onConflictInsert = `INSERT INTO events (payload) VALUES ($1)
ON CONFLICT (id) DO NOTHING
RETURNING id`

const retryDoBlock = `DO $$
DECLARE
  new_id bigint;
BEGIN
  FOR attempt IN 1..5 LOOP
    INSERT INTO events (payload) VALUES ('hello')
    ON CONFLICT (id) DO NOTHING
    RETURNING id INTO new_id;
    IF new_id IS NOT NULL THEN
      RETURN;
    END IF;
  END LOOP;
  RAISE EXCEPTION USING ERRCODE = 'unique_violation',
    MESSAGE = 'events: no fresh id after 5 attempts';
END
$$;`

// TestRetrySQLPatternsDocumented: the package doc quotes both patterns
// exactly, as indented comment blocks.
func TestRetrySQLPatternsDocumented(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../pgretry/doc.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, pattern := range []string{onConflictInsert, retryDoBlock} {
		quoted := "//\t" + strings.ReplaceAll(pattern, "\n", "\n//\t") + "\n"
		if !strings.Contains(string(doc), quoted) {
			t.Errorf("pgretry/doc.go does not quote\n%s", quoted)
		}
	}
}

// TestRetrySQLPatterns runs the documented patterns on a table whose key
// comes from a sequence, with the next keys already taken, so that the
// collisions happen on cue: each retry must draw a fresh key.
func TestRetrySQLPatterns(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	conn := pgtest.Conn(t)
	// Temporary objects come first in the search_path: "events" is this session's.
	execAll(t, conn,
		"CREATE TEMP SEQUENCE events_seq",
		"CREATE TEMP TABLE events (id bigint PRIMARY KEY DEFAULT nextval('events_seq'), payload text)",
		"INSERT INTO events VALUES (1, 'taken'), (2, 'taken')",
	)

	var id int64
	retries, err := pgretry.Insert(ctx, 5, func(ctx context.Context) error {
		err := conn.QueryRow(ctx, onConflictInsert, "first").Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			return pgretry.ErrNoRowInserted
		}
		return err
	})
	if err != nil || retries != 2 || id != 3 {
		t.Errorf("ON CONFLICT pattern: id %d after %d retries, err %v; want id 3 after 2 retries", id, retries, err)
	}

	// Keys 4..6 taken: the block's fourth attempt gets 7.
	if _, err := conn.Exec(ctx, "INSERT INTO events VALUES (4, 'taken'), (5, 'taken'), (6, 'taken')"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, retryDoBlock); err != nil {
		t.Fatalf("DO block: %v", err)
	}
	if err := conn.QueryRow(ctx, "SELECT id FROM events WHERE payload = 'hello'").Scan(&id); err != nil || id != 7 {
		t.Errorf("DO block inserted id %d (%v), want 7", id, err)
	}

	// Keys 8..12 taken: all five attempts collide and the block raises 23505.
	if _, err := conn.Exec(ctx, "INSERT INTO events SELECT g, 'taken' FROM generate_series(8, 12) g"); err != nil {
		t.Fatal(err)
	}
	_, err = conn.Exec(ctx, retryDoBlock)
	if !pgretry.IsUniqueViolation(err) {
		t.Errorf("DO block with 5 taken keys: err %v, want a unique violation", err)
	}
}

// TestRetryInsertOnOtherConstraint: a unique violation of another
// constraint than the key is not retried by pgretry.InsertOn, through pgx;
// the savepoint form keeps an explicit transaction usable after a retried
// collision.
func TestRetryInsertOnOtherConstraint(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	conn := pgtest.Conn(t)
	execAll(t, conn,
		"CREATE TEMP SEQUENCE users_seq",
		"CREATE TEMP TABLE users (id bigint PRIMARY KEY DEFAULT nextval('users_seq'), email text UNIQUE)",
		"INSERT INTO users VALUES (1, 'a@example.com')",
	)
	insert := func(tx pgx.Tx, email string) func(context.Context) error {
		return func(ctx context.Context) error {
			sp, err := tx.Begin(ctx) // a SAVEPOINT
			if err != nil {
				return err
			}
			if _, err := sp.Exec(ctx, "INSERT INTO users (email) VALUES ($1)", email); err != nil {
				_ = sp.Rollback(ctx)
				return err
			}
			return sp.Commit(ctx)
		}
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	retries, err := pgretry.InsertOn(ctx, "users_pkey", 3, insert(tx, "b@example.com"))
	if err != nil || retries != 1 {
		t.Errorf("key collision: %d retries, err %v; want 1 retry and success", retries, err)
	}
	retries, err = pgretry.InsertOn(ctx, "users_pkey", 3, insert(tx, "a@example.com"))
	if retries != 0 || !pgretry.IsUniqueViolationOn(err, "users_email_key") || errors.Is(err, pgretry.ErrRetriesExhausted) {
		t.Errorf("e-mail collision: %d retries, err %v; want users_email_key at once", retries, err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatalf("commit after the retried insert: %v", err)
	}
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM users").Scan(&n); err != nil || n != 2 {
		t.Errorf("%d users (%v), want 2", n, err)
	}
}
