package pgxtype_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sortid/sortid/idtype"
	"github.com/sortid/sortid/pgretry"
	"github.com/sortid/sortid/pgxtype"
)

// The examples connect to the database at DATABASE_URL, such as
// postgres://USER:PASSWORD@HOST:PORT/DB, which must have the sortid
// migrations (migrations.Apply, or sortid sql up); they write only to TEMP
// tables. go test runs them: when DATABASE_URL is unset, its TestMain
// (main_test.go) creates and migrates a scratch database on the server of
// SORTID_TEST_DATABASE and points DATABASE_URL at it.

// A pool registers pgxtype on every connection it opens, in AfterConnect.
// LoadDomains also loads the huid and scru128_bytes domains, so that their
// parameters and arrays travel in binary and a SCRU128 of the uuid form is
// refused before it reaches a scru128_bytes column.
func Example_pgxpoolAfterConnect() {
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(os.Getenv("DATABASE_URL"))
	if err != nil {
		panic(err)
	}
	cfg.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		_, err := pgxtype.LoadDomains(ctx, conn) // calls pgxtype.Register first
		return err
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		panic(err)
	}
	defer pool.Close()

	id := idtype.MustParseHUID("258037077")
	trace := idtype.MustParseSCRU128("00QBTG0FERFTCCNFISUBO489DI")
	var (
		gotID    idtype.HUID
		gotTrace idtype.SCRU128
		raw      idtype.SCRU128Bytes
		ids      []idtype.HUID
		parent   idtype.NullHUID
	)
	err = pool.QueryRow(ctx, "SELECT $1::huid, $2::uuid, $3::scru128_bytes, ARRAY[$1, 0]::huid[], NULL::bigint",
		id, trace, idtype.SCRU128Bytes(trace)).Scan(&gotID, &gotTrace, &raw, &ids, &parent)
	if err != nil {
		panic(err)
	}
	fmt.Println(gotID, gotID.Time().Format(time.RFC3339Nano))
	fmt.Println(gotTrace, gotTrace.UUIDString(), raw == idtype.SCRU128Bytes(trace))
	fmt.Println(ids, parent.Valid)
	// Output:
	// 258037077 2026-01-01T00:00:00.123Z
	// 00QBTG0FERFTCCNFISUBO489DI 00d2fb00-3ddb-7f58-cbbe-5cf2f04425b2 true
	// [258037077 0] false
}

// CopyFrom sends HUIDs and SCRU128s in the binary format: a bigint, a uuid
// and a scru128_bytes column (16 bytes, from the SCRU128Bytes form).
func Example_copyFrom() {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		panic(err)
	}
	defer conn.Close(ctx)
	pgxtype.Register(conn.TypeMap())
	if _, err := conn.Exec(ctx, "CREATE TEMP TABLE copied (id bigint PRIMARY KEY, trace uuid NOT NULL, raw scru128_bytes NOT NULL)"); err != nil {
		panic(err)
	}

	start := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	rows := make([][]any, 1000)
	for i := range rows {
		id, err := idtype.HUIDFromParts(start.Add(time.Duration(i)*time.Millisecond), uint32(i))
		if err != nil {
			panic(err)
		}
		trace, err := idtype.SCRU128FromFields(uint64(start.UnixMilli()-idtype.SCRU128EpochMillis), uint32(i), 0, 0)
		if err != nil {
			panic(err)
		}
		rows[i] = []any{id, trace, idtype.SCRU128Bytes(trace)}
	}
	n, err := conn.CopyFrom(ctx, pgx.Identifier{"copied"}, []string{"id", "trace", "raw"}, pgx.CopyFromRows(rows))
	if err != nil {
		panic(err)
	}

	var last idtype.HUID
	var lastTrace idtype.SCRU128
	var rawLen int
	err = conn.QueryRow(ctx, "SELECT id, trace, octet_length(raw) FROM copied ORDER BY id DESC LIMIT 1").Scan(&last, &lastTrace, &rawLen)
	if err != nil {
		panic(err)
	}
	fmt.Println(n, "rows")
	fmt.Println(last.Time().Format(time.RFC3339Nano), last.Random(), lastTrace.Counter(), rawLen)
	// Output:
	// 1000 rows
	// 2026-03-01T00:00:00.999Z 999 999 16
}

