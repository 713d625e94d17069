package pgxtype

import (
	"fmt"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/sortid/sortid/idtype"
)

// encodePlanFor returns the plan for value bound to a parameter whose
// built-in type is base (int8, uuid, bytea, float4 or float8), or nil for
// the general path. A SCRU128 form bound to the other column form, and a
// HUID bound to a float, are refused in every format, so no mode that knows
// the parameter's type can store them; the binary fast paths write HUID,
// NullHUID, SCRU128 and SCRU128Bytes without allocating.
func encodePlanFor(base uint32, format int16, value any) pgtype.EncodePlan {
	switch value.(type) {
	case idtype.SCRU128, idtype.NullSCRU128:
		if base == pgtype.ByteaOID {
			return refusePlan{fmt.Errorf("%w: %T cannot be stored in a bytea column; use idtype.SCRU128Bytes or idtype.NullSCRU128Bytes", ErrColumnForm, value)}
		}
	case idtype.SCRU128Bytes, idtype.NullSCRU128Bytes:
		if base == pgtype.UUIDOID {
			return refusePlan{fmt.Errorf("%w: %T cannot be stored in a uuid column; use idtype.SCRU128 or idtype.NullSCRU128", ErrColumnForm, value)}
		}
	case idtype.HUID, idtype.NullHUID:
		if name, ok := floatTypes[base]; ok {
			return refusePlan{fmt.Errorf("%w: %T cannot be encoded as %s: it would lose precision above 2^53; use a bigint (int8) or numeric column", ErrInexactColumn, value, name)}
		}
	}
	if format != pgtype.BinaryFormatCode {
		return nil
	}
	switch value.(type) {
	case idtype.HUID:
		if base == pgtype.Int8OID {
			return encodePlanBinaryHUID{}
		}
	case idtype.NullHUID:
		if base == pgtype.Int8OID {
			return encodePlanBinaryNullHUID{}
		}
	case idtype.SCRU128:
		if base == pgtype.UUIDOID {
			return encodePlanBinary16[idtype.SCRU128]{}
		}
	case idtype.SCRU128Bytes:
		if base == pgtype.ByteaOID {
			return encodePlanBinary16[idtype.SCRU128Bytes]{}
		}
	}
	return nil
}

// floatTypes names the floating-point types a HUID is refused for.
var floatTypes = map[uint32]string{pgtype.Float4OID: "float4", pgtype.Float8OID: "float8"}

// refusePlan refuses an ID bound to a column type that cannot hold it
// (the other SCRU128 form, or a float for a HUID) with err. A NULL holds no
// ID and is sent as NULL, as in the modes that cannot know the column's type.
type refusePlan struct{ err error }

func (p refusePlan) Encode(value any, _ []byte) ([]byte, error) {
	switch v := value.(type) {
	case idtype.NullHUID:
		if !v.Valid {
			return nil, nil
		}
	case idtype.NullSCRU128:
		if !v.Valid {
			return nil, nil
		}
	case idtype.NullSCRU128Bytes:
		if !v.Valid {
			return nil, nil
		}
	}
	return nil, p.err
}

// encodePlanBinaryHUID writes a HUID as the 8 big-endian bytes of an int8,
// refusing a negative one.
type encodePlanBinaryHUID struct{}

func (encodePlanBinaryHUID) Encode(value any, buf []byte) ([]byte, error) {
	return value.(idtype.HUID).AppendBinary(buf)
}

// encodePlanBinaryNullHUID writes a NullHUID as NULL or an int8.
type encodePlanBinaryNullHUID struct{}

func (encodePlanBinaryNullHUID) Encode(value any, buf []byte) ([]byte, error) {
	n := value.(idtype.NullHUID)
	if !n.Valid {
		return nil, nil
	}
	return n.HUID.AppendBinary(buf)
}

// encodePlanBinary16 writes a SCRU128 as the 16 bytes of a uuid, or a
// SCRU128Bytes as those of a bytea.
type encodePlanBinary16[T idtype.SCRU128 | idtype.SCRU128Bytes] struct{}

func (encodePlanBinary16[T]) Encode(value any, buf []byte) ([]byte, error) {
	id := value.(T)
	return append(buf, id[:]...), nil
}

// scanPlanFor returns the binary fast path for scanning a column whose
// built-in type is base into target, or nil for the general path.
func scanPlanFor(base uint32, format int16, target any) pgtype.ScanPlan {
	if format != pgtype.BinaryFormatCode {
		return nil
	}
	switch target.(type) {
	case *idtype.HUID:
		if base == pgtype.Int8OID {
			return scanPlanBinaryHUID{}
		}
	case *idtype.SCRU128:
		if base == pgtype.UUIDOID {
			return scanPlanBinarySCRU128{}
		}
	}
	return nil
}

// scanPlanBinaryHUID reads a binary int8 into a *HUID with the checks of
// HUID.Scan (NULL) and HUID.UnmarshalBinary (length, sign).
type scanPlanBinaryHUID struct{}

func (scanPlanBinaryHUID) Scan(src []byte, target any) error {
	dst := target.(*idtype.HUID)
	if src == nil {
		return dst.Scan(nil)
	}
	return dst.UnmarshalBinary(src)
}

