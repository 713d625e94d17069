package pgxtype

import (
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/sortid/sortid/idtype"
)

// tryWrapEncodePlan is a pgtype.TryWrapEncodePlanFunc: it converts an idtype
// value to its pgtype valuer (values.go), and dereferences a pointer to one,
// so that the built-in codec of the parameter's type can encode it.
// (pgx's own pointer unwrapping skips driver.Valuers, which these are.)
func tryWrapEncodePlan(value any) (plan pgtype.WrappedEncodePlanNextSetter, nextValue any, ok bool) {
	switch v := value.(type) {
	case idtype.HUID:
		return &convertEncodePlan[idtype.HUID]{convert: asHUIDValue}, huidValue(v), true
	case idtype.NullHUID:
		return &convertEncodePlan[idtype.NullHUID]{convert: asNullHUIDValue}, nullHUIDValue(v), true
	case idtype.SCRU128:
		return &convertEncodePlan[idtype.SCRU128]{convert: asSCRU128Value}, scru128Value(v), true
	case idtype.NullSCRU128:
		return &convertEncodePlan[idtype.NullSCRU128]{convert: asNullSCRU128Value}, nullSCRU128Value(v), true
	case idtype.SCRU128Bytes:
		return &convertEncodePlan[idtype.SCRU128Bytes]{convert: asSCRU128BytesValue}, scru128BytesValue(v), true
	case idtype.NullSCRU128Bytes:
		return &convertEncodePlan[idtype.NullSCRU128Bytes]{convert: asNullSCRU128BytesValue}, nullSCRU128BytesValue(v), true
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

func asHUIDValue(v idtype.HUID) any                         { return huidValue(v) }
func asNullHUIDValue(v idtype.NullHUID) any                 { return nullHUIDValue(v) }
func asSCRU128Value(v idtype.SCRU128) any                   { return scru128Value(v) }
func asNullSCRU128Value(v idtype.NullSCRU128) any           { return nullSCRU128Value(v) }
func asSCRU128BytesValue(v idtype.SCRU128Bytes) any         { return scru128BytesValue(v) }
func asNullSCRU128BytesValue(v idtype.NullSCRU128Bytes) any { return nullSCRU128BytesValue(v) }

// convertEncodePlan converts a T to its pgtype valuer and encodes that with next.
type convertEncodePlan[T any] struct {
	convert func(T) any
	next    pgtype.EncodePlan
}

func (p *convertEncodePlan[T]) SetNext(next pgtype.EncodePlan) { p.next = next }

func (p *convertEncodePlan[T]) Encode(value any, buf []byte) ([]byte, error) {
	return p.next.Encode(p.convert(value.(T)), buf)
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

// tryWrapScanPlan is a pgtype.TryWrapScanPlanFunc: it converts a pointer to
// an idtype value into a pointer to its pgtype scanner (values.go), which the
// built-in codec of the column's type can scan into. pgx consults
// TryWrapScanPlanFuncs only for targets that are not sql.Scanners, so
// extendedCodec calls it itself, first, for every target.
func tryWrapScanPlan(target any) (plan pgtype.WrappedScanPlanNextSetter, nextTarget any, ok bool) {
	switch t := target.(type) {
	case *idtype.HUID:
		return &convertScanPlan[idtype.HUID]{convert: asHUIDScanner}, (*huidValue)(t), true
	case *idtype.NullHUID:
		return &convertScanPlan[idtype.NullHUID]{convert: asNullHUIDScanner}, (*nullHUIDValue)(t), true
	case *idtype.SCRU128:
		return &convertScanPlan[idtype.SCRU128]{convert: asSCRU128Scanner}, (*scru128Value)(t), true
	case *idtype.NullSCRU128:
		return &convertScanPlan[idtype.NullSCRU128]{convert: asNullSCRU128Scanner}, (*nullSCRU128Value)(t), true
	case *idtype.SCRU128Bytes:
		return &convertScanPlan[idtype.SCRU128Bytes]{convert: asSCRU128BytesScanner}, (*scru128BytesValue)(t), true
	case *idtype.NullSCRU128Bytes:
		return &convertScanPlan[idtype.NullSCRU128Bytes]{convert: asNullSCRU128BytesScanner}, (*nullSCRU128BytesValue)(t), true
	}
	return nil, nil, false
}

func asHUIDScanner(p *idtype.HUID) any                         { return (*huidValue)(p) }
func asNullHUIDScanner(p *idtype.NullHUID) any                 { return (*nullHUIDValue)(p) }
func asSCRU128Scanner(p *idtype.SCRU128) any                   { return (*scru128Value)(p) }
func asNullSCRU128Scanner(p *idtype.NullSCRU128) any           { return (*nullSCRU128Value)(p) }
func asSCRU128BytesScanner(p *idtype.SCRU128Bytes) any         { return (*scru128BytesValue)(p) }
func asNullSCRU128BytesScanner(p *idtype.NullSCRU128Bytes) any { return (*nullSCRU128BytesValue)(p) }

// convertScanPlan converts a *T target to its pgtype scanner and scans into
// that with next.
type convertScanPlan[T any] struct {
	convert func(*T) any
	next    pgtype.ScanPlan
}

func (p *convertScanPlan[T]) SetNext(next pgtype.ScanPlan) { p.next = next }

func (p *convertScanPlan[T]) Scan(src []byte, target any) error {
	return p.next.Scan(src, p.convert(target.(*T)))
}
