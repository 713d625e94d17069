package integration_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/sortid/sortid/idtype"
	"github.com/sortid/sortid/integration/internal/pgtest"
)

// event is a row of the sqlx test table, nullable columns as Null types.
type event struct {
	ID       idtype.HUID             `db:"id"`
	Trace    idtype.SCRU128          `db:"trace"`
	Raw      idtype.SCRU128Bytes     `db:"raw"`
	Parent   idtype.NullHUID         `db:"parent"`
	Session  idtype.NullSCRU128      `db:"session"`
	RawMaybe idtype.NullSCRU128Bytes `db:"raw_maybe"`
}

// TestSqlx stores the matrix values through sqlx's NamedExec and reads them
// back with Get, Select and sqlx.In, over both database/sql drivers.
func TestSqlx(t *testing.T) {
	t.Parallel()
	fresh, freshID := idtype.NewHUID(), idtype.NewSCRU128()
	events := []event{
		{ID: 0}, // zero values everywhere, NULL in the nullable columns
		{ID: idtype.MaxHUID, Trace: idtype.MaxSCRU128, Raw: idtype.SCRU128Bytes(idtype.MaxSCRU128),
			Parent:   idtype.NullHUID{V: idtype.MaxHUID, Valid: true},
			Session:  idtype.NullSCRU128{V: idtype.MaxSCRU128, Valid: true},
			RawMaybe: idtype.NullSCRU128Bytes{V: idtype.SCRU128Bytes(idtype.MaxSCRU128), Valid: true}},
		{ID: fresh, Trace: freshID, Raw: idtype.SCRU128Bytes(freshID),
			Parent:   idtype.NullHUID{V: 0, Valid: true},
			Session:  idtype.NullSCRU128{Valid: true},
			RawMaybe: idtype.NullSCRU128Bytes{Valid: true}},
	}
	for _, driver := range []struct {
		name string
		db   func(t *testing.T) *sqlx.DB
	}{
		{"pgx-stdlib", func(t *testing.T) *sqlx.DB { return sqlx.NewDb(pgtest.StdDB(t), "pgx") }},
		{"lib-pq", func(t *testing.T) *sqlx.DB { return sqlx.NewDb(libpqDB(t), "postgres") }},
	} {
		t.Run(driver.name, func(t *testing.T) {
			t.Parallel()
			db := driver.db(t)
			table := tableName("ev")
			db.MustExecContext(t.Context(), "CREATE TABLE "+table+` (id bigint PRIMARY KEY, trace uuid NOT NULL,
				raw bytea NOT NULL, parent bigint, session uuid, raw_maybe bytea)`)
			_, err := db.NamedExecContext(t.Context(), "INSERT INTO "+table+
				" (id, trace, raw, parent, session, raw_maybe) VALUES (:id, :trace, :raw, :parent, :session, :raw_maybe)", events)
			if err != nil {
				t.Fatalf("NamedExec: %v", err)
			}

			var got []event
			if err := db.SelectContext(t.Context(), &got, "SELECT * FROM "+table+" ORDER BY id"); err != nil {
				t.Fatalf("Select: %v", err)
			}
			want := slices.SortedFunc(slices.Values(events), func(a, b event) int { return a.ID.Compare(b.ID) })
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Select = %+v, want %+v", got, want)
			}

			var one event
			if err := db.GetContext(t.Context(), &one, db.Rebind("SELECT * FROM "+table+" WHERE trace = ?"), freshID); err != nil || one != events[2] {
				t.Errorf("Get = %+v, %v; want %+v", one, err, events[2])
			}

			query, args, err := sqlx.In("SELECT id FROM "+table+" WHERE id IN (?) ORDER BY id", []idtype.HUID{idtype.MaxHUID, 0})
			if err != nil {
				t.Fatalf("sqlx.In: %v", err)
			}
			var ids []idtype.HUID
			if err := db.SelectContext(t.Context(), &ids, db.Rebind(query), args...); err != nil || !slices.Equal(ids, []idtype.HUID{0, idtype.MaxHUID}) {
				t.Errorf("sqlx.In select = %v, %v; want [0 %d]", ids, err, idtype.MaxHUID)
			}

			var parents []idtype.NullHUID
			if err := db.SelectContext(t.Context(), &parents, "SELECT parent FROM "+table+" ORDER BY id"); err != nil ||
				!slices.Equal(parents, []idtype.NullHUID{{}, {V: 0, Valid: true}, {V: idtype.MaxHUID, Valid: true}}) {
				t.Errorf("Select parent = %v, %v", parents, err)
			}
		})
	}
}