// A COPY is one statement, so one key that is already taken (a HUID
// collision, SQLSTATE 23505) aborts all its rows. pgretry.InsertOnKey, with
// the key's columns, runs the COPY again after such a violation, and
// idtype.FillHUIDs makes new keys on every attempt, so a retry never reuses
// a taken one. Outside a transaction a failed COPY leaves nothing behind.
// To show a retry, the first attempt here lets another writer take its
// first key before it copies.
func Example_copyFromRetry() {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		panic(err)
	}
	defer conn.Close(ctx)
	pgxtype.Register(conn.TypeMap())
	if _, err := conn.Exec(ctx, "CREATE TEMP TABLE imported (id bigint PRIMARY KEY, body text NOT NULL)"); err != nil {
		panic(err)
	}

	bodies := make([]string, 1000)
	for i := range bodies {
		bodies[i] = fmt.Sprintf("line %d", i+1)
	}
	keys := make([]idtype.HUID, len(bodies))
	attempt := 0
	var copied int64
	retries, err := pgretry.InsertOnKey(ctx, []string{"id"}, 5, func(ctx context.Context) error {
		attempt++
		if err := idtype.FillHUIDs(keys); err != nil { // new keys, ascending
			return err
		}
		if attempt == 1 { // the collision, for the example: keys[0] is taken
			if _, err := conn.Exec(ctx, "INSERT INTO imported VALUES ($1, 'taken')", keys[0]); err != nil {
				return err
			}
		}
		n, err := conn.CopyFrom(ctx, pgx.Identifier{"imported"}, []string{"id", "body"},
			pgx.CopyFromSlice(len(keys), func(i int) ([]any, error) { return []any{keys[i], bodies[i]}, nil }))
		if err != nil {
			fmt.Printf("attempt %d: SQLSTATE %s on key (%s)\n", attempt, pgretry.SQLState(err), pgretry.KeyColumns(err))
			return err
		}
		fmt.Printf("attempt %d: %d rows\n", attempt, n)
		copied = n
		return nil
	})
	if err != nil {
		panic(err)
	}
	var rows int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM imported").Scan(&rows); err != nil {
		panic(err)
	}
	fmt.Println(retries, "retry,", copied, "rows copied,", rows, "in the table")
	// Output:
	// attempt 1: SQLSTATE 23505 on key (id)
	// attempt 2: 1000 rows
	// 1 retry, 1000 rows copied, 1001 in the table
}

// HUIDRange turns a time window into an index range of HUIDs.
func Example_huidRange() {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		panic(err)
	}
	defer conn.Close(ctx)
	pgxtype.Register(conn.TypeMap())
	if _, err := conn.Exec(ctx, "CREATE TEMP TABLE events (id bigint PRIMARY KEY, name text)"); err != nil {
		panic(err)
	}
	at := func(hhmm string, random uint32) idtype.HUID {
		t, err := time.Parse(time.RFC3339, "2026-03-01T"+hhmm+":00Z")
		if err != nil {
			panic(err)
		}
		id, err := idtype.HUIDFromParts(t, random)
		if err != nil {
			panic(err)
		}
		return id
	}
	for _, e := range []struct {
		id   idtype.HUID
		name string
	}{
		{at("09:59", idtype.HUIDMaxRandom), "before"},
		{at("10:00", 0), "first"},
		{at("10:30", 12345), "middle"},
		{at("10:59", idtype.HUIDMaxRandom), "last"},
		{at("11:00", 0), "after"},
	} {
		if _, err := conn.Exec(ctx, "INSERT INTO events VALUES ($1, $2)", e.id, e.name); err != nil {
			panic(err)
		}
	}

	from := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	lo, hi, err := idtype.HUIDRange(from, from.Add(time.Hour)) // [10:00, 11:00)
	if err != nil {
		panic(err)
	}
	rows, err := conn.Query(ctx, "SELECT name FROM events WHERE id BETWEEN $1 AND $2 ORDER BY id", lo, hi)
	if err != nil {
		panic(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		panic(err)
	}
	fmt.Println(names)
	// Output:
	// [first middle last]
}
