package integration_test

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jmoiron/sqlx"

	"github.com/sortid/sortid/idtype"
	"github.com/sortid/sortid/integration/internal/pgtest"
	"github.com/sortid/sortid/pgxtype"
)

// formColumns are the column types of the storage-form matrix.
var formColumns = []string{"uuid", "bytea", "scru128_bytes"}

// formValue is a SCRU128 in one Go form, or NULL of a Null form.
type formValue struct {
	name     string
	value    any
	id       idtype.SCRU128
	null     bool
	uuidForm bool // SCRU128 or NullSCRU128
}

// formValues returns each Go form of fresh IDs, and NULL of each Null form.
func formValues() []formValue {
	a, b, c, d := idtype.NewSCRU128(), idtype.NewSCRU128(), idtype.NewSCRU128(), idtype.NewSCRU128()
	return []formValue{
		{"SCRU128", a, a, false, true},
		{"NullSCRU128", idtype.NullSCRU128{V: b, Valid: true}, b, false, true},
		{"SCRU128Bytes", idtype.SCRU128Bytes(c), c, false, false},
		{"NullSCRU128Bytes", idtype.NullSCRU128Bytes{V: idtype.SCRU128Bytes(d), Valid: true}, d, false, false},
		{"NullSCRU128 NULL", idtype.NullSCRU128{}, idtype.SCRU128{}, true, true},
		{"NullSCRU128Bytes NULL", idtype.NullSCRU128Bytes{}, idtype.SCRU128{}, true, false},
	}
}

// formWriter writes (k, v) into a table; knows says whether it learns the
// parameter's type from the server with pgxtype registered and the domains
// loaded; textUUID whether it sends a SCRU128Bytes as text (\x…), which a
// uuid column cannot parse, rather than as 16 binary bytes.
type formWriter struct {
	name            string
	knows, textUUID bool
	insert          func(ctx context.Context, table string, k int, v any) error
}

// domainConn is registeredConn with pgxtype.LoadDomains.
func domainConn(t *testing.T, mode pgx.QueryExecMode) *pgx.Conn {
	t.Helper()
	conn := registeredConn(t, mode)
	if _, err := pgxtype.LoadDomains(t.Context(), conn); err != nil {
		t.Fatalf("LoadDomains: %v", err)
	}
	return conn
}

// domainPool is a pool whose AfterConnect calls pgxtype.LoadDomains.
func domainPool(t *testing.T) *pgxpool.Pool {
	t.Helper()
	return poolWith(t, func(ctx context.Context, conn *pgx.Conn) error {
		_, err := pgxtype.LoadDomains(ctx, conn)
		return err
	})
}

const formInsert = "INSERT INTO %s (k, v) VALUES ($1, $2)"

func formWriters(t *testing.T) []formWriter {
	var ws []formWriter
	for _, mode := range []pgx.QueryExecMode{
		pgx.QueryExecModeCacheStatement, pgx.QueryExecModeCacheDescribe, pgx.QueryExecModeDescribeExec,
		pgx.QueryExecModeExec, pgx.QueryExecModeSimpleProtocol,
	} {
		conn := domainConn(t, mode)
		knows := mode != pgx.QueryExecModeExec && mode != pgx.QueryExecModeSimpleProtocol
		ws = append(ws, formWriter{mode.String(), knows, true, func(ctx context.Context, table string, k int, v any) error {
			_, err := conn.Exec(ctx, fmt.Sprintf(formInsert, table), k, v)
			return err
		}})
	}
	// lib/pq sends a []byte as bytea text only to a parameter it knows is
	// bytea; to a domain or a uuid it sends the raw bytes as text, so it
	// needs binary_parameters=yes for scru128_bytes columns (see README).
	pq := libpqDBWith(t, url.Values{"binary_parameters": {"yes"}})
	pool, copyConn, std := domainPool(t), domainConn(t, pgx.QueryExecModeCacheStatement), pgtest.StdDB(t)
	sqlxDB := sqlx.NewDb(pq, "postgres")
	sqlInsert := func(db *sql.DB) func(ctx context.Context, table string, k int, v any) error {
		return func(ctx context.Context, table string, k int, v any) error {
			_, err := db.ExecContext(ctx, fmt.Sprintf(formInsert, table), k, v)
			return err
		}
	}
	return append(ws,
		formWriter{"pgxpool", true, true, func(ctx context.Context, table string, k int, v any) error {
			_, err := pool.Exec(ctx, fmt.Sprintf(formInsert, table), k, v)
			return err
		}},
		formWriter{"CopyFrom", true, true, func(ctx context.Context, table string, k int, v any) error {
			_, err := copyConn.CopyFrom(ctx, pgx.Identifier{table}, []string{"k", "v"}, pgx.CopyFromRows([][]any{{k, v}}))
			return err
		}},
		formWriter{"pgx-stdlib", false, false, sqlInsert(std)},
		formWriter{"lib-pq binary_parameters", false, false, sqlInsert(pq)},
		formWriter{"sqlx lib-pq binary_parameters", false, false, func(ctx context.Context, table string, k int, v any) error {
			_, err := sqlxDB.NamedExecContext(ctx, "INSERT INTO "+table+" (k, v) VALUES (:k, :v)", map[string]any{"k": k, "v": v})
			return err
		}},
	)
}

