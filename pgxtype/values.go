package pgxtype

import (
	"fmt"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/sortid/sortid/idtype"
)

// The types in this file give the idtype types the pgtype interfaces of the
// built-in codecs (Int64Valuer/Int64Scanner for int8, UUIDValuer/UUIDScanner
// for uuid, BytesValuer/BytesScanner for bytea). The plans in plans.go
// convert an idtype value or pointer to one of them and hand it to the
// built-in codec's plan, so the codec does the wire format and these types
// only check and convert.

// huidValue is a HUID as an Int64Valuer; a *huidValue is an Int64Scanner.
type huidValue idtype.HUID

// Int64Value implements pgtype.Int64Valuer; a negative HUID is an error.
func (h huidValue) Int64Value() (pgtype.Int8, error) {
	if err := checkHUID(idtype.HUID(h)); err != nil {
		return pgtype.Int8{}, err
	}
	return pgtype.Int8{Int64: int64(h), Valid: true}, nil
}

// ScanInt64 implements pgtype.Int64Scanner; NULL and negative values are errors.
func (h *huidValue) ScanInt64(v pgtype.Int8) error {
	if !v.Valid {
		return fmt.Errorf("%w: SQL NULL scanned into HUID (use NullHUID)", idtype.ErrNull)
	}
	return scanHUID((*idtype.HUID)(h), v.Int64)
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
		*n = nullHUIDValue{}
		return nil
	}
	if err := scanHUID(&n.HUID, v.Int64); err != nil {
		return err
	}
	n.Valid = true
	return nil
}

func checkHUID(h idtype.HUID) error {
	if !h.Valid() {
		return fmt.Errorf("%w: %d is negative; HUIDs lie in [0, 2^63-1]", idtype.ErrInvalidHUID, int64(h))
	}
	return nil
}

func scanHUID(dst *idtype.HUID, v int64) error {
	if v < 0 {
		return fmt.Errorf("%w: database value %d is negative; HUIDs lie in [0, 2^63-1]", idtype.ErrInvalidHUID, v)
	}
	*dst = idtype.HUID(v)
	return nil
}

// scru128Value is a SCRU128 as a UUIDValuer and BytesValuer; a *scru128Value
// is a UUIDScanner and a BytesScanner that demands exactly 16 bytes.
type scru128Value idtype.SCRU128

// UUIDValue implements pgtype.UUIDValuer.
func (id scru128Value) UUIDValue() (pgtype.UUID, error) {
	return pgtype.UUID{Bytes: id, Valid: true}, nil
}

// BytesValue implements pgtype.BytesValuer with the 16 raw bytes, so that a
// SCRU128 bound to a bytea parameter is stored as 16 bytes, not 36 of text.
func (id scru128Value) BytesValue() ([]byte, error) { return id[:], nil }

// ScanUUID implements pgtype.UUIDScanner; NULL is an error.
func (id *scru128Value) ScanUUID(v pgtype.UUID) error {
	if !v.Valid {
		return fmt.Errorf("%w: SQL NULL scanned into SCRU128 (use NullSCRU128)", idtype.ErrNull)
	}
	*id = v.Bytes
	return nil
}

// ScanBytes implements pgtype.BytesScanner; NULL and other lengths than 16 are errors.
func (id *scru128Value) ScanBytes(v []byte) error {
	if v == nil {
		return fmt.Errorf("%w: SQL NULL scanned into SCRU128 (use NullSCRU128)", idtype.ErrNull)
	}
	return scan16((*[16]byte)(id), v, "SCRU128")
}

// nullSCRU128Value is the NullSCRU128 counterpart of scru128Value.
type nullSCRU128Value idtype.NullSCRU128

// UUIDValue implements pgtype.UUIDValuer: NULL when not Valid.
func (n nullSCRU128Value) UUIDValue() (pgtype.UUID, error) {
	return pgtype.UUID{Bytes: n.SCRU128, Valid: n.Valid}, nil
}

// BytesValue implements pgtype.BytesValuer: nil (NULL) when not Valid.
func (n nullSCRU128Value) BytesValue() ([]byte, error) {
	if !n.Valid {
		return nil, nil
	}
	return n.SCRU128[:], nil
}

// ScanUUID implements pgtype.UUIDScanner: NULL gives Valid=false.
func (n *nullSCRU128Value) ScanUUID(v pgtype.UUID) error {
	*n = nullSCRU128Value{SCRU128: v.Bytes, Valid: v.Valid}
	return nil
}

// ScanBytes implements pgtype.BytesScanner: NULL gives Valid=false, other
// lengths than 16 are errors.
func (n *nullSCRU128Value) ScanBytes(v []byte) error {
	if v == nil {
		*n = nullSCRU128Value{}
		return nil
	}
	if err := scan16((*[16]byte)(&n.SCRU128), v, "SCRU128"); err != nil {
		return err
	}
	n.Valid = true
	return nil
}

// scru128BytesValue is a SCRU128Bytes as a BytesValuer; a *scru128BytesValue
// is a BytesScanner that demands exactly 16 bytes.
type scru128BytesValue idtype.SCRU128Bytes

// BytesValue implements pgtype.BytesValuer with the 16 raw bytes.
func (b scru128BytesValue) BytesValue() ([]byte, error) { return b[:], nil }

// ScanBytes implements pgtype.BytesScanner; NULL and other lengths than 16 are errors.
func (b *scru128BytesValue) ScanBytes(v []byte) error {
	if v == nil {
		return fmt.Errorf("%w: SQL NULL scanned into SCRU128Bytes (use NullSCRU128Bytes)", idtype.ErrNull)
	}
	return scan16((*[16]byte)(b), v, "SCRU128Bytes")
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
		*n = nullSCRU128BytesValue{}
		return nil
	}
	if err := scan16((*[16]byte)(&n.SCRU128), v, "SCRU128Bytes"); err != nil {
		return err
	}
	n.Valid = true
	return nil
}

// scan16 copies v into dst when it holds exactly 16 bytes.
func scan16(dst *[16]byte, v []byte, kind string) error {
	if len(v) != len(dst) {
		return fmt.Errorf("%w: database value has %d bytes; a bytea %s has exactly 16", idtype.ErrInvalidSCRU128, len(v), kind)
	}
	copy(dst[:], v)
	return nil
}
