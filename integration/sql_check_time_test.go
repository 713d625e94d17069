package integration_test

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/sortid/sortid/idtype"
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

// TestSQLCheckTimeRestore checks what docs/SQL.md says of a CHECK against
// a trigger: once a row is older than past, a dump of the table restores
// with the trigger and fails with the CHECK.
func TestSQLCheckTimeRestore(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"pg_dump", "psql"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed (Debian: postgresql-client): %v", tool, err)
		}
	}
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
	dump, err := exec.CommandContext(ctx, "pg_dump", "--no-owner", srcURL).Output()
	if err != nil {
		t.Fatalf("pg_dump: %v", err)
	}
	dstURL, dst := freshDatabase(t)
	cmd := exec.CommandContext(ctx, "psql", "-X", "-q", dstURL)
	cmd.Stdin = bytes.NewReader(dump)
	out, _ := cmd.CombinedOutput()
	if !strings.Contains(string(out), "huid_check_time: HUID") {
		t.Errorf("restoring the CHECK's row did not fail on the check: %s", out)
	}
	for table, want := range map[string]int{"by_check": 0, "by_trigger": 1} {
		var n int
		if err := dst.QueryRowContext(context.Background(), fmt.Sprintf("SELECT count(*) FROM %s", table)).Scan(&n); err != nil || n != want {
			t.Errorf("restored %s: %d rows (%v), want %d", table, n, err, want)
		}
	}
}
