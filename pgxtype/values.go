package pgxtype

import (
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/sortid/sortid/idtype"
)

// The types in this file give the idtype types the pgtype interfaces of the
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

// nullHUIDValue is a NullHUID as an Int64Valuer; a *nullHUIDValue is an Int64Scanner.
type nullHUIDValue idtype.NullHUID

// Int64Value implements pgtype.Int64Valuer: NULL when not Valid.
func (n nullHUIDValue) Int64Value() (pgtype.Int8, error) {
	if !n.Valid {
		return pgtype.Int8{}, nil
	}
	return huidValue(n.HUID).Int64Value()
}

// ScanInt64 implements pgtype.Int64Scanner: NULL gives Valid=false.
func (n *nullHUIDValue) ScanInt64(v pgtype.Int8) error {
	if !v.Valid {
		return (*idtype.NullHUID)(n).Scan(nil)
	}
	if err := (*huidValue)(&n.HUID).ScanInt64(v); err != nil {
		return err
	}
	n.Valid = true
	return nil
}

// scru128Value is a SCRU128 as a UUIDValuer; a *scru128Value is a
// UUIDScanner and a BytesScanner. It has no BytesValue: a SCRU128 bound to
// a bytea parameter is refused (encodePlanFor).
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
// Register: 16 raw bytes, or the text of the UUID or base32 form.
func (id *scru128Value) ScanBytes(v []byte) error {
	return scanBytes((*idtype.SCRU128)(id), v)
}

// nullSCRU128Value is the NullSCRU128 counterpart of scru128Value.
type nullSCRU128Value idtype.NullSCRU128

// UUIDValue implements pgtype.UUIDValuer: NULL when not Valid.
func (n nullSCRU128Value) UUIDValue() (pgtype.UUID, error) {
	return pgtype.UUID{Bytes: n.SCRU128, Valid: n.Valid}, nil
}

// ScanUUID implements pgtype.UUIDScanner: NULL gives Valid=false.
func (n *nullSCRU128Value) ScanUUID(v pgtype.UUID) error {
	*n = nullSCRU128Value{SCRU128: v.Bytes, Valid: v.Valid}
	return nil
}

// ScanBytes implements pgtype.BytesScanner as NullSCRU128.Scan does.
func (n *nullSCRU128Value) ScanBytes(v []byte) error {
	return scanBytes((*idtype.NullSCRU128)(n), v)
}

// scanBytes hands a bytea value to s.Scan, NULL as nil.
func scanBytes(s interface{ Scan(any) error }, v []byte) error {
	if v == nil {
		return s.Scan(nil)
	}
	return s.Scan(v)
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

// nullSCRU128BytesValue is the NullSCRU128Bytes counterpart of scru128BytesValue.
type nullSCRU128BytesValue idtype.NullSCRU128Bytes

// BytesValue implements pgtype.BytesValuer: nil (NULL) when not Valid.
func (n nullSCRU128BytesValue) BytesValue() ([]byte, error) {
	if !n.Valid {
		return nil, nil
	}
	return n.SCRU128[:], nil
}

// ScanBytes implements pgtype.BytesScanner: NULL gives Valid=false, other
// lengths than 16 are errors.
func (n *nullSCRU128BytesValue) ScanBytes(v []byte) error {
	if v == nil {
		return (*idtype.NullSCRU128Bytes)(n).Scan(nil)
	}
	if err := (*scru128BytesValue)(&n.SCRU128).ScanBytes(v); err != nil {
		return err
	}
	n.Valid = true
	return nil
}
