package pgxtype_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sortid/sortid/idtype"
	"github.com/sortid/sortid/pgxtype"
)

// The tests of this file check, against PostgreSQL, what the package
// documentation says happens without Register: pgx then sees the idtype
// types only through their sql.Scanner and driver.Valuer methods.

var (
	allModes = []pgx.QueryExecMode{
		pgx.QueryExecModeCacheStatement, pgx.QueryExecModeCacheDescribe, pgx.QueryExecModeDescribeExec,
		pgx.QueryExecModeExec, pgx.QueryExecModeSimpleProtocol,
	}
	// describeModes are the modes in which pgx learns the parameters' types
	// from the server.
	describeModes = map[pgx.QueryExecMode]bool{
		pgx.QueryExecModeCacheStatement: true, pgx.QueryExecModeCacheDescribe: true, pgx.QueryExecModeDescribeExec: true,
	}
)

// recorder is a sql.Scanner that keeps the value pgx hands it.
type recorder struct{ src any }

func (r *recorder) Scan(src any) error { r.src = src; return nil }

// TestWithoutRegisterScanners: pgx hands a sql.Scanner an int8 as int64, a
// bytea as []byte and a uuid as its text, in every mode; the idtype types
// scan from them.
func TestWithoutRegisterScanners(t *testing.T) {
	conn := testConn(t)
	const query = `SELECT 258037077::bigint, '00d2fb00-3ddb-7f58-cbbe-5cf2f04425b2'::uuid,
		'\x00d2fb003ddb7f58cbbe5cf2f04425b2'::bytea`
	for _, mode := range allModes {
		var i8, uuid, bytea recorder
		if err := conn.QueryRow(t.Context(), query, mode).Scan(&i8, &uuid, &bytea); err != nil {
			t.Fatalf("%v: %v", mode, err)
		}
		if v, ok := i8.src.(int64); !ok || v != 258037077 {
			t.Errorf("%v: int8 scanned as %T %v, want int64", mode, i8.src, i8.src)
		}
		if v, ok := uuid.src.(string); !ok || v != "00d2fb00-3ddb-7f58-cbbe-5cf2f04425b2" {
			t.Errorf("%v: uuid scanned as %T %v, want its text", mode, uuid.src, uuid.src)
		}
		if v, ok := bytea.src.([]byte); !ok || len(v) != 16 {
			t.Errorf("%v: bytea scanned as %T %v, want 16 bytes", mode, bytea.src, bytea.src)
		}
		var h idtype.HUID
		var s idtype.SCRU128
		var b idtype.SCRU128Bytes
		if err := conn.QueryRow(t.Context(), query, mode).Scan(&h, &s, &b); err != nil {
			t.Fatalf("%v: scan into idtype: %v", mode, err)
		}
		if h != someHUID || s != someSCRU128 || b != idtype.SCRU128Bytes(someSCRU128) {
			t.Errorf("%v: scanned %v %v %v", mode, h, s, b)
		}
	}
}

// TestWithoutRegisterSlices: slices of the idtype types as parameters fail
// in QueryExecModeExec and QueryExecModeSimpleProtocol, whatever the
// column, huid[] fails as a parameter and huid[] and scru128_bytes[] as
// results in every mode; with Register all of them work.
func TestWithoutRegisterSlices(t *testing.T) {
	params := []struct {
		sql string
		arg any
	}{
		{"SELECT $1::bigint[]::text", []idtype.HUID{someHUID, 0}},
		{"SELECT $1::bigint[]::text", []idtype.NullHUID{{}, {V: someHUID, Valid: true}}},
		{"SELECT $1::uuid[]::text", []idtype.SCRU128{someSCRU128}},
		{"SELECT $1::huid[]::text", []idtype.HUID{someHUID, 0}},
	}
	for _, register := range []bool{false, true} {
		conn := testConn(t)
		if register {
			pgxtype.Register(conn.TypeMap())
		}
		for _, mode := range allModes {
			for _, p := range params {
				var out string
				err := conn.QueryRow(t.Context(), p.sql, mode, p.arg).Scan(&out)
				fails := !register && (!describeModes[mode] || strings.Contains(p.sql, "huid"))
				switch {
				case fails && (err == nil || !strings.Contains(err.Error(), "into text format for unknown type") ||
					!strings.Contains(err.Error(), "cannot find encode plan")):
					t.Errorf("%v, %s with %T: %q, %v; want cannot find encode plan", mode, p.sql, p.arg, out, err)
				case !fails && err != nil:
					t.Errorf("Register %v, %v, %s with %T: %v", register, mode, p.sql, p.arg, err)
				}
			}
			for _, r := range []struct {
				sql string
				dst any
			}{
				{"SELECT ARRAY[258037077, 0]::huid[]", &[]idtype.HUID{}},
				{`SELECT ARRAY['\x00d2fb003ddb7f58cbbe5cf2f04425b2']::scru128_bytes[]`, &[]idtype.SCRU128Bytes{}},
			} {
				err := conn.QueryRow(t.Context(), r.sql, mode).Scan(r.dst)
				if register != (err == nil) ||
					!register && !strings.Contains(err.Error(), "cannot scan unknown type") {
					t.Errorf("Register %v, %v: %s into %T: %v", register, mode, r.sql, r.dst, err)
				}
			}
		}
	}
}

