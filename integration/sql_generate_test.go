package integration_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/sortid/sortid/idtype"
	"github.com/sortid/sortid/integration/internal/pgtest"
)

// TestSQLGeneratedValuesConform parses what huid_generate() and
// scru128_generate() return with idtype and checks every field, the
// timestamp against clock_timestamp(), the SQL timestamp functions against
// Go, and that one session's SCRU128 IDs ascend with the counter stepping by
// exactly 1 inside a millisecond.
func TestSQLGeneratedValuesConform(t *testing.T) {
	t.Parallel()
	rows, err := pgtest.Conn(t).Query(t.Context(), `
		SELECT h, huid_timestamp(h), s::text, scru128_timestamp(s), c
		FROM (SELECT huid_generate() AS h, scru128_generate() AS s, clock_timestamp() AS c, g
		      FROM generate_series(1, 20000) g) q
		ORDER BY g`)
	if err != nil {
		t.Fatalf("query: %v", err)
	}
	defer rows.Close()
	var prev idtype.SCRU128
	n, sameMs := 0, 0
	for rows.Next() {
		var h int64
		var uuidText string
		var huidTime, scruTime, clock time.Time
		if err := rows.Scan(&h, &huidTime, &uuidText, &scruTime, &clock); err != nil {
			t.Fatalf("scan: %v", err)
		}
		checkHUID(t, h, huidTime, clock)
		id := checkSCRU128(t, uuidText, scruTime, clock)
		if n > 0 {
			switch {
			case id.Compare(prev) <= 0:
				t.Fatalf("row %d: %s not above the previous %s", n, id, prev)
			case id.Timestamp() == prev.Timestamp():
				sameMs++
				if id.Counter() != prev.Counter()+1 {
					t.Fatalf("row %d: counter %d after %d in the same millisecond, want +1", n, id.Counter(), prev.Counter())
				}
			}
		}
		prev = id
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("rows: %v", err)
	}
	if n != 20000 || sameMs == 0 {
		t.Errorf("%d rows, %d in an already used millisecond; want 20000 and some", n, sameMs)
	}
}

// checkHUID checks a HUID from huid_generate() and huid_timestamp() of it.
func checkHUID(t *testing.T, v int64, sqlTime, clock time.Time) {
	t.Helper()
	h, err := idtype.ParseHUID(strconv.FormatInt(v, 10))
	if err != nil {
		t.Fatalf("ParseHUID(%d): %v", v, err)
	}
	if !h.Valid() || h.Random() > idtype.HUIDMaxRandom || !h.Time().Equal(sqlTime) {
		t.Fatalf("HUID %d: valid %v, random %d, time %v, huid_timestamp %v", v, h.Valid(), h.Random(), h.Time(), sqlTime)
	}
	if d := clock.Sub(h.Time()).Abs(); d > time.Second {
		t.Fatalf("HUID %d: time %v is %v from clock_timestamp() %v", v, h.Time(), d, clock)
	}
}

// checkSCRU128 parses the UUID text of a SCRU128 from scru128_generate() and
// checks its fields and scru128_timestamp() of it.
func checkSCRU128(t *testing.T, uuidText string, sqlTime, clock time.Time) idtype.SCRU128 {
	t.Helper()
	id, err := idtype.ParseSCRU128(uuidText)
	if err != nil {
		t.Fatalf("ParseSCRU128(%s): %v", uuidText, err)
	}
	again, err := idtype.SCRU128FromFields(id.Timestamp(), id.Counter(), id.PerSecRandom(), id.PerGenRandom())
	if err != nil || again != id {
		t.Fatalf("SCRU128 %s: fields do not rebuild it (%v)", id, err)
	}
	if ts := id.Timestamp(); ts == 0 || ts == idtype.SCRU128MaxTimestamp || !id.Time().Equal(sqlTime) {
		t.Fatalf("SCRU128 %s: timestamp %d, time %v, scru128_timestamp %v", id, ts, id.Time(), sqlTime)
	}
	if d := clock.Sub(id.Time()).Abs(); d > time.Second {
		t.Fatalf("SCRU128 %s: time %v is %v from clock_timestamp() %v", id, id.Time(), d, clock)
	}
	return id
}

// TestSQLDefaultsFillOnInsert: columns with the generator DEFAULTs are filled
// by INSERT ... DEFAULT VALUES, with values idtype parses.
func TestSQLDefaultsFillOnInsert(t *testing.T) {
	t.Parallel()
	conn := pgtest.Conn(t)
	ctx := t.Context()
	if _, err := conn.Exec(ctx, `CREATE TABLE sql_defaults (
		h huid PRIMARY KEY DEFAULT huid_generate(),
		s uuid NOT NULL UNIQUE DEFAULT scru128_generate(),
		b bytea NOT NULL UNIQUE DEFAULT scru128_generate_bytea())`); err != nil {
		t.Fatalf("create table: %v", err)
	}
	for i := range 3 {
		var h int64
		var s string
		var b []byte
		var clock time.Time
		err := conn.QueryRow(ctx, "INSERT INTO sql_defaults DEFAULT VALUES RETURNING h, s::text, b, clock_timestamp()").Scan(&h, &s, &b, &clock)
		if err != nil {
			t.Fatalf("insert %d: %v", i, err)
		}
		checkHUID(t, h, idtype.HUID(h).Time(), clock)
		checkSCRU128(t, s, idtype.MustParseSCRU128(s).Time(), clock)
		var fromBytes idtype.SCRU128Bytes
		if err := fromBytes.Scan(b); err != nil {
			t.Fatalf("bytea default %x: %v", b, err)
		}
		checkSCRU128(t, fromBytes.ID().UUIDString(), fromBytes.ID().Time(), clock)
	}
}

// TestSQLSCRU128ConcurrentDefault: 8 connections insert 50 000 rows each into
// one table whose key defaults to scru128_generate(); no ID repeats and each
// connection's rows ascend in insertion order.
func TestSQLSCRU128ConcurrentDefault(t *testing.T) {
	t.Parallel()
	const conns, perConn = 8, 50_000
	ctx := t.Context()
	setup := pgtest.Conn(t)
	if _, err := setup.Exec(ctx, `CREATE TABLE sql_scru128_concurrent (
		id uuid PRIMARY KEY DEFAULT scru128_generate(), conn int NOT NULL, seq int NOT NULL)`); err != nil {
		t.Fatalf("create table: %v", err)
	}
	// One INSERT per connection: the DEFAULT fires once per row, in seq order.
	execConcurrently(t, conns, perConn, `INSERT INTO sql_scru128_concurrent (conn, seq)
		SELECT $1, g FROM generate_series(1, $2::int) g ORDER BY g`)
	var rows, distinct, notAscending int
	err := setup.QueryRow(ctx, `SELECT count(*), count(DISTINCT id), count(*) FILTER (WHERE id <= prev)
		FROM (SELECT id, lag(id) OVER (PARTITION BY conn ORDER BY seq) AS prev FROM sql_scru128_concurrent) q`).
		Scan(&rows, &distinct, &notAscending)
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	if rows != conns*perConn || distinct != rows || notAscending != 0 {
		t.Errorf("%d rows, %d distinct, %d not above their predecessor; want %d, %d, 0",
			rows, distinct, notAscending, conns*perConn, conns*perConn)
	}
}
