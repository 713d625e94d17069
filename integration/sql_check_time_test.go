package integration_test

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sortid/sortid/idtype"
	"github.com/sortid/sortid/integration/internal/pgcluster"
	"github.com/sortid/sortid/integration/internal/pgtest"
)

// TestSQLCheckTime checks the rule of docs/SQL.md's "Keys made elsewhere"
// against Go's idtype.TimeCheck at the edges (±1 ms each way, through
// sortid_check_time with a fixed now), and huid_check_time and
// scru128_check_time against the server's clock: in a BEFORE INSERT
// trigger, keys of now pass and keys of 2031 and 2026-01-01 are refused
// with 22008; NULL gives NULL.
func TestSQLCheckTime(t *testing.T) {
	t.Parallel()
	conn := pgtest.Conn(t)
	ctx := t.Context()
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	for _, v := range []struct{ offset time.Duration }{
		{-time.Hour}, {-time.Hour - time.Millisecond}, {time.Minute}, {time.Minute + time.Millisecond}, {0},
	} {
		h, err := idtype.HUIDFromParts(now.Add(v.offset), 3)
		if err != nil {
			t.Fatal(err)
		}
		goErr := idtype.TimeCheck{Past: time.Hour, Future: time.Minute, Now: func() time.Time { return now }}.HUID(h)
		var ok bool
		sqlErr := conn.QueryRow(ctx, `SELECT sortid_check_time('HUID', $1::bigint::text, huid_timestamp($1::bigint), '1 hour', '1 minute', $2)`,
			int64(h), now).Scan(&ok)
		if (goErr == nil) != (sqlErr == nil) || sqlErr == nil && !ok {
			t.Errorf("HUID at now%+v: Go %v, SQL %v (%v)", v.offset, goErr, ok, sqlErr)
		}
		if sqlErr != nil && !strings.Contains(sqlErr.Error(), "22008") {
			t.Errorf("HUID at now%+v: %v, want SQLSTATE 22008", v.offset, sqlErr)
		}
	}
	for _, q := range []string{
		`CREATE TEMPORARY TABLE client_keys (h bigint, s uuid)`,
		`CREATE FUNCTION pg_temp.client_keys_check() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
		  PERFORM huid_check_time(NEW.h, interval '30 days', interval '1 minute');
		  PERFORM scru128_check_time(NEW.s, interval '30 days', interval '1 minute');
		  RETURN NEW;
		END$$`,
		`CREATE TRIGGER client_keys_check BEFORE INSERT ON client_keys FOR EACH ROW EXECUTE FUNCTION pg_temp.client_keys_check()`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	insert := func(at time.Time) error {
		h, err := idtype.HUIDFromParts(at, 9)
		if err != nil {
			t.Fatal(err)
		}
		s, err := idtype.SCRU128FromFields(uint64(at.UnixMilli()-idtype.SCRU128EpochMillis), 1, 2, 3)
		if err != nil {
			t.Fatal(err)
		}
		_, err = conn.Exec(ctx, `INSERT INTO client_keys VALUES ($1, $2)`, int64(h), s.UUIDString())
		return err
	}
	if err := insert(time.Now()); err != nil {
		t.Errorf("keys of now: %v", err)
	}
	for _, at := range []time.Time{time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} {
		err := insert(at)
		if err == nil || !strings.Contains(err.Error(), "22008") || !strings.Contains(err.Error(), at.Format("2006-01-02")) {
			t.Errorf("keys of %s: %v, want 22008 naming their time", at, err)
		}
	}
	var isNull bool
	if err := conn.QueryRow(ctx, `SELECT huid_check_time(NULL, '1 day', '1 day') IS NULL AND scru128_check_time(NULL, '1 day', NULL) IS NULL`).Scan(&isNull); err != nil || !isNull {
		t.Errorf("NULL: %v, %v", isNull, err)
	}
}

// checkTimeEdges: a key's millisecond as an offset from now's, the skew,
// and the outcome ("" accepted, else a substring of the 22008 error). The
// rule compares the key's millisecond with now's millisecond, so with no
// skew exactly the keys of the current millisecond pass, and a skew of less
// than 1 ms reaches no further.
var checkTimeEdges = []checkTimeEdge{
	{0, 0, 0, ""},
	{-time.Millisecond, 0, 0, "00:00:00.001 before now"},
	{time.Millisecond, 0, 0, "00:00:00.001 after now"},
	{-time.Millisecond, time.Millisecond, 0, ""},
	{-2 * time.Millisecond, time.Millisecond, 0, "00:00:00.002 before now"},
	{-time.Millisecond, 999 * time.Microsecond, 0, "00:00:00.001 before now"},
	{time.Millisecond, 0, time.Millisecond, ""},
	{2 * time.Millisecond, 0, time.Millisecond, "00:00:00.002 after now"},
	{time.Millisecond, 0, 999 * time.Microsecond, "00:00:00.001 after now"},
	{-time.Hour, time.Hour, time.Minute, ""},
	{-time.Hour - time.Millisecond, time.Hour, time.Minute, "01:00:00.001 before now"},
	{time.Minute, time.Hour, time.Minute, ""},
	{time.Minute + time.Millisecond, time.Hour, time.Minute, "00:01:00.001 after now"},
}

type checkTimeEdge struct {
	offset, past, future time.Duration
	want                 string
}

// checkTimeAtClock defines pg_temp.check_time_at on conn: it runs
// huid_check_time or scru128_check_time on a key of the server clock's
// millisecond plus offset_ms (huid_min or scru128_min of it), or, for a
// NULL offset_ms, on a key of huid_generate() or scru128_generate(), and
// returns 'ok' or the SQLSTATE and the message. It retries until the clock
// read the same millisecond before making the key and after checking it
// (and a generated key is of that millisecond), so that the key's offset
// from the check's now is known.
func checkTimeAtClock(t *testing.T, conn *pgx.Conn) {
	t.Helper()
	if _, err := conn.Exec(t.Context(), `CREATE FUNCTION pg_temp.check_time_at(kind text, offset_ms int, past interval, future interval)
		RETURNS text LANGUAGE plpgsql AS $$
		DECLARE
		  before timestamptz;
		  at timestamptz;
		  h bigint;
		  s uuid;
		  made timestamptz;
		  result text;
		BEGIN
		  FOR i IN 1..1000 LOOP
		    before := date_trunc('milliseconds', clock_timestamp());
		    at := before + coalesce(offset_ms, 0) * interval '1 millisecond';
		    IF kind = 'HUID' THEN
		      h := CASE WHEN offset_ms IS NULL THEN huid_generate() ELSE huid_min(at) END;
		      made := huid_timestamp(h);
		    ELSE
		      s := CASE WHEN offset_ms IS NULL THEN scru128_generate() ELSE scru128_min(at) END;
		      made := scru128_timestamp(s);
		    END IF;
		    BEGIN
		      IF kind = 'HUID' THEN
		        result := huid_check_time(h, past, future)::text;
		      ELSE
		        result := scru128_check_time(s, past, future)::text;
		      END IF;
		      IF result = 'true' THEN
		        result := 'ok';
		      END IF;
		    EXCEPTION WHEN OTHERS THEN
		      result := SQLSTATE || ': ' || SQLERRM;
		    END;
		    IF date_trunc('milliseconds', clock_timestamp()) = before AND made = at THEN
		      RETURN result;
		    END IF;
		  END LOOP;
		  RAISE 'the clock never stayed in one millisecond while a key was made and checked';
		END$$`); err != nil {
		t.Fatal(err)
	}
}

// TestSQLCheckTimeMillisecondEdges checks huid_check_time and
// scru128_check_time against the server's clock at ±1 ms around the
// window, and that Go's idtype.TimeCheck, with now at the last nanosecond
// of its millisecond, gives the same outcome.
func TestSQLCheckTimeMillisecondEdges(t *testing.T) {
	t.Parallel()
	conn := pgtest.Conn(t)
	checkTimeAtClock(t, conn)
	now := time.Date(2026, 6, 1, 12, 0, 0, 999_999, time.UTC)
	goCheck := func(v checkTimeEdge) error {
		h, err := idtype.HUIDFromParts(now.Truncate(time.Millisecond).Add(v.offset), 0)
		if err != nil {
			t.Fatal(err)
		}
		return idtype.TimeCheck{Past: v.past, Future: v.future, Now: func() time.Time { return now }}.HUID(h)
	}
	for _, v := range checkTimeEdges {
		for _, kind := range []string{"HUID", "SCRU128"} {
			var got string
			if err := conn.QueryRow(t.Context(), `SELECT pg_temp.check_time_at($1, $2, $3::text::interval, $4::text::interval)`,
				kind, v.offset.Milliseconds(), intervalText(v.past), intervalText(v.future)).Scan(&got); err != nil {
				t.Fatal(err)
			}
			switch {
			case v.want == "" && got != "ok":
				t.Errorf("%s at now%+v, skew -%v/+%v: %s, want true", kind, v.offset, v.past, v.future, got)
			case v.want != "" && (!strings.HasPrefix(got, "22008: ") || !strings.Contains(got, v.want)):
				t.Errorf("%s at now%+v, skew -%v/+%v: %s, want 22008 with %q", kind, v.offset, v.past, v.future, got, v.want)
			}
		}
		if goErr := goCheck(v); (goErr == nil) != (v.want == "") {
			t.Errorf("Go at now%+v, skew -%v/+%v: %v, SQL want %q", v.offset, v.past, v.future, goErr, v.want)
		}
	}
}

// intervalText writes d as interval input that every supported PostgreSQL
// reads exactly: seconds with six decimals, since PostgreSQL 14 refuses a
// microseconds field beyond 32 bits.
func intervalText(d time.Duration) string {
	us := d.Microseconds()
	return fmt.Sprintf("%d.%06d seconds", us/1e6, us%1e6)
}

// TestSQLCheckTimeZeroSkewAcceptsNow: a key made in the current
// millisecond passes with no skew allowed: huid_check_time(huid_generate(),
// '0', '0') and the same for a SCRU128 are true. Called plainly the
// millisecond may turn between making the key and checking it, which
// refuses it as 1 ms before now and nothing else; most calls are true.
// Through check_time_at, which retries that case, every call is true.
func TestSQLCheckTimeZeroSkewAcceptsNow(t *testing.T) {
	t.Parallel()
	conn := pgtest.Conn(t)
	checkTimeAtClock(t, conn)
	for _, kind := range []string{"HUID", "SCRU128"} {
		query := `SELECT huid_check_time(huid_generate(), '0', '0')`
		if kind == "SCRU128" {
			query = `SELECT scru128_check_time(scru128_generate(), '0', '0')`
		}
		const calls = 200
		passed := 0
		for range calls {
			var ok bool
			err := conn.QueryRow(t.Context(), query).Scan(&ok)
			switch {
			case err == nil && ok:
				passed++
			// The generator and the check read the clock apart: on a
			// busy machine the millisecond may turn in between, so the
			// ID is then refused as some milliseconds before now, never
			// as after it. The exact rule is checked below at one clock.
			case err == nil || !strings.Contains(err.Error(), " before now") || !strings.Contains(err.Error(), "22008"):
				t.Fatalf("%s: %v, %v; want true, or 22008 before now when the millisecond turned", query, ok, err)
			}
		}
		if passed < calls/2 {
			t.Errorf("%s: true %d times of %d", query, passed, calls)
		}
		for range 100 {
			var got string
			if err := conn.QueryRow(t.Context(), `SELECT pg_temp.check_time_at($1, NULL, '0', '0')`, kind).Scan(&got); err != nil || got != "ok" {
				t.Fatalf("%s of huid_generate or scru128_generate, no skew, in one millisecond: %s (%v), want true", kind, got, err)
			}
		}
	}
}

// pgDump returns pg_dump --no-owner of dbURL, a database of the server under
// test; a pg_dump older than that server is reported with pgcluster.Missing.
func pgDump(t *testing.T, dbURL string) []byte {
	t.Helper()
	for _, tool := range []string{"pg_dump", "psql"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed (Debian: postgresql-client): %v", tool, err)
		}
	}
	// pg_dump refuses a server of a later major version than its own.
	server, err := pgtest.ServerMajor(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	if dump, err := pgtest.ProgramMajor("pg_dump"); err != nil {
		t.Fatal(err)
	} else if dump < server {
		pgcluster.Missing(t, server, "pg_dump", fmt.Sprintf("pg_dump on PATH is %d's; put PostgreSQL %d's client programs first on PATH (Debian: postgresql-client-%d)", dump, server, server))
	}
	dump, err := exec.CommandContext(t.Context(), "pg_dump", "--no-owner", dbURL).Output()
	if err != nil {
		t.Fatalf("pg_dump: %v", err)
	}
	return dump
}

// restore runs the SQL dump with psql in dbURL, stopping at the first error
// when stopOnError, and returns psql's output.
func restore(t *testing.T, dbURL string, dump []byte, stopOnError bool) (string, error) {
	t.Helper()
	args := []string{"-X", "-q", dbURL}
	if stopOnError {
		args = append(args, "-v", "ON_ERROR_STOP=1")
	}
	cmd := exec.CommandContext(t.Context(), "psql", args...)
	cmd.Stdin = bytes.NewReader(dump)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestSQLCheckTimeRestore checks what docs/SQL.md says of a CHECK against
// a trigger: once a row is older than past, a dump of the table restores
// with the trigger and fails with the CHECK.
func TestSQLCheckTimeRestore(t *testing.T) {
	t.Parallel()
	srcURL, src := migratedDatabase(t)
	ctx := t.Context()
	if _, err := src.ExecContext(ctx, `
		CREATE TABLE by_check (id huid PRIMARY KEY CHECK (huid_check_time(id, interval '1 second', interval '1 minute')));
		CREATE TABLE by_trigger (id huid PRIMARY KEY);
		CREATE FUNCTION by_trigger_check() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
		  PERFORM huid_check_time(NEW.id, interval '1 second', interval '1 minute');
		  RETURN NEW;
		END$$;
		CREATE TRIGGER by_trigger_check BEFORE INSERT ON by_trigger FOR EACH ROW EXECUTE FUNCTION by_trigger_check();
		INSERT INTO by_check VALUES (huid_generate());
		INSERT INTO by_trigger VALUES (huid_generate())`); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond) // the rows are now older than past
	dstURL, dst := freshDatabase(t)
	out, _ := restore(t, dstURL, pgDump(t, srcURL), false)
	if !strings.Contains(out, "huid_check_time: HUID") {
		t.Errorf("restoring the CHECK's row did not fail on the check: %s", out)
	}
	for table, want := range map[string]int{"by_check": 0, "by_trigger": 1} {
		var n int
		if err := dst.QueryRowContext(context.Background(), fmt.Sprintf("SELECT count(*) FROM %s", table)).Scan(&n); err != nil || n != want {
			t.Errorf("restored %s: %d rows (%v), want %d", table, n, err, want)
		}
	}
}
