package integration_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sortid/sortid/idtype"
	"github.com/sortid/sortid/integration/internal/pgtest"
	"github.com/sortid/sortid/pgxtype"
)

// arrayLen is the length of the array cell of the round-trip matrix.
const arrayLen = 1000

// idCase is one value of an idKind: the Go value and the text PostgreSQL
// prints for it (v::text), "NULL" for NULL.
type idCase struct {
	name  string
	value any
	text  string
}

// idKind is one row of the round-trip matrix: a Go type and the column type
// it is stored in.
type idKind struct {
	name    string
	sqlType string
	cases   []idCase
	// array is an arrayLen-element slice of the Go type and arrayText its
	// PostgreSQL text form (a::text).
	array     any
	arrayText string
}

func huidText(h idtype.HUID) string        { return h.String() }
func scru128Text(id idtype.SCRU128) string { return id.UUIDString() }
func byteaText(id idtype.SCRU128) string   { return `\x` + hex.EncodeToString(id[:]) }

// arrayText is the PostgreSQL text form of a one-dimensional array whose
// elements print as texts ("NULL" for NULL); quote quotes every non-NULL
// element as array_out does for bytea.
func arrayText(texts []string, quote bool) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, s := range texts {
		if i > 0 {
			b.WriteByte(',')
		}
		if quote && s != "NULL" {
			s = `"` + strings.ReplaceAll(s, `\`, `\\`) + `"`
		}
		b.WriteString(s)
	}
	b.WriteByte('}')
	return b.String()
}

// idKinds returns the matrix rows, with fresh values from the idtype generators.
func idKinds() []idKind {
	fresh, freshID := idtype.NewHUID(), idtype.NewSCRU128()
	huids, huidTexts := make([]idtype.HUID, arrayLen), make([]string, arrayLen)
	nullHUIDs, nullHUIDTexts := make([]idtype.NullHUID, arrayLen), make([]string, arrayLen)
	ids, idTexts := make([]idtype.SCRU128, arrayLen), make([]string, arrayLen)
	nullIDs, nullIDTexts := make([]idtype.NullSCRU128, arrayLen), make([]string, arrayLen)
	byteIDs, byteTexts := make([]idtype.SCRU128Bytes, arrayLen), make([]string, arrayLen)
	nullByteIDs, nullByteTexts := make([]idtype.NullSCRU128Bytes, arrayLen), make([]string, arrayLen)
	for i := range arrayLen {
		h, id := idtype.NewHUID(), idtype.NewSCRU128()
		switch i {
		case 0:
			h, id = 0, idtype.SCRU128{}
		case 1:
			h, id = idtype.MaxHUID, idtype.MaxSCRU128
		}
		huids[i], huidTexts[i] = h, huidText(h)
		ids[i], idTexts[i] = id, scru128Text(id)
		byteIDs[i], byteTexts[i] = idtype.SCRU128Bytes(id), byteaText(id)
		if i%7 == 3 { // every seventh element of the Null arrays is NULL
			nullHUIDTexts[i], nullIDTexts[i], nullByteTexts[i] = "NULL", "NULL", "NULL"
			continue
		}
		nullHUIDs[i], nullHUIDTexts[i] = idtype.NullHUID{V: h, Valid: true}, huidText(h)
		nullIDs[i], nullIDTexts[i] = idtype.NullSCRU128{V: id, Valid: true}, scru128Text(id)
		nullByteIDs[i], nullByteTexts[i] = idtype.NullSCRU128Bytes{V: idtype.SCRU128Bytes(id), Valid: true}, byteaText(id)
	}
	return []idKind{
		{name: "HUID", sqlType: "bigint", cases: []idCase{
			{"zero", idtype.HUID(0), "0"},
			{"max", idtype.MaxHUID, "9223372036854775807"},
			{"fresh", fresh, huidText(fresh)},
		}, array: huids, arrayText: arrayText(huidTexts, false)},
		{name: "NullHUID", sqlType: "bigint", cases: []idCase{
			{"zero", idtype.NullHUID{Valid: true}, "0"},
			{"max", idtype.NullHUID{V: idtype.MaxHUID, Valid: true}, "9223372036854775807"},
			{"fresh", idtype.NullHUID{V: fresh, Valid: true}, huidText(fresh)},
			{"NULL", idtype.NullHUID{}, "NULL"},
		}, array: nullHUIDs, arrayText: arrayText(nullHUIDTexts, false)},
		{name: "SCRU128", sqlType: "uuid", cases: []idCase{
			{"zero", idtype.SCRU128{}, "00000000-0000-0000-0000-000000000000"},
			{"max", idtype.MaxSCRU128, "ffffffff-ffff-ffff-ffff-ffffffffffff"},
			{"fresh", freshID, scru128Text(freshID)},
		}, array: ids, arrayText: arrayText(idTexts, false)},
		{name: "NullSCRU128", sqlType: "uuid", cases: []idCase{
			{"zero", idtype.NullSCRU128{Valid: true}, "00000000-0000-0000-0000-000000000000"},
			{"max", idtype.NullSCRU128{V: idtype.MaxSCRU128, Valid: true}, "ffffffff-ffff-ffff-ffff-ffffffffffff"},
			{"fresh", idtype.NullSCRU128{V: freshID, Valid: true}, scru128Text(freshID)},
			{"NULL", idtype.NullSCRU128{}, "NULL"},
		}, array: nullIDs, arrayText: arrayText(nullIDTexts, false)},
		{name: "SCRU128Bytes", sqlType: "bytea", cases: []idCase{
			{"zero", idtype.SCRU128Bytes{}, byteaText(idtype.SCRU128{})},
			{"max", idtype.SCRU128Bytes(idtype.MaxSCRU128), byteaText(idtype.MaxSCRU128)},
			{"fresh", idtype.SCRU128Bytes(freshID), byteaText(freshID)},
		}, array: byteIDs, arrayText: arrayText(byteTexts, true)},
		{name: "NullSCRU128Bytes", sqlType: "bytea", cases: []idCase{
			{"zero", idtype.NullSCRU128Bytes{Valid: true}, byteaText(idtype.SCRU128{})},
			{"max", idtype.NullSCRU128Bytes{V: idtype.SCRU128Bytes(idtype.MaxSCRU128), Valid: true}, byteaText(idtype.MaxSCRU128)},
			{"fresh", idtype.NullSCRU128Bytes{V: idtype.SCRU128Bytes(freshID), Valid: true}, byteaText(freshID)},
			{"NULL", idtype.NullSCRU128Bytes{}, "NULL"},
		}, array: nullByteIDs, arrayText: arrayText(nullByteTexts, true)},
	}
}