// TestWithoutRegisterSCRU128IntoBytea: without Register a SCRU128 bound to
// a plain bytea parameter stores its 36 characters of UUID text in every
// mode, and CopyFrom refuses it with pgx's "cannot find encode plan"; with
// Register the modes that learn the parameter's type refuse it with
// ErrColumnForm.
func TestWithoutRegisterSCRU128IntoBytea(t *testing.T) {
	for _, register := range []bool{false, true} {
		conn := testConn(t)
		if register {
			pgxtype.Register(conn.TypeMap())
		}
		if _, err := conn.Exec(t.Context(), "CREATE TEMP TABLE raw (b bytea)"); err != nil {
			t.Fatal(err)
		}
		for _, mode := range allModes {
			var n int
			err := conn.QueryRow(t.Context(), "INSERT INTO raw VALUES ($1) RETURNING octet_length(b)", mode, someSCRU128).Scan(&n)
			if register && describeModes[mode] {
				if !errors.Is(err, pgxtype.ErrColumnForm) {
					t.Errorf("Register, %v: %d bytes, %v; want ErrColumnForm", mode, n, err)
				}
			} else if err != nil || n != 36 {
				t.Errorf("Register %v, %v: %d bytes, %v; want 36", register, mode, n, err)
			}
		}
		_, err := conn.CopyFrom(t.Context(), pgx.Identifier{"raw"}, []string{"b"}, pgx.CopyFromRows([][]any{{someSCRU128}}))
		want := "pgxtype: SCRU128 form does not match the column type"
		if !register {
			want = `unable to encode "00d2fb00-3ddb-7f58-cbbe-5cf2f04425b2" into binary format for bytea (OID 17): cannot find encode plan`
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Register %v: CopyFrom: %v; want %q", register, err, want)
		}
	}
}

// TestWithoutRegisterHUIDIntoFloat8: without Register a HUID bound to a
// float8 parameter is rounded in every mode and in CopyFrom.
func TestWithoutRegisterHUIDIntoFloat8(t *testing.T) {
	conn := testConn(t)
	if _, err := conn.Exec(t.Context(), "CREATE TEMP TABLE f (x float8)"); err != nil {
		t.Fatal(err)
	}
	big := idtype.MustParseHUID("60661340544791426")
	const rounded = "6.0661340544791424e+16"
	for _, mode := range allModes {
		var got string
		if err := conn.QueryRow(t.Context(), "INSERT INTO f VALUES ($1) RETURNING x::text", mode, big).Scan(&got); err != nil || got != rounded {
			t.Errorf("%v: stored %q, %v; want %s", mode, got, err, rounded)
		}
	}
	if _, err := conn.Exec(t.Context(), "TRUNCATE f"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.CopyFrom(t.Context(), pgx.Identifier{"f"}, []string{"x"}, pgx.CopyFromRows([][]any{{big}})); err != nil {
		t.Fatalf("CopyFrom: %v", err)
	}
	var got string
	if err := conn.QueryRow(t.Context(), "SELECT x::text FROM f").Scan(&got); err != nil || got != rounded {
		t.Errorf("CopyFrom stored %q, %v; want %s", got, err, rounded)
	}
}
