package integration_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sortid/sortid/idtype"
	"github.com/sortid/sortid/integration/internal/pgtest"
)

// badScan is a query whose single value must not scan into target.
type badScan struct {
	name   string
	query  string
	target func() any
	want   error
}

// badScans are the values from the database that no ID type may accept.
func badScans() []badScan {
	return []badScan{
		{"negative bigint into HUID", "SELECT (-1)::bigint", func() any { return new(idtype.HUID) }, idtype.ErrInvalidHUID},
		{"min bigint into NullHUID", "SELECT (-9223372036854775808)::bigint", func() any { return new(idtype.NullHUID) }, idtype.ErrInvalidHUID},
		{"15-byte bytea into SCRU128Bytes", `SELECT '\x000102030405060708090a0b0c0d0e'::bytea`, func() any { return new(idtype.SCRU128Bytes) }, idtype.ErrInvalidSCRU128},
		{"15-byte bytea into NullSCRU128Bytes", `SELECT '\x000102030405060708090a0b0c0d0e'::bytea`, func() any { return new(idtype.NullSCRU128Bytes) }, idtype.ErrInvalidSCRU128},
		{"15-byte bytea into SCRU128", `SELECT '\x000102030405060708090a0b0c0d0e'::bytea`, func() any { return new(idtype.SCRU128) }, idtype.ErrInvalidSCRU128},
		{"NULL bigint into HUID", "SELECT NULL::bigint", func() any { return new(idtype.HUID) }, idtype.ErrNull},
		{"NULL uuid into SCRU128", "SELECT NULL::uuid", func() any { return new(idtype.SCRU128) }, idtype.ErrNull},
		{"NULL bytea into SCRU128Bytes", "SELECT NULL::bytea", func() any { return new(idtype.SCRU128Bytes) }, idtype.ErrNull},
	}
}

// pgxBadScans adds the array cases, which only pgx scans without help.
func pgxBadScans() []badScan {
	return append(badScans(),
		badScan{"negative element into []HUID", "SELECT ARRAY[1, -1]::bigint[]", func() any { return new([]idtype.HUID) }, idtype.ErrInvalidHUID},
		badScan{"NULL element into []HUID", "SELECT ARRAY[1, NULL]::bigint[]", func() any { return new([]idtype.HUID) }, idtype.ErrNull},
		badScan{"NULL element into []SCRU128", "SELECT ARRAY[NULL]::uuid[]", func() any { return new([]idtype.SCRU128) }, idtype.ErrNull},
		badScan{"15-byte element into []SCRU128Bytes", `SELECT ARRAY['\x000102030405060708090a0b0c0d0e']::bytea[]`, func() any { return new([]idtype.SCRU128Bytes) }, idtype.ErrInvalidSCRU128},
	)
}

// TestPgxRejectsBadData scans bad values through pgx, with pgxtype in every
// query mode (binary and text results) and without it (the sql.Scanner
// fallback): each must be an error wrapping the idtype sentinel.
func TestPgxRejectsBadData(t *testing.T) {
	t.Parallel()
	conns := map[string]func(t *testing.T) *pgx.Conn{
		"unregistered": func(t *testing.T) *pgx.Conn { return pgtest.Conn(t) },
	}
	for _, mode := range []pgx.QueryExecMode{
		pgx.QueryExecModeCacheStatement, pgx.QueryExecModeCacheDescribe, pgx.QueryExecModeDescribeExec,
		pgx.QueryExecModeExec, pgx.QueryExecModeSimpleProtocol,
	} {
		conns[mode.String()] = func(t *testing.T) *pgx.Conn { return registeredConn(t, mode) }
	}
	for name, connect := range conns {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			conn := connect(t)
			for _, c := range pgxBadScans() {
				target := c.target()
				err := conn.QueryRow(t.Context(), c.query).Scan(target)
				if !errors.Is(err, c.want) {
					t.Errorf("%s: Scan into %T = %v, want an error wrapping %v", c.name, target, err, c.want)
				}
			}
		})
	}
}

// TestPgxRejectsNegativeHUID checks that a negative HUID is never sent, in
// any query mode, alone, behind a pointer, in a NullHUID or in a slice.
func TestPgxRejectsNegativeHUID(t *testing.T) {
	t.Parallel()
	neg := idtype.HUID(-1)
	values := []any{neg, &neg, idtype.NullHUID{V: neg, Valid: true}, []idtype.HUID{1, neg}}
	for _, path := range pgxPaths() {
		t.Run(path.name, func(t *testing.T) {
			t.Parallel()
			db := path.db(t)
			table := tableName("neg")
			if _, err := db.Exec(t.Context(), "CREATE TABLE "+table+" (v bigint, a bigint[])"); err != nil {
				t.Fatalf("create table: %v", err)
			}
			for _, v := range values {
				var err error
				column := "v"
				if _, ok := v.([]idtype.HUID); ok {
					column = "a"
				}
				if path.copy {
					_, err = db.CopyFrom(t.Context(), pgx.Identifier{table}, []string{column}, pgx.CopyFromRows([][]any{{v}}))
				} else {
					_, err = db.Exec(t.Context(), "INSERT INTO "+table+" ("+column+") VALUES ($1)", v)
				}
				if !isInvalidHUID(err, path.copy) {
					t.Errorf("insert %#v: %v, want an error wrapping ErrInvalidHUID", v, err)
				}
			}
			var n int
			if err := db.QueryRow(t.Context(), "SELECT count(*) FROM "+table).Scan(&n); err != nil || n != 0 {
				t.Errorf("table holds %d rows (%v), want 0", n, err)
			}
		})
	}
}

// isInvalidHUID reports whether err wraps idtype.ErrInvalidHUID. CopyFrom
// cannot wrap it: pgx sends the encoding error's text to the server in
// CopyFail and returns the server's answer (SQLSTATE 57014) quoting it.
func isInvalidHUID(err error, viaCopy bool) bool {
	if viaCopy {
		return err != nil && strings.Contains(err.Error(), idtype.ErrInvalidHUID.Error())
	}
	return errors.Is(err, idtype.ErrInvalidHUID)
}
