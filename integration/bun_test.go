package integration_test

import (
	"database/sql"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/sortid/sortid/idtype"
)

// bunEvent has the type: tags docs/recipes/bun.md gives for every idtype
// type, and DB-side defaults that bun fills back in through RETURNING.
type bunEvent struct {
	bun.BaseModel `bun:"table:bun_events"`

	ID     idtype.HUID             `bun:"id,pk,type:huid,default:huid_generate()"`
	Trace  idtype.SCRU128          `bun:"trace,type:uuid,notnull,default:scru128_generate()"`
	Blob   idtype.SCRU128Bytes     `bun:"blob,type:scru128_bytes,notnull,default:scru128_generate_bytea()"`
	Parent idtype.NullHUID         `bun:"parent,type:huid"`
	Link   idtype.NullSCRU128      `bun:"link,type:uuid"`
	Raw    idtype.NullSCRU128Bytes `bun:"raw,type:scru128_bytes"`
	Name   string                  `bun:"name,notnull"`
}

// bunUntagged is bunEvent without type: tags, to show what bun guesses.
type bunUntagged struct {
	bun.BaseModel `bun:"table:bun_untagged"`

	ID     idtype.HUID `bun:"id,pk"`
	Trace  idtype.SCRU128
	Blob   idtype.SCRU128Bytes
	Parent idtype.NullHUID
	Link   idtype.NullSCRU128
	Raw    idtype.NullSCRU128Bytes
}

// bunDB returns bun on a fresh database with the sortid functions and both
// models' tables, made by bun's CreateTable.
func bunDB(t *testing.T) (*bun.DB, *sql.DB) {
	t.Helper()
	_, sqldb := migratedDatabase(t)
	db := bun.NewDB(sqldb, pgdialect.New())
	for _, model := range []any{(*bunEvent)(nil), (*bunUntagged)(nil)} {
		if _, err := db.NewCreateTable().Model(model).Exec(t.Context()); err != nil {
			t.Fatalf("create table for %T: %v", model, err)
		}
	}
	return db, sqldb
}

// columnTypes returns format_type of each column of table, by name.
func columnTypes(t *testing.T, db *sql.DB, table string) map[string]string {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), `SELECT attname, format_type(atttypid, atttypmod)
		FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped`, table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	types := map[string]string{}
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			t.Fatal(err)
		}
		types[name] = typ
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return types
}

// The type: tags give each column its sortid type; without them bun guesses
// bytea for SCRU128 and jsonb for the Null types.
func TestBunCreateTableTypes(t *testing.T) {
	t.Parallel()
	_, sqldb := bunDB(t)
	for _, tc := range []struct {
		table string
		want  map[string]string
	}{
		{"bun_events", map[string]string{
			"id": "huid", "trace": "uuid", "blob": "scru128_bytes",
			"parent": "huid", "link": "uuid", "raw": "scru128_bytes", "name": "character varying",
		}},
		{"bun_untagged", map[string]string{
			"id": "bigint", "trace": "bytea", "blob": "bytea",
			"parent": "jsonb", "link": "jsonb", "raw": "jsonb",
		}},
	} {
		got := columnTypes(t, sqldb, tc.table)
		if len(got) != len(tc.want) {
			t.Errorf("%s has columns %v; want %v", tc.table, got, tc.want)
		}
		for col, want := range tc.want {
			if got[col] != want {
				t.Errorf("%s.%s is %q; want %q", tc.table, col, got[col], want)
			}
		}
	}
}

