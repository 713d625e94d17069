package integration_test

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/sortid/sortid/idtype"
	"github.com/sortid/sortid/integration/internal/pgtest"
	"github.com/sortid/sortid/pgretry"
)

// retryDrivers are the database/sql drivers whose errors pgretry reads:
// pgx's stdlib (*pgconn.PgError) and lib/pq (*pq.Error).
var retryDrivers = []struct {
	name string
	db   func(t *testing.T) *sql.DB
}{
	{"pgx", func(t *testing.T) *sql.DB { return pgtest.StdDB(t) }},
	{"lib-pq", libpqDB},
}

// huidAt returns a HUID of time t.
func huidAt(t *testing.T, at string) idtype.HUID {
	t.Helper()
	tm, err := time.Parse(time.RFC3339, at)
	if err != nil {
		t.Fatal(err)
	}
	h, err := idtype.HUIDFromParts(tm, 1)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// takenThenFresh returns an insert func whose first attempt inserts the
// taken ID and later attempts a fresh one, and the error of its first attempt.
func takenThenFresh(db *sql.DB, insert string, taken idtype.HUID, first *error) func(context.Context) error {
	attempt := 0
	return func(ctx context.Context) error {
		attempt++
		id := taken
		if attempt > 1 {
			id = idtype.NewHUID()
		}
		_, err := db.ExecContext(ctx, insert, id, tableName("body")) // a unique body
		if attempt == 1 {
			*first = err
		}
		return err
	}
}

// TestRetryOnPartitionedKey: a collision in a partitioned table is reported
// under the partition's index (one created with the partition, one an
// index of an attached table with its own name), so InsertOn with the
// parent's constraint name does not retry it and InsertOnKey, which names
// the key by its column, does.
func TestRetryOnPartitionedKey(t *testing.T) {
	t.Parallel()
	split := huidAt(t, "2026-06-01T00:00:00Z")
	for _, driver := range retryDrivers {
		t.Run(driver.name, func(t *testing.T) {
			t.Parallel()
			db := driver.db(t)
			table := tableName("retry_part")
			for _, stmt := range []string{
				fmt.Sprintf("CREATE TABLE %s (id bigint PRIMARY KEY, body text) PARTITION BY RANGE (id)", table),
				fmt.Sprintf("CREATE TABLE %[1]s_new PARTITION OF %[1]s FOR VALUES FROM (%[2]d) TO (MAXVALUE)", table, split),
				fmt.Sprintf("CREATE TABLE %s_old (id bigint NOT NULL, body text)", table),
				fmt.Sprintf("CREATE UNIQUE INDEX %[1]s_old_legacy ON %[1]s_old (id)", table),
				fmt.Sprintf("ALTER TABLE %[1]s ATTACH PARTITION %[1]s_old FOR VALUES FROM (MINVALUE) TO (%[2]d)", table, split),
			} {
				if _, err := db.ExecContext(t.Context(), stmt); err != nil {
					t.Fatalf("%s: %v", stmt, err)
				}
			}
			insert := "INSERT INTO " + table + " (id, body) VALUES ($1, $2)"
			cases := []struct {
				taken      idtype.HUID
				constraint string // the name PostgreSQL reports
			}{
				{huidAt(t, "2026-09-01T00:00:00Z"), table + "_new_pkey"},
				{huidAt(t, "2026-03-01T00:00:00Z"), table + "_old_legacy"},
			}
			for _, c := range cases {
				if _, err := db.ExecContext(t.Context(), insert, c.taken, "first"); err != nil {
					t.Fatalf("insert %d: %v", c.taken, err)
				}
				var first error
				retries, err := pgretry.InsertOn(t.Context(), table+"_pkey", 3, takenThenFresh(db, insert, c.taken, &first))
				if retries != 0 || !pgretry.IsUniqueViolation(err) {
					t.Errorf("InsertOn(%s_pkey) on %d: %d retries, err %v; want the collision at once", table, c.taken, retries, err)
				}
				if got := pgretry.Constraint(first); got != c.constraint {
					t.Errorf("collision on %d names constraint %q, want %q", c.taken, got, c.constraint)
				}
				retries, err = pgretry.InsertOnKey(t.Context(), []string{"id"}, 3, takenThenFresh(db, insert, c.taken, &first))
				if retries != 1 || err != nil {
					t.Errorf("InsertOnKey(id) on %d: %d retries, err %v; want 1 retry and success", c.taken, retries, err)
				}
				if got := pgretry.KeyColumns(first); got != "id" || pgretry.Constraint(first) != c.constraint {
					t.Errorf("collision on %d: key %q on %q (error %v); want id on %s", c.taken, got, pgretry.Constraint(first), first, c.constraint)
				}
			}
		})
	}
}

// TestRetryOnPlainTableKey: on a table that is not partitioned, InsertOn
// still retries its primary key, InsertOnKey does too, and neither retries
// a collision of another unique key.
func TestRetryOnPlainTableKey(t *testing.T) {
	t.Parallel()
	for _, driver := range retryDrivers {
		t.Run(driver.name, func(t *testing.T) {
			t.Parallel()
			db := driver.db(t)
			table := tableName("retry_plain")
			ddl := fmt.Sprintf("CREATE TABLE %s (id bigint PRIMARY KEY, body text UNIQUE)", table)
			if _, err := db.ExecContext(t.Context(), ddl); err != nil {
				t.Fatalf("%s: %v", ddl, err)
			}
			insert := "INSERT INTO " + table + " (id, body) VALUES ($1, $2)"
			taken := idtype.NewHUID()
			if _, err := db.ExecContext(t.Context(), insert, taken, "taken"); err != nil {
				t.Fatal(err)
			}
			var first error
			if retries, err := pgretry.InsertOn(t.Context(), table+"_pkey", 3, takenThenFresh(db, insert, taken, &first)); retries != 1 || err != nil {
				t.Errorf("InsertOn(%s_pkey): %d retries, err %v; want 1 and success", table, retries, err)
			}
			if retries, err := pgretry.InsertOnKey(t.Context(), []string{"id"}, 3, takenThenFresh(db, insert, taken, &first)); retries != 1 || err != nil {
				t.Errorf("InsertOnKey(id): %d retries, err %v; want 1 and success", retries, err)
			}
			body := func(ctx context.Context) error {
				_, err := db.ExecContext(ctx, insert, idtype.NewHUID(), "taken")
				return err
			}
			retries, err := pgretry.InsertOnKey(t.Context(), []string{"id"}, 3, body)
			if retries != 0 || !pgretry.IsUniqueViolation(err) || pgretry.KeyColumns(err) != "body" {
				t.Errorf("InsertOnKey(id) on a body collision: %d retries, err %v (key %q); want the error at once, on body",
					retries, err, pgretry.KeyColumns(err))
			}
		})
	}
}
