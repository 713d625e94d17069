package pgxtype

import (
	"fmt"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/sortid/sortid/idtype"
)

// valueTypes is the one table this package is driven by: each value type
// of idtype, the built-in PostgreSQL type that holds it, the pgtype
// wrappers through which that type's codec encodes and scans it (below),
// and the column types that cannot hold it. Its Null, idtype.Null[T],
// follows from the row: it is NULL or the value. Register, the plans and the
// default PostgreSQL types all read this table, and nothing else names the
// idtype types.
var valueTypes = []*valueType{
	newValueType("HUID", pgtype.Int8OID,
		func(v idtype.HUID) any { return huidValue(v) },
		func(p *idtype.HUID) any { return (*huidValue)(p) },
		inexact(pgtype.Float4OID, "float4", 24), inexact(pgtype.Float8OID, "float8", 53)),
	newValueType("SCRU128", pgtype.UUIDOID,
		func(v idtype.SCRU128) any { return scru128Value(v) },
		func(p *idtype.SCRU128) any { return (*scru128Value)(p) },
		otherForm(pgtype.ByteaOID, "bytea", "SCRU128Bytes")),
	newValueType("SCRU128Bytes", pgtype.ByteaOID,
		func(v idtype.SCRU128Bytes) any { return scru128BytesValue(v) },
		func(p *idtype.SCRU128Bytes) any { return (*scru128BytesValue)(p) },
		otherForm(pgtype.UUIDOID, "uuid", "SCRU128")),
}

// A refusal is a column type that cannot hold a value type: the value (or
// its valid Null) bound to a parameter of that type fails with err, which
// names the Go type and then says text.
type refusal struct {
	oid  uint32
	err  error
	text string
}

// otherForm refuses a SCRU128 form for column, the column type of the
// other form, use (see ErrColumnForm).
func otherForm(oid uint32, column, use string) refusal {
	return refusal{oid, ErrColumnForm, fmt.Sprintf("cannot be stored in a %s column; use idtype.%s or idtype.Null%s", column, use, use)}
}

// inexact refuses a HUID for the floating-point type column, whose
// significand holds integers exactly only up to 2^bits (see
// ErrInexactColumn).
func inexact(oid uint32, column string, bits int) refusal {
	return refusal{oid, ErrInexactColumn, fmt.Sprintf("cannot be encoded as %s: it would lose precision above 2^%d; use a bigint (int8) or numeric column", column, bits)}
}

// The types below give the idtype types the pgtype interfaces of the
// built-in codecs (Int64Valuer/Int64Scanner for int8, UUIDValuer/UUIDScanner
// for uuid, BytesValuer/BytesScanner for bytea). The plans in plans.go
// convert an idtype value or pointer to one of them and hand it to the
// built-in codec's plan, so the codec does the wire format. These types
// check nothing themselves: NULL goes to the idtype type's own Scan, a
// bigint to idtype.HUIDFromInt64 and 16 bytes to SCRU128.UnmarshalBinary,
// the conversions database/sql and the binary fast paths use too.

// huidValue is a HUID as an Int64Valuer; a *huidValue is an Int64Scanner.
type huidValue idtype.HUID

// Int64Value implements pgtype.Int64Valuer; a negative HUID is an error.
func (h huidValue) Int64Value() (pgtype.Int8, error) {
	v, err := idtype.HUIDFromInt64(int64(h))
	return pgtype.Int8{Int64: int64(v), Valid: err == nil}, err
}

// ScanInt64 implements pgtype.Int64Scanner; NULL and negative values are errors.
func (h *huidValue) ScanInt64(v pgtype.Int8) error {
	if !v.Valid {
		return (*idtype.HUID)(h).Scan(nil)
	}
	x, err := idtype.HUIDFromInt64(v.Int64)
	if err != nil {
		return err
	}
	*h = huidValue(x)
	return nil
}

// scru128Value is a SCRU128 as a UUIDValuer; a *scru128Value is a
// UUIDScanner and a BytesScanner. It has no BytesValue: a SCRU128 bound to
// a bytea parameter is refused (otherForm).
type scru128Value idtype.SCRU128

// UUIDValue implements pgtype.UUIDValuer.
func (id scru128Value) UUIDValue() (pgtype.UUID, error) {
	return pgtype.UUID{Bytes: id, Valid: true}, nil
}

// ScanUUID implements pgtype.UUIDScanner; NULL is an error.
func (id *scru128Value) ScanUUID(v pgtype.UUID) error {
	if !v.Valid {
		return (*idtype.SCRU128)(id).Scan(nil)
	}
	*id = v.Bytes
	return nil
}

// ScanBytes implements pgtype.BytesScanner as SCRU128.Scan does without
// Register: 16 raw bytes, or the text of the UUID or base32 form; NULL is
// an error.
func (id *scru128Value) ScanBytes(v []byte) error {
	if v == nil {
		return (*idtype.SCRU128)(id).Scan(nil)
	}
	return (*idtype.SCRU128)(id).Scan(v)
}

// scru128BytesValue is a SCRU128Bytes as a BytesValuer; a *scru128BytesValue
// is a BytesScanner that demands exactly 16 bytes.
type scru128BytesValue idtype.SCRU128Bytes

// BytesValue implements pgtype.BytesValuer with the 16 raw bytes.
func (b scru128BytesValue) BytesValue() ([]byte, error) { return b[:], nil }

// ScanBytes implements pgtype.BytesScanner; NULL and other lengths than 16 are errors.
func (b *scru128BytesValue) ScanBytes(v []byte) error {
	if v == nil {
		return (*idtype.SCRU128Bytes)(b).Scan(nil)
	}
	return (*idtype.SCRU128)(b).UnmarshalBinary(v)
}