// Without the tags, a SCRU128 lands in bytea as its 36 bytes of UUID text,
// and a valid Null value cannot be inserted into the jsonb column at all.
func TestBunUntaggedGoesWrong(t *testing.T) {
	t.Parallel()
	db, sqldb := bunDB(t)
	ctx := t.Context()
	row := bunUntagged{ID: idtype.NewHUID(), Trace: idtype.NewSCRU128()}
	if _, err := db.NewInsert().Model(&row).Exec(ctx); err != nil {
		t.Fatalf("insert: %v", err)
	}
	var stored []byte
	if err := sqldb.QueryRowContext(ctx, `SELECT trace FROM bun_untagged WHERE id = $1`, row.ID).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if string(stored) != row.Trace.UUIDString() {
		t.Errorf("untagged trace stored as %q; want the 36-byte UUID text %s", stored, row.Trace.UUIDString())
	}
	var back bunUntagged
	if err := db.NewSelect().Model(&back).Where("id = ?", row.ID).Scan(ctx); err != nil || back.Trace != row.Trace {
		t.Errorf("read back = %v, %v; want %s", back.Trace, err, row.Trace)
	}

	for _, bad := range []bunUntagged{
		{ID: idtype.NewHUID(), Parent: idtype.NullHUID{V: row.ID, Valid: true}},
		{ID: idtype.NewHUID(), Link: idtype.NullSCRU128{V: row.Trace, Valid: true}},
		{ID: idtype.NewHUID(), Raw: idtype.NullSCRU128Bytes{V: idtype.SCRU128Bytes(row.Trace), Valid: true}},
	} {
		_, err := db.NewInsert().Model(&bad).Exec(ctx)
		if err == nil || !strings.Contains(err.Error(), "json") {
			t.Errorf("insert of a valid Null value into the guessed jsonb column: %v; want a json error", err)
		}
	}
}

// Zero keys are written as DEFAULT, and bun reads the database's values
// back through RETURNING, for one row and for a slice.
func TestBunDefaultsReturning(t *testing.T) {
	t.Parallel()
	db, sqldb := bunDB(t)
	ctx := t.Context()
	before := time.Now().Add(-time.Second)

	one := bunEvent{Name: "one"}
	if _, err := db.NewInsert().Model(&one).Exec(ctx); err != nil {
		t.Fatalf("insert one: %v", err)
	}
	many := []bunEvent{{Name: "two"}, {Name: "three"}, {Name: "four"}}
	q := db.NewInsert().Model(&many)
	if !regexp.MustCompile(`RETURNING "id", "trace", "blob"$`).MatchString(q.String()) {
		t.Errorf("bun's INSERT does not return the defaulted columns: %s", q.String())
	}
	if _, err := q.Exec(ctx); err != nil {
		t.Fatalf("insert slice: %v", err)
	}
	for _, e := range append(many, one) {
		if e.ID.Time().Before(before) || e.Trace.Time().Before(before) || e.Blob.ID().Time().Before(before) {
			t.Errorf("%s: id %d (%v), trace %s, blob %s; want all made by the database just now",
				e.Name, e.ID, e.ID.Time(), e.Trace, e.Blob)
		}
		var trace, blob string
		err := sqldb.QueryRowContext(ctx, `SELECT trace::text, encode(blob, 'hex') FROM bun_events WHERE id = $1`, e.ID).Scan(&trace, &blob)
		if err != nil || trace != e.Trace.UUIDString() || blob != strings.ReplaceAll(e.Blob.ID().UUIDString(), "-", "") {
			t.Errorf("row %d = %s %s, %v; bun returned %s", e.ID, trace, blob, err, e.Trace.UUIDString())
		}
	}
}

// Every type makes the round trip through bun, valid and NULL.
func TestBunRoundTrip(t *testing.T) {
	t.Parallel()
	db, _ := bunDB(t)
	ctx := t.Context()
	id := idtype.NewSCRU128()
	for _, in := range []bunEvent{
		{ID: idtype.NewHUID(), Trace: id, Blob: idtype.SCRU128Bytes(id), Name: "nulls"},
		{ID: idtype.NewHUID(), Trace: id, Blob: idtype.SCRU128Bytes(id), Name: "values",
			Parent: idtype.NullHUID{V: idtype.MaxHUID, Valid: true},
			Link:   idtype.NullSCRU128{V: idtype.MaxSCRU128, Valid: true},
			Raw:    idtype.NullSCRU128Bytes{V: idtype.SCRU128Bytes(id), Valid: true}},
	} {
		sent := in
		if _, err := db.NewInsert().Model(&in).Exec(ctx); err != nil {
			t.Fatalf("insert %s: %v", in.Name, err)
		}
		if in != sent {
			t.Errorf("insert changed the set fields: %+v; sent %+v", in, sent)
		}
		var out bunEvent
		if err := db.NewSelect().Model(&out).Where("id = ?", in.ID).Scan(ctx); err != nil || out != in {
			t.Errorf("read back %+v, %v; want %+v", out, err, in)
		}
	}
}