// scanPlanBinarySCRU128 reads a binary uuid into a *SCRU128 with the checks
// of SCRU128.Scan (NULL) and SCRU128.UnmarshalBinary (length).
type scanPlanBinarySCRU128 struct{}

func (scanPlanBinarySCRU128) Scan(src []byte, target any) error {
	dst := target.(*idtype.SCRU128)
	if src == nil {
		return dst.Scan(nil)
	}
	return dst.UnmarshalBinary(src)
}

// valuer returns the pgtype valuer (values.go) of an idtype value.
func valuer(value any) (any, bool) {
	switch v := value.(type) {
	case idtype.HUID:
		return huidValue(v), true
	case idtype.NullHUID:
		return nullHUIDValue(v), true
	case idtype.SCRU128:
		return scru128Value(v), true
	case idtype.NullSCRU128:
		return nullSCRU128Value(v), true
	case idtype.SCRU128Bytes:
		return scru128BytesValue(v), true
	case idtype.NullSCRU128Bytes:
		return nullSCRU128BytesValue(v), true
	}
	return nil, false
}

// tryWrapEncodePlan is a pgtype.TryWrapEncodePlanFunc: it converts an idtype
// value to its pgtype valuer, and dereferences a pointer to one, so that the
// built-in codec of the parameter's type can encode it. (pgx's own pointer
// unwrapping skips driver.Valuers, which these are.)
func tryWrapEncodePlan(value any) (plan pgtype.WrappedEncodePlanNextSetter, nextValue any, ok bool) {
	if v, ok := valuer(value); ok {
		return &convertEncodePlan{}, v, true
	}
	switch value.(type) {
	case *idtype.HUID:
		return &derefEncodePlan[idtype.HUID]{}, idtype.HUID(0), true
	case *idtype.NullHUID:
		return &derefEncodePlan[idtype.NullHUID]{}, idtype.NullHUID{}, true
	case *idtype.SCRU128:
		return &derefEncodePlan[idtype.SCRU128]{}, idtype.SCRU128{}, true
	case *idtype.NullSCRU128:
		return &derefEncodePlan[idtype.NullSCRU128]{}, idtype.NullSCRU128{}, true
	case *idtype.SCRU128Bytes:
		return &derefEncodePlan[idtype.SCRU128Bytes]{}, idtype.SCRU128Bytes{}, true
	case *idtype.NullSCRU128Bytes:
		return &derefEncodePlan[idtype.NullSCRU128Bytes]{}, idtype.NullSCRU128Bytes{}, true
	}
	return nil, nil, false
}

// convertEncodePlan encodes an idtype value as its pgtype valuer with next.
type convertEncodePlan struct{ next pgtype.EncodePlan }

func (p *convertEncodePlan) SetNext(next pgtype.EncodePlan) { p.next = next }

func (p *convertEncodePlan) Encode(value any, buf []byte) ([]byte, error) {
	v, _ := valuer(value)
	return p.next.Encode(v, buf)
}

// derefEncodePlan encodes a nil *T as NULL and any other *T as its T.
type derefEncodePlan[T any] struct {
	next pgtype.EncodePlan
}

func (p *derefEncodePlan[T]) SetNext(next pgtype.EncodePlan) { p.next = next }

func (p *derefEncodePlan[T]) Encode(value any, buf []byte) ([]byte, error) {
	ptr := value.(*T)
	if ptr == nil {
		return nil, nil
	}
	return p.next.Encode(*ptr, buf)
}

// scanner returns the pgtype scanner (values.go) of a pointer to an idtype value.
func scanner(target any) (any, bool) {
	switch t := target.(type) {
	case *idtype.HUID:
		return (*huidValue)(t), true
	case *idtype.NullHUID:
		return (*nullHUIDValue)(t), true
	case *idtype.SCRU128:
		return (*scru128Value)(t), true
	case *idtype.NullSCRU128:
		return (*nullSCRU128Value)(t), true
	case *idtype.SCRU128Bytes:
		return (*scru128BytesValue)(t), true
	case *idtype.NullSCRU128Bytes:
		return (*nullSCRU128BytesValue)(t), true
	}
	return nil, false
}

// tryWrapScanPlan is a pgtype.TryWrapScanPlanFunc: it converts a pointer to
// an idtype value into a pointer to its pgtype scanner, which the built-in
// codec of the column's type can scan into. pgx consults
// TryWrapScanPlanFuncs only for targets that are not sql.Scanners, so
// extendedCodec calls it itself, first, for every target.
func tryWrapScanPlan(target any) (plan pgtype.WrappedScanPlanNextSetter, nextTarget any, ok bool) {
	if s, ok := scanner(target); ok {
		return &convertScanPlan{}, s, true
	}
	return nil, nil, false
}

// convertScanPlan scans into the pgtype scanner of an idtype target with next.
type convertScanPlan struct{ next pgtype.ScanPlan }

func (p *convertScanPlan) SetNext(next pgtype.ScanPlan) { p.next = next }

func (p *convertScanPlan) Scan(src []byte, target any) error {
	s, _ := scanner(target)
	return p.next.Scan(src, s)
}
