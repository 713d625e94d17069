package integration_test

import (
	"testing"

	"github.com/sortid/sortid/integration/internal/pgtest"
)

// TestSQLHUIDRetryAfterRollbackDiffers checks that a statement retried after
// a rollback in the same millisecond does not get the HUID it had before.
// The rollback also undoes huid_generate()'s remembered last value, so a
// dedupe that stepped by exactly 1 would hand out the colliding value again.
func TestSQLHUIDRetryAfterRollbackDiffers(t *testing.T) {
	t.Parallel()
	conn := pgtest.Conn(t)
	ctx := t.Context()
	// Each round remembers a last value in the next millisecond, so the
	// dedupe branch is taken, then draws twice, each draw in a subtransaction
	// that is rolled back as a failed INSERT would be.
	_, err := conn.Exec(ctx, `
		CREATE FUNCTION pg_temp.huid_after_rollback(rounds int, OUT last bigint, OUT v bigint)
		RETURNS SETOF record LANGUAGE plpgsql AS $$
		BEGIN
		  FOR i IN 1..rounds LOOP
		    last := huid_min(clock_timestamp() + interval '1 millisecond') | 2000000;
		    PERFORM set_config('sortid.huid_last', last::text, false);
		    FOR j IN 1..2 LOOP
		      BEGIN
		        v := huid_generate();
		        RAISE EXCEPTION 'roll back';
		      EXCEPTION WHEN raise_exception THEN
		        RETURN NEXT;
		      END;
		    END LOOP;
		  END LOOP;
		END
		$$`)
	if err != nil {
		t.Fatalf("create function: %v", err)
	}
	rows, err := conn.Query(ctx, `SELECT last, v FROM pg_temp.huid_after_rollback(50)`)
	if err != nil {
		t.Fatalf("query: %v", err)
	}
	defer rows.Close()
	firsts := map[int64]int64{}
	pairs, same := 0, 0
	for rows.Next() {
		var last, v int64
		if err := rows.Scan(&last, &v); err != nil {
			t.Fatal(err)
		}
		if v <= last || v > last+128 {
			continue // the millisecond moved on: this draw did not dedupe
		}
		first, seen := firsts[last]
		if !seen {
			firsts[last] = v
			continue
		}
		pairs++
		if first == v {
			same++
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if pairs < 25 {
		t.Fatalf("only %d of 50 rounds drew twice through the dedupe branch", pairs)
	}
	if same > 3 {
		t.Fatalf("%d of %d retries after a rollback repeated the rolled-back HUID", same, pairs)
	}
}

// TestSQLHUIDGenerateNeverRepeatsInSession draws a million HUIDs in one
// statement, about a thousand per millisecond: huid_generate() must not
// repeat a value within the session, also when a millisecond ticks between
// its two clock readings.
func TestSQLHUIDGenerateNeverRepeatsInSession(t *testing.T) {
	t.Parallel()
	var total, distinct int64
	err := pgtest.Conn(t).QueryRow(t.Context(),
		`SELECT count(*), count(DISTINCT h) FROM (SELECT huid_generate() AS h FROM generate_series(1, 1000000)) q`).
		Scan(&total, &distinct)
	if err != nil {
		t.Fatal(err)
	}
	if total != 1_000_000 || distinct != total {
		t.Fatalf("%d HUIDs, %d distinct: a session repeated itself", total, distinct)
	}
}