// formOutcome is what a write must do: fail as err says ("form" for
// pgxtype.ErrColumnForm, else a SQLSTATE), or store text (v::text).
type formOutcome struct {
	err  string
	text string
}

// expectWrite is the storage-form rule: a uuid column holds the UUID and a
// bytea column 16 bytes, from every writer that can know; a SCRU128 form
// bound to the other column form fails in every mode that knows the column's
// type; where none can (Exec, SimpleProtocol, database/sql) a uuid-form
// value is sent as UUID text, which plain bytea stores as those 36 bytes and
// scru128_bytes refuses.
func expectWrite(w formWriter, v formValue, column string) formOutcome {
	switch {
	case v.null:
		return formOutcome{text: "NULL"}
	case column == "uuid" && v.uuidForm:
		return formOutcome{text: v.id.UUIDString()}
	case column == "uuid" && w.knows:
		return formOutcome{err: "form"}
	case column == "uuid" && w.textUUID:
		return formOutcome{err: "22P02"} // invalid input syntax for type uuid
	case column == "uuid":
		return formOutcome{text: v.id.UUIDString()} // 16 binary bytes: uuid_recv takes them
	case !v.uuidForm:
		return formOutcome{text: byteaText(v.id)}
	case w.knows:
		return formOutcome{err: "form"}
	case column == "scru128_bytes":
		return formOutcome{err: "23514"} // check_violation of the domain
	}
	return formOutcome{text: `\x` + hex.EncodeToString([]byte(v.id.UUIDString()))}
}

// formReader reads v and its text from row k.
type formReader struct {
	name string
	read func(ctx context.Context, query string, k int, dst any, text *string) error
}

func formReaders(t *testing.T) []formReader {
	var rs []formReader
	pgxRead := func(db pgxDB) func(ctx context.Context, query string, k int, dst any, text *string) error {
		return func(ctx context.Context, query string, k int, dst any, text *string) error {
			return db.QueryRow(ctx, query, k).Scan(dst, text)
		}
	}
	sqlRead := func(db *sql.DB) func(ctx context.Context, query string, k int, dst any, text *string) error {
		return func(ctx context.Context, query string, k int, dst any, text *string) error {
			return db.QueryRowContext(ctx, query, k).Scan(dst, text)
		}
	}
	for _, mode := range []pgx.QueryExecMode{
		pgx.QueryExecModeCacheStatement, pgx.QueryExecModeCacheDescribe, pgx.QueryExecModeDescribeExec,
		pgx.QueryExecModeExec, pgx.QueryExecModeSimpleProtocol,
	} {
		rs = append(rs, formReader{mode.String(), pgxRead(domainConn(t, mode))})
	}
	return append(rs,
		formReader{"pgx unregistered", pgxRead(pgtest.Conn(t))},
		formReader{"pgxpool", pgxRead(domainPool(t))},
		formReader{"pgx-stdlib", sqlRead(pgtest.StdDB(t))},
		formReader{"lib-pq", sqlRead(libpqDB(t))},
	)
}

