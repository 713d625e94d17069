package integration_test

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sortid/sortid/idtype"
	"github.com/sortid/sortid/integration/internal/pgtest"
	"github.com/sortid/sortid/pgxtype"
)

// exampleConn connects to the run's database with pgxtype registered.
func exampleConn(ctx context.Context) *pgx.Conn {
	conn, err := pgx.Connect(ctx, pgtest.ExampleURL())
	if err != nil {
		panic(err)
	}
	pgxtype.Register(conn.TypeMap())
	return conn
}

// A pool registers pgxtype on every connection it opens, in AfterConnect.
func Example_pgxpoolAfterConnect() {
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(pgtest.ExampleURL())
	if err != nil {
		panic(err)
	}
	cfg.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		pgxtype.Register(conn.TypeMap())
		_, err := pgxtype.LoadHUIDDomain(ctx, conn) // optional: huid[] and huid parameters in binary
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
		ids      []idtype.HUID
		parent   idtype.NullHUID
	)
	err = pool.QueryRow(ctx, "SELECT $1::huid, $2::uuid, ARRAY[$1, 0]::huid[], NULL::bigint", id, trace).
		Scan(&gotID, &gotTrace, &ids, &parent)
	if err != nil {
		panic(err)
	}
	fmt.Println(gotID, gotID.Time().Format(time.RFC3339Nano))
	fmt.Println(gotTrace, gotTrace.UUIDString())
	fmt.Println(ids, parent.Valid)
	// Output:
	// 258037077 2026-01-01T00:00:00.123Z
	// 00QBTG0FERFTCCNFISUBO489DI 00d2fb00-3ddb-7f58-cbbe-5cf2f04425b2
	// [258037077 0] false
}

// CopyFrom sends HUIDs and SCRU128s in the binary format.
func Example_copyFrom() {
	ctx := context.Background()
	conn := exampleConn(ctx)
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE TEMP TABLE copied (id bigint PRIMARY KEY, trace uuid NOT NULL)"); err != nil {
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
		rows[i] = []any{id, trace}
	}
	n, err := conn.CopyFrom(ctx, pgx.Identifier{"copied"}, []string{"id", "trace"}, pgx.CopyFromRows(rows))
	if err != nil {
		panic(err)
	}

	var last idtype.HUID
	var lastTrace idtype.SCRU128
	err = conn.QueryRow(ctx, "SELECT id, trace FROM copied ORDER BY id DESC LIMIT 1").Scan(&last, &lastTrace)
	if err != nil {
		panic(err)
	}
	fmt.Println(n, "rows")
	fmt.Println(last.Time().Format(time.RFC3339Nano), last.Random(), lastTrace.Counter())
	// Output:
	// 1000 rows
	// 2026-03-01T00:00:00.999Z 999 999
}

// HUIDRange turns a time window into an index range of HUIDs.
func Example_huidRange() {
	ctx := context.Background()
	conn := exampleConn(ctx)
	defer conn.Close(ctx)
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
