package integration_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sortid/sortid/idtype"
	"github.com/sortid/sortid/integration/sqlcexample/pgxdb"
	"github.com/sortid/sortid/integration/sqlcexample/sqldb"
	"github.com/sortid/sortid/pgxtype"
)

// orderStore is what the round-trip test needs of the two packages sqlc
// generates from sqlcexample/query.sql, in sqldb's types.
type orderStore interface {
	InsertOrder(ctx context.Context, arg sqldb.InsertOrderParams) (sqldb.Order, error)
	GetOrder(ctx context.Context, id idtype.HUID) (sqldb.GetOrderRow, error)
	OrdersBetween(ctx context.Context, arg sqldb.OrdersBetweenParams) ([]sqldb.Order, error)
	OrdersByIDs(ctx context.Context, ids []idtype.HUID) ([]sqldb.Order, error)
	OrderByReceipt(ctx context.Context, receipt idtype.SCRU128Bytes) (sqldb.Order, error)
	NewIDs(ctx context.Context) (sqldb.NewIDsRow, error)
	TraceText(ctx context.Context, trace idtype.SCRU128) (string, error)
	ParseTrace(ctx context.Context, text string) (idtype.SCRU128, error)
}

// pgxStore adapts pgxdb to orderStore: its types differ from sqldb's only in
// pgtype.Timestamptz for timestamptz.
type pgxStore struct{ q *pgxdb.Queries }

func (s pgxStore) InsertOrder(ctx context.Context, arg sqldb.InsertOrderParams) (sqldb.Order, error) {
	o, err := s.q.InsertOrder(ctx, pgxdb.InsertOrderParams(arg))
	return sqldb.Order(o), err
}

func (s pgxStore) GetOrder(ctx context.Context, id idtype.HUID) (sqldb.GetOrderRow, error) {
	r, err := s.q.GetOrder(ctx, id)
	return sqldb.GetOrderRow{
		ID: r.ID, CustomerID: r.CustomerID, ParentID: r.ParentID, Trace: r.Trace,
		RefundTrace: r.RefundTrace, Receipt: r.Receipt, Note: r.Note,
		TraceText: r.TraceText, CreatedAt: r.CreatedAt.Time,
	}, err
}

func (s pgxStore) OrdersBetween(ctx context.Context, arg sqldb.OrdersBetweenParams) ([]sqldb.Order, error) {
	rows, err := s.q.OrdersBetween(ctx, pgxdb.OrdersBetweenParams{
		Since: pgtype.Timestamptz{Time: arg.Since, Valid: true},
		Until: pgtype.Timestamptz{Time: arg.Until, Valid: true},
	})
	return toSQLOrders(rows), err
}

func (s pgxStore) OrdersByIDs(ctx context.Context, ids []idtype.HUID) ([]sqldb.Order, error) {
	rows, err := s.q.OrdersByIDs(ctx, ids)
	return toSQLOrders(rows), err
}

func (s pgxStore) OrderByReceipt(ctx context.Context, receipt idtype.SCRU128Bytes) (sqldb.Order, error) {
	o, err := s.q.OrderByReceipt(ctx, receipt)
	return sqldb.Order(o), err
}

func (s pgxStore) NewIDs(ctx context.Context) (sqldb.NewIDsRow, error) {
	r, err := s.q.NewIDs(ctx)
	return sqldb.NewIDsRow(r), err
}

func (s pgxStore) TraceText(ctx context.Context, trace idtype.SCRU128) (string, error) {
	return s.q.TraceText(ctx, trace)
}

func (s pgxStore) ParseTrace(ctx context.Context, text string) (idtype.SCRU128, error) {
	return s.q.ParseTrace(ctx, text)
}

func toSQLOrders(rows []pgxdb.Order) []sqldb.Order {
	out := make([]sqldb.Order, len(rows))
	for i, o := range rows {
		out[i] = sqldb.Order(o)
	}
	return out
}

// sqlcDatabase returns the URL of a fresh database with the sortid
// migration and sqlcexample/schema.sql applied, and a database/sql handle on
// it through the pgx stdlib driver.
func sqlcDatabase(t *testing.T) (string, *sql.DB) {
	t.Helper()
	dbURL, db := migratedDatabase(t)
	schema, err := os.ReadFile("sqlcexample/schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(t.Context(), string(schema)); err != nil {
		t.Fatalf("sqlcexample/schema.sql: %v", err)
	}
	return dbURL, db
}