// tableName returns a fresh table name, so that parallel tests sharing the
// run's database never meet.
func tableName(prefix string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return prefix + "_" + hex.EncodeToString(b[:])
}

// pgxDB is what *pgx.Conn and *pgxpool.Pool have in common.
type pgxDB interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	CopyFrom(ctx context.Context, table pgx.Identifier, columns []string, src pgx.CopyFromSource) (int64, error)
}

// createTable creates a table (k int PRIMARY KEY, v sqlType, a sqlType[]) and returns its name.
func createTable(t testing.TB, exec func(ctx context.Context, sql string) error, sqlType string) string {
	t.Helper()
	name := tableName("rt")
	if err := exec(t.Context(), fmt.Sprintf("CREATE TABLE %s (k int PRIMARY KEY, v %s, a %s[])", name, sqlType, sqlType)); err != nil {
		t.Fatalf("create table: %v", err)
	}
	return name
}

// registeredConn connects to the run's database in the given mode, with
// pgxtype registered.
func registeredConn(t testing.TB, mode pgx.QueryExecMode) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(pgtest.URL(t))
	if err != nil {
		t.Fatalf("parse config: %v", err)
	}
	cfg.DefaultQueryExecMode = mode
	conn, err := pgx.ConnectConfig(t.Context(), cfg)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	pgxtype.Register(conn.TypeMap())
	return conn
}

// registeredPool returns a pool on the run's database whose connections
// register pgxtype in AfterConnect.
func registeredPool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	return poolWith(t, func(ctx context.Context, conn *pgx.Conn) error {
		pgxtype.Register(conn.TypeMap())
		return nil
	})
}

// poolWith returns a pool on the run's database with afterConnect as its
// AfterConnect hook.
func poolWith(t testing.TB, afterConnect func(context.Context, *pgx.Conn) error) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(pgtest.URL(t))
	if err != nil {
		t.Fatalf("parse pool config: %v", err)
	}
	cfg.AfterConnect = afterConnect
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
	if err != nil {
		t.Fatalf("pool: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// execAll runs each statement on conn in order, failing the test on the
// first error.
func execAll(t testing.TB, conn *pgx.Conn, stmts ...string) {
	t.Helper()
	for _, stmt := range stmts {
		if _, err := conn.Exec(t.Context(), stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
}
