package integration_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/jackc/pgx/v5"
)

// arrayKey is the k of the row that holds a kind's array.
const arrayKey = 100

// pgxPath is one way to reach PostgreSQL through pgx: a connection or pool
// and whether rows go in with INSERT or with CopyFrom.
type pgxPath struct {
	name string
	db   func(t *testing.T) pgxDB
	copy bool
}

func pgxPaths() []pgxPath {
	var paths []pgxPath
	for _, mode := range []pgx.QueryExecMode{
		pgx.QueryExecModeCacheStatement,
		pgx.QueryExecModeCacheDescribe,
		pgx.QueryExecModeDescribeExec,
		pgx.QueryExecModeExec,
		pgx.QueryExecModeSimpleProtocol,
	} {
		paths = append(paths, pgxPath{name: mode.String(), db: func(t *testing.T) pgxDB { return registeredConn(t, mode) }})
	}
	return append(paths,
		pgxPath{name: "pgxpool", db: func(t *testing.T) pgxDB { return registeredPool(t) }},
		pgxPath{name: "CopyFrom", db: func(t *testing.T) pgxDB { return registeredConn(t, pgx.QueryExecModeCacheStatement) }, copy: true},
	)
}

// TestPgxRoundTrip stores every value of the matrix through every pgx path
// and reads it back: the Go value must come back equal and PostgreSQL must
// hold exactly the intended value (checked through its text form).
func TestPgxRoundTrip(t *testing.T) {
	t.Parallel()
	kinds := idKinds()
	for _, path := range pgxPaths() {
		t.Run(path.name, func(t *testing.T) {
			t.Parallel()
			db := path.db(t)
			for _, kind := range kinds {
				t.Run(kind.name, func(t *testing.T) {
					table := createTable(t, func(ctx context.Context, sql string) error {
						_, err := db.Exec(ctx, sql)
						return err
					}, kind.sqlType)
					insertPgx(t, db, path.copy, table, kind)
					for k, c := range kind.cases {
						checkPgx(t, db, table, k, "v", c.value, c.text)
					}
					checkPgx(t, db, table, arrayKey, "a", kind.array, kind.arrayText)
				})
			}
		})
	}
}

// insertPgx stores kind's cases as rows k = 0, 1, … (column v) and its
// array as row arrayKey (column a).
func insertPgx(t *testing.T, db pgxDB, useCopy bool, table string, kind idKind) {
	t.Helper()
	rows := [][]any{{arrayKey, nil, kind.array}}
	for k, c := range kind.cases {
		rows = append(rows, []any{k, c.value, nil})
	}
	if useCopy {
		n, err := db.CopyFrom(t.Context(), pgx.Identifier{table}, []string{"k", "v", "a"}, pgx.CopyFromRows(rows))
		if err != nil || n != int64(len(rows)) {
			t.Fatalf("CopyFrom: %d rows, %v; want %d", n, err, len(rows))
		}
		return
	}
	for _, row := range rows {
		if _, err := db.Exec(t.Context(), "INSERT INTO "+table+" (k, v, a) VALUES ($1, $2, $3)", row...); err != nil {
			t.Fatalf("insert k=%v (%#v, %T): %v", row[0], row[1], row[2], err)
		}
	}
}

// checkPgx reads column col of row k into a new value of want's type and
// compares it with want, and the column's text form with wantText.
func checkPgx(t *testing.T, db pgxDB, table string, k int, col string, want any, wantText string) {
	t.Helper()
	dst := reflect.New(reflect.TypeOf(want))
	var text string
	query := fmt.Sprintf("SELECT %s, coalesce(%s::text, 'NULL') FROM %s WHERE k = $1", col, col, table)
	if err := db.QueryRow(t.Context(), query, k).Scan(dst.Interface(), &text); err != nil {
		t.Fatalf("k=%d: select %s into %T: %v", k, col, dst.Interface(), err)
	}
	if got := dst.Elem().Interface(); !reflect.DeepEqual(got, want) {
		t.Errorf("k=%d: scanned %s = %s, want %s", k, col, short(got), short(want))
	}
	if text != wantText {
		t.Errorf("k=%d: PostgreSQL holds %s = %s, want %s", k, col, shortText(text), shortText(wantText))
	}
}

func short(v any) string { return shortText(fmt.Sprintf("%v", v)) }

func shortText(s string) string {
	if len(s) > 120 {
		return fmt.Sprintf("%s… (%d chars)", s[:120], len(s))
	}
	return s
}