// pgxModes are the query modes of pgx: the first three learn the parameter
// types from the server, the last two (as behind PgBouncer in transaction
// mode) do not.
var pgxModes = []pgx.QueryExecMode{
	pgx.QueryExecModeCacheStatement, pgx.QueryExecModeCacheDescribe, pgx.QueryExecModeDescribeExec,
	pgx.QueryExecModeExec, pgx.QueryExecModeSimpleProtocol,
}

// errNoRegister is how the []idtype.HUID parameter fails without pgxtype.Register.
const errNoRegister = "unable to encode []idtype.HUID"

// TestSQLCRoundTrip runs every query of the sqlc example through the
// generated code against PostgreSQL: with pgx/v5 in every query mode, with
// and without pgxtype.Register, and with database/sql through the pgx stdlib
// driver and lib/pq. Without Register only the []idtype.HUID parameter
// fails; lib/pq needs binary_parameters=yes for a scru128_bytes parameter.
func TestSQLCRoundTrip(t *testing.T) {
	t.Parallel()
	type storeCase struct {
		name  string
		store func(t *testing.T, dbURL string, db *sql.DB) orderStore
		fails map[string]string // query name: what its error must contain
	}
	var cases []storeCase
	for _, mode := range pgxModes {
		for _, register := range []bool{true, false} {
			c := storeCase{name: fmt.Sprintf("pgx/v5/%v/Register=%v", mode, register)}
			c.store = func(t *testing.T, dbURL string, _ *sql.DB) orderStore {
				cfg, err := pgxpool.ParseConfig(dbURL)
				if err != nil {
					t.Fatal(err)
				}
				cfg.ConnConfig.DefaultQueryExecMode = mode
				if register {
					cfg.AfterConnect = func(_ context.Context, conn *pgx.Conn) error {
						pgxtype.Register(conn.TypeMap())
						return nil
					}
				}
				pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(pool.Close)
				return pgxStore{pgxdb.New(pool)}
			}
			if !register {
				c.fails = map[string]string{"OrdersByIDs": errNoRegister}
			}
			cases = append(cases, c)
		}
	}
	cases = append(cases,
		storeCase{name: "database/sql+pgx", store: func(t *testing.T, _ string, db *sql.DB) orderStore {
			return sqldb.New(db) // sqlcDatabase's, through the pgx stdlib driver
		}},
		// lib/pq hex-encodes a []byte only for a parameter of type bytea
		// itself, and sends it raw to a scru128_bytes one.
		storeCase{name: "database/sql+lib/pq", store: func(t *testing.T, dbURL string, _ *sql.DB) orderStore {
			return sqldb.New(libpqOpen(t, dbURL, nil))
		}, fails: map[string]string{"OrderByReceipt": "22021"}},
		storeCase{name: "database/sql+lib/pq+binary_parameters", store: func(t *testing.T, dbURL string, _ *sql.DB) orderStore {
			return sqldb.New(libpqOpen(t, dbURL, url.Values{"binary_parameters": {"yes"}}))
		}},
	)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dbURL, db := sqlcDatabase(t)
			checkOrderStore(t, tc.store(t, dbURL, db), tc.fails)
		})
	}
}

