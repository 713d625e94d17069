package pgxtype

import (
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/sortid/sortid/idtype"
)

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
