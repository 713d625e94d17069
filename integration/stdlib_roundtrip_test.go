package integration_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/lib/pq"

	"github.com/sortid/sortid/idtype"
	"github.com/sortid/sortid/integration/internal/pgtest"
	"github.com/sortid/sortid/pgxtype"
)

// sqlPath is one database/sql driver; array turns a slice (or a pointer to
// one, to scan into) into what that driver takes for a PostgreSQL array.
type sqlPath struct {
	name  string
	db    func(t *testing.T) *sql.DB
	array func(v any) any
}

func sqlPaths() []sqlPath {
	return []sqlPath{
		{name: "pgx-stdlib", db: func(t *testing.T) *sql.DB { return pgtest.StdDB(t) }, array: func(v any) any {
			if reflect.TypeOf(v).Kind() == reflect.Pointer {
				// A Map per scan: a pgtype.Map is not safe for concurrent
				// use, and the subtests run in parallel.
				m := pgtype.NewMap()
				pgxtype.Register(m) // only for m.SQLScanner: []HUID etc. need no help to be sent
				return m.SQLScanner(v)
			}
			return v
		}},
		{name: "lib-pq", db: libpqDB, array: func(v any) any { return pq.Array(v) }},
	}
}

// libpqDB opens the run's database through github.com/lib/pq.
func libpqDB(t *testing.T) *sql.DB { return libpqDBWith(t, nil) }

// libpqDBWith is libpqDB with extra connection parameters.
func libpqDBWith(t *testing.T, params url.Values) *sql.DB {
	t.Helper()
	return libpqOpen(t, pgtest.URL(t), params)
}

// libpqOpen opens the database at dbURL through github.com/lib/pq, with
// extra connection parameters.
func libpqOpen(t *testing.T, dbURL string, params url.Values) *sql.DB {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatalf("parse URL: %v", err)
	}
	q := u.Query()
	if q.Get("sslmode") == "" {
		q.Set("sslmode", "disable")
	}
	for k, v := range params {
		q[k] = v
	}
	u.RawQuery = q.Encode()
	db, err := sql.Open("postgres", u.String())
	if err != nil {
		t.Fatalf("open lib/pq: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if err := db.PingContext(t.Context()); err != nil {
		t.Fatalf("ping lib/pq: %v", err)
	}
	return db
}

// TestStdlibRoundTrip is TestPgxRoundTrip through database/sql, with the ID
// types' own Scan and Value methods and no registration.
func TestStdlibRoundTrip(t *testing.T) {
	t.Parallel()
	kinds := idKinds()
	for _, path := range sqlPaths() {
		t.Run(path.name, func(t *testing.T) {
			t.Parallel()
			db := path.db(t)
			for _, kind := range kinds {
				t.Run(kind.name, func(t *testing.T) {
					t.Parallel()
					table := createTable(t, func(ctx context.Context, q string) error {
						_, err := db.ExecContext(ctx, q)
						return err
					}, kind.sqlType)
					insert := "INSERT INTO " + table + " (k, v, a) VALUES ($1, $2, $3)"
					for k, c := range kind.cases {
						if _, err := db.ExecContext(t.Context(), insert, k, c.value, nil); err != nil {
							t.Fatalf("insert %s: %v", c.name, err)
						}
						checkSQL(t, db, table, k, "v", c.value, reflect.New(reflect.TypeOf(c.value)).Interface(), c.text)
					}
					if path.name == "lib-pq" && kind.sqlType == "bytea" {
						checkLibpqByteaArray(t, db, table, kind)
						return
					}
					if _, err := db.ExecContext(t.Context(), insert, arrayKey, nil, path.array(kind.array)); err != nil {
						t.Fatalf("insert array: %v", err)
					}
					dst := reflect.New(reflect.TypeOf(kind.array))
					checkSQL(t, db, table, arrayKey, "a", kind.array, path.array(dst.Interface()), kind.arrayText)
					if got := dst.Elem().Interface(); !reflect.DeepEqual(got, kind.array) {
						t.Errorf("scanned array = %s, want %s", short(got), short(kind.array))
					}
				})
			}
		})
	}
}

// checkSQL reads column col of row k into target, compares what target
// points to with want (unless target is an array adapter, which the caller
// checks) and the column's text form with wantText.
func checkSQL(t *testing.T, db *sql.DB, table string, k int, col string, want, target any, wantText string) {
	t.Helper()
	var text string
	query := fmt.Sprintf("SELECT %s, coalesce(%s::text, 'NULL') FROM %s WHERE k = $1", col, col, table)
	if err := db.QueryRowContext(t.Context(), query, k).Scan(target, &text); err != nil {
		t.Fatalf("k=%d: select %s into %T: %v", k, col, target, err)
	}
	if v := reflect.ValueOf(target); v.Type() == reflect.PointerTo(reflect.TypeOf(want)) {
		if got := v.Elem().Interface(); !reflect.DeepEqual(got, want) {
			t.Errorf("k=%d: scanned %s = %s, want %s", k, col, short(got), short(want))
		}
	}
	if text != wantText {
		t.Errorf("k=%d: PostgreSQL holds %s = %s, want %s", k, col, shortText(text), shortText(wantText))
	}
}

// checkLibpqByteaArray checks what lib/pq does with bytea[] and the bytea
// form, which its generic pq.Array cannot handle: sending one fails (it puts
// the raw bytes into the array's text form), and scanning one hands each
// element's text form (\x…) to Scan, which must reject it rather than
// misread it. (pq.ByteaArray works for []SCRU128Bytes converted element by
// element, but stores a NULL element as an empty bytea.)
func checkLibpqByteaArray(t *testing.T, db *sql.DB, table string, kind idKind) {
	t.Helper()
	insert := "INSERT INTO " + table + " (k, a) VALUES ($1, $2)"
	if _, err := db.ExecContext(t.Context(), insert, arrayKey, pq.Array(kind.array)); err == nil {
		t.Errorf("insert %T through pq.Array succeeded, want an error", kind.array)
	}
	if _, err := db.ExecContext(t.Context(), "INSERT INTO "+table+" (k, a) VALUES ($1, $2::text::bytea[])", arrayKey, kind.arrayText); err != nil {
		t.Fatalf("insert array as text: %v", err)
	}
	var text string
	if err := db.QueryRowContext(t.Context(), "SELECT a::text FROM "+table+" WHERE k = $1", arrayKey).Scan(&text); err != nil || text != kind.arrayText {
		t.Errorf("PostgreSQL holds a = %s (%v), want %s", shortText(text), err, shortText(kind.arrayText))
	}
	dst := reflect.New(reflect.TypeOf(kind.array))
	err := db.QueryRowContext(t.Context(), "SELECT a FROM "+table+" WHERE k = $1", arrayKey).Scan(pq.Array(dst.Interface()))
	if !errors.Is(err, idtype.ErrInvalidSCRU128) {
		t.Errorf("scan bytea[] through pq.Array: %v, want an error wrapping ErrInvalidSCRU128", err)
	}
}