// checkOrderStore runs each query of the example and checks what it
// returns; a query named in fails must fail with an error containing its value.
func checkOrderStore(t *testing.T, s orderStore, fails map[string]string) {
	ctx := t.Context()
	// ok reports whether query succeeded, as it must unless named in fails.
	ok := func(query string, err error) bool {
		t.Helper()
		want, mustFail := fails[query]
		switch {
		case mustFail && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: err %v, want one containing %q", query, err, want)
		case err != nil && !mustFail:
			t.Errorf("%s: %v", query, err)
		}
		return err == nil
	}
	start := time.Now()
	near := func(what string, got time.Time) {
		t.Helper()
		if d := got.Sub(start); d < -time.Second || d > time.Minute {
			t.Errorf("%s at %v, want about %v", what, got, start)
		}
	}

	ids, err := s.NewIDs(ctx)
	if !ok("NewIDs", err) {
		t.FailNow()
	}
	near("NewIDs HUID", ids.Huid.Time())
	near("NewIDs SCRU128", ids.Scru128.Time())
	if text, err := s.TraceText(ctx, ids.Scru128); ok("TraceText", err) && text != ids.Scru128.String() {
		t.Errorf("TraceText(%v) = %q", ids.Scru128, text)
	}
	if id, err := s.ParseTrace(ctx, ids.Scru128.String()); ok("ParseTrace", err) && id != ids.Scru128 {
		t.Errorf("ParseTrace(%v) = %v", ids.Scru128, id)
	}

	customer, refund := idtype.NewHUID(), idtype.NewSCRU128()
	a, err := s.InsertOrder(ctx, sqldb.InsertOrderParams{CustomerID: customer, Note: "a"})
	if !ok("InsertOrder", err) {
		t.FailNow()
	}
	b, err := s.InsertOrder(ctx, sqldb.InsertOrderParams{
		CustomerID:  customer,
		ParentID:    idtype.NullHUID{V: a.ID, Valid: true},
		RefundTrace: idtype.NullSCRU128{V: refund, Valid: true},
		Note:        "b",
	})
	if !ok("InsertOrder", err) {
		t.FailNow()
	}
	near("order a's ID", a.ID.Time())
	near("order a's trace", a.Trace.Time())
	if a.CustomerID != customer || a.ParentID.Valid || a.RefundTrace.Valid || !a.Receipt.Valid || a.Note != "a" {
		t.Errorf("InsertOrder a returned %+v", a)
	}
	if b.ParentID != (idtype.NullHUID{V: a.ID, Valid: true}) || b.RefundTrace.V != refund || b.ID == a.ID || b.ID.Time().Before(a.ID.Time()) {
		t.Errorf("InsertOrder b returned %+v after a %+v", b, a)
	}

	if got, err := s.GetOrder(ctx, b.ID); ok("GetOrder", err) {
		row := sqldb.Order{ID: got.ID, CustomerID: got.CustomerID, ParentID: got.ParentID, Trace: got.Trace,
			RefundTrace: got.RefundTrace, Receipt: got.Receipt, Note: got.Note}
		if row != b || got.TraceText != b.Trace.String() || !got.CreatedAt.Equal(b.ID.Time()) {
			t.Errorf("GetOrder(%v) = %+v, want %+v with trace text %s, created at %v", b.ID, got, b, b.Trace, b.ID.Time())
		}
	}

	// In key order: keys of one millisecond come in no particular order.
	both := []sqldb.Order{a, b}
	if b.ID < a.ID {
		both = []sqldb.Order{b, a}
	}
	for _, w := range []struct {
		since, until time.Time
		want         []sqldb.Order
	}{
		{a.ID.Time(), b.ID.Time(), both}, // both edges' milliseconds included
		{a.ID.Time(), a.ID.Time(), inMillisecond(both, a.ID.Time())},
		{a.ID.Time().Add(-time.Hour), a.ID.Time().Add(-time.Millisecond), nil},
	} {
		got, err := s.OrdersBetween(ctx, sqldb.OrdersBetweenParams{Since: w.since, Until: w.until})
		if ok("OrdersBetween", err) && !slices.Equal(got, w.want) {
			t.Errorf("OrdersBetween(%v, %v) = %+v; want %+v", w.since, w.until, got, w.want)
		}
	}

	missing := idtype.NewHUID()
	if got, err := s.OrdersByIDs(ctx, []idtype.HUID{b.ID, missing, a.ID}); ok("OrdersByIDs", err) && !slices.Equal(got, both) {
		t.Errorf("OrdersByIDs = %+v; want %+v", got, both)
	}

	if got, err := s.OrderByReceipt(ctx, a.Receipt.V); ok("OrderByReceipt", err) && got != a {
		t.Errorf("OrderByReceipt(%v) = %+v; want %+v", a.Receipt, got, a)
	}
}

// inMillisecond returns the orders whose ID was made in the millisecond ms.
func inMillisecond(orders []sqldb.Order, ms time.Time) []sqldb.Order {
	return slices.DeleteFunc(slices.Clone(orders), func(o sqldb.Order) bool { return !o.ID.Time().Equal(ms) })
}