// isOutcomeErr reports whether err is the failure want names.
func isOutcomeErr(err error, want string) bool {
	if want == "form" {
		// CopyFrom cannot wrap it: pgx sends the encoding error's text in CopyFail.
		return errors.Is(err, pgxtype.ErrColumnForm) || err != nil && strings.Contains(err.Error(), pgxtype.ErrColumnForm.Error())
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code == want
	}
	return err != nil && strings.Contains(err.Error(), want) // lib/pq's *pq.Error prints its code
}

// TestStorageForm writes every SCRU128 form into uuid, bytea and
// scru128_bytes columns through every pgx query mode, pgxpool, CopyFrom, pgx
// stdlib, lib/pq and sqlx, checks each outcome against expectWrite, and
// reads every stored row back through every pgx mode (with and without
// Register), pgxpool, pgx stdlib and lib/pq: the stored text (and so the
// octet_length) and the Go value must match, whoever wrote it.
func TestStorageForm(t *testing.T) {
	t.Parallel()
	writers, readers := formWriters(t), formReaders(t)
	for _, column := range formColumns {
		t.Run(column, func(t *testing.T) {
			table := tableName("form")
			if _, err := pgtest.Conn(t).Exec(t.Context(), fmt.Sprintf("CREATE TABLE %s (k int PRIMARY KEY, v %s)", table, column)); err != nil {
				t.Fatalf("create table: %v", err)
			}
			k := 0
			for _, w := range writers {
				for _, v := range formValues() {
					k++
					want := expectWrite(w, v, column)
					err := w.insert(t.Context(), table, k, v.value)
					if want.err != "" {
						if !isOutcomeErr(err, want.err) {
							t.Errorf("%s: write %s: %v, want failure %s", w.name, v.name, err, want.err)
						}
						continue
					}
					if err != nil {
						t.Errorf("%s: write %s: %v, want %s stored", w.name, v.name, err, want.text)
						continue
					}
					checkFormRow(t, readers, table, column, k, v, want.text, w.name)
				}
			}
		})
	}
}

// checkFormRow reads row k through every reader: into the column's form
// (SCRU128 or NullSCRU128 for uuid, the written type for bytea), comparing
// the Go value and v::text; a 36-byte bytea must also fail to scan into
// SCRU128Bytes with an error naming its length.
func checkFormRow(t *testing.T, readers []formReader, table, column string, k int, v formValue, wantText, writer string) {
	t.Helper()
	want := v.value
	if column == "uuid" {
		want = idtype.NullSCRU128{V: v.id, Valid: !v.null}
		if _, isNull := v.value.(idtype.NullSCRU128Bytes); !isNull {
			if _, isNull = v.value.(idtype.NullSCRU128); !isNull {
				want = v.id
			}
		}
	}
	query := fmt.Sprintf("SELECT v, coalesce(v::text, 'NULL') FROM %s WHERE k = $1", table)
	for _, r := range readers {
		dst := reflect.New(reflect.TypeOf(want))
		var text string
		if err := r.read(t.Context(), query, k, dst.Interface(), &text); err != nil {
			t.Errorf("%s wrote %s, %s reads: %v", writer, v.name, r.name, err)
			continue
		}
		if got := dst.Elem().Interface(); got != want || text != wantText {
			t.Errorf("%s wrote %s, %s reads %v, %s; want %v, %s", writer, v.name, r.name, got, text, want, wantText)
		}
		if len(wantText) == 2+2*36 {
			var b idtype.SCRU128Bytes
			err := r.read(t.Context(), query, k, &b, &text)
			if !errors.Is(err, idtype.ErrInvalidSCRU128) || !strings.Contains(err.Error(), "36 bytes") {
				t.Errorf("%s wrote %s, %s reads 36 bytes into SCRU128Bytes: %v; want ErrInvalidSCRU128 naming 36 bytes", writer, v.name, r.name, err)
			}
		}
	}
}
