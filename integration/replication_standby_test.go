package integration_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sortid/sortid/integration/internal/pgcluster"
)

// sqlState is the SQLSTATE of a PostgreSQL error, or "" for any other error.
func sqlState(err error) string {
	if pgErr := (*pgconn.PgError)(nil); errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return ""
}

// waitReplayed waits until standby has replayed everything primary has
// written so far.
func waitReplayed(t *testing.T, primary, standby *pgx.Conn) {
	t.Helper()
	var lsn string
	if err := primary.QueryRow(t.Context(), "SELECT pg_current_wal_lsn()::text").Scan(&lsn); err != nil {
		t.Fatal(err)
	}
	pgcluster.Eventually(t, 30*time.Second, 20*time.Millisecond, "the standby replaying up to "+lsn, func() (bool, error) {
		var done bool
		err := standby.QueryRow(t.Context(), "SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn", lsn).Scan(&done)
		return done, err
	})
}

// TestReplicationStandbyGeneratesAndReads runs on a real hot standby made
// with pg_basebackup -R, streaming from a primary on which the sortid SQL
// is installed with migrations.Apply after the standby started (so the
// functions arrive by replay): in plain read-only sessions, outside any
// explicit transaction as well as in BEGIN … COMMIT, huid_generate() makes
// 100 000 distinct HUIDs in one statement and the next statement's HUID is
// no earlier, scru128_generate() makes 50 000 ascending SCRU128s and
// keeps ascending in the next one; a window by huid_min/huid_max is an
// Index Only Scan of the primary key with no heap fetches and holds its
// rows; scru128_min/scru128_max select exactly the rows made after a
// moment; and INSERT, nextval() and CREATE TABLE fail with SQLSTATE 25006.
func TestReplicationStandbyGeneratesAndReads(t *testing.T) {
	t.Parallel()
	h := pgcluster.NewHost(t)
	primary := h.Primary(t, "primary")
	standby := primary.Standby(t, "standby")
	pgcluster.Migrate(t, primary.URL("postgres"))
	pc := primary.Connect(t, "postgres")
	execAll(t, pc,
		// One row every 100 ms for 40 minutes: a one-minute window is 601 rows.
		`CREATE TABLE standby_rows (id huid PRIMARY KEY, n int NOT NULL)`,
		`INSERT INTO standby_rows
		 SELECT huid_generate_at(timestamptz '2026-06-01 00:00:00+00' + g * interval '100 milliseconds'), g
		 FROM generate_series(0, 24000) g`,
		`VACUUM (ANALYZE) standby_rows`, // sets the visibility map an index-only scan needs
		`CREATE SEQUENCE standby_seq`,
		`CREATE TABLE standby_scru (id uuid PRIMARY KEY DEFAULT scru128_generate(), batch int NOT NULL)`,
		`INSERT INTO standby_scru (batch) SELECT 1 FROM generate_series(1, 1000)`,
	)
	var between time.Time
	// Sleeps on both sides of the moment, so that no batch shares its millisecond.
	if err := pc.QueryRow(t.Context(), `SELECT pg_sleep(0.01), clock_timestamp()`).Scan(nil, &between); err != nil {
		t.Fatal(err)
	}
	execAll(t, pc, `SELECT pg_sleep(0.01)`, `INSERT INTO standby_scru (batch) SELECT 2 FROM generate_series(1, 700)`)

	sc := standby.Connect(t, "postgres")
	waitReplayed(t, pc, sc)
	var recovery bool
	var readOnly string
	if err := sc.QueryRow(t.Context(), `SELECT pg_is_in_recovery(), current_setting('transaction_read_only')`).Scan(&recovery, &readOnly); err != nil || !recovery || readOnly != "on" {
		t.Fatalf("standby: pg_is_in_recovery() = %v, transaction_read_only = %q, %v; want a read-only hot standby", recovery, readOnly, err)
	}

	for _, explicit := range []bool{false, true} {
		if explicit {
			execAll(t, sc, "BEGIN")
		}
		var n, distinct int64
		var hi int64
		if err := sc.QueryRow(t.Context(), `SELECT count(*), count(DISTINCT h), max(h)
			FROM (SELECT huid_generate() AS h FROM generate_series(1, 100000)) x`).Scan(&n, &distinct, &hi); err != nil {
			t.Fatalf("huid_generate() on the standby (explicit transaction %v): %v", explicit, err)
		}
		if n != 100000 || distinct != n {
			t.Errorf("standby, explicit transaction %v: %d HUIDs in one statement, %d distinct", explicit, n, distinct)
		}
		// The session state survives the statement: the next HUID is in a
		// millisecond no earlier than the last one's.
		var next int64
		if err := sc.QueryRow(t.Context(), `SELECT huid_generate()`).Scan(&next); err != nil {
			t.Fatal(err)
		}
		if next>>21 < hi>>21 {
			t.Errorf("standby: next statement's HUID %d is in an earlier millisecond than the last batch's %d", next, hi)
		}

		var scruN, scruDistinct, descents int64
		var scruLast string
		if err := sc.QueryRow(t.Context(), `SELECT count(*), count(DISTINCT s), count(*) FILTER (WHERE s <= prev),
			       (array_agg(s ORDER BY g DESC))[1]::text -- the last made (no max(uuid) in PostgreSQL 15)
			FROM (SELECT g, s, lag(s) OVER (ORDER BY g) AS prev
			      FROM (SELECT g, scru128_generate() AS s FROM generate_series(1, 50000) g) x) y`).
			Scan(&scruN, &scruDistinct, &descents, &scruLast); err != nil {
			t.Fatalf("scru128_generate() on the standby: %v", err)
		}
		if scruN != 50000 || scruDistinct != scruN || descents != 0 {
			t.Errorf("standby: %d SCRU128s, %d distinct, %d not above their predecessor; want 50000 ascending", scruN, scruDistinct, descents)
		}
		var above bool
		if err := sc.QueryRow(t.Context(), `SELECT scru128_generate() > $1::uuid`, scruLast).Scan(&above); err != nil || !above {
			t.Errorf("standby: the next statement's SCRU128 is not above the last batch's last %s (err %v)", scruLast, err)
		}
		if explicit {
			execAll(t, sc, "COMMIT")
		}
	}

	from := time.Date(2026, 6, 1, 0, 10, 0, 0, time.UTC)
	to := from.Add(time.Minute)
	var inWindow int
	if err := sc.QueryRow(t.Context(), `SELECT count(*) FROM standby_rows WHERE id BETWEEN huid_min($1) AND huid_max($2)`, from, to).Scan(&inWindow); err != nil || inWindow != 601 {
		t.Errorf("standby: the window holds %d rows, %v; want 601", inWindow, err)
	}
	plan := explain(t, sc, `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
		SELECT id FROM standby_rows WHERE id BETWEEN huid_min('2026-06-01 00:10:00+00') AND huid_max('2026-06-01 00:11:00+00')`)
	if !strings.Contains(plan, "Index Only Scan using standby_rows_pkey") || !strings.Contains(plan, "Heap Fetches: 0") {
		t.Errorf("standby: the window's plan is not an Index Only Scan of the primary key with no heap fetches:\n%s", plan)
	}
	var batch2, batch1 int
	if err := sc.QueryRow(t.Context(), `SELECT count(*) FILTER (WHERE batch = 2), count(*) FILTER (WHERE batch = 1)
		FROM standby_scru WHERE id BETWEEN scru128_min($1) AND scru128_max(clock_timestamp())`, between).Scan(&batch2, &batch1); err != nil ||
		batch2 != 700 || batch1 != 0 {
		t.Errorf("standby: scru128_min/max window after the moment holds %d rows of the later batch and %d of the earlier, %v; want 700 and 0", batch2, batch1, err)
	}

	for _, write := range []string{
		`INSERT INTO standby_rows VALUES (huid_generate(), 0)`,
		`SELECT nextval('standby_seq')`,
		`CREATE TABLE standby_new (id huid)`,
	} {
		if _, err := sc.Exec(t.Context(), write); sqlState(err) != "25006" {
			t.Errorf("standby: %s: %v; want SQLSTATE 25006 (read_only_sql_transaction)", write, err)
		}
	}
}

// explain returns the lines of an EXPLAIN statement's output.
func explain(t *testing.T, conn *pgx.Conn, sql string) string {
	t.Helper()
	rows, err := conn.Query(t.Context(), sql)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}
