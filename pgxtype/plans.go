package pgxtype

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/sortid/sortid/idtype"
)

// id is what the plans need of a value type of the table: idtype.Null's
// constraint, and the binary form, which is the wire form of the built-in
// type that holds it (the 8 bytes of an int8, the 16 of a uuid or a bytea).
type id interface {
	idtype.HUID | idtype.SCRU128 | idtype.SCRU128Bytes
	driver.Valuer
	json.Marshaler
	AppendBinary([]byte) ([]byte, error)
}

// idPtr is *T, whose UnmarshalBinary reads the wire form with T's checks
// and whose Scan(nil) is T's error for NULL.
type idPtr[T id] interface {
	*T
	Scan(any) error
	UnmarshalBinary([]byte) error
}

// valueType is a row of valueTypes.
type valueType struct {
	name     string    // the type's name in idtype
	base     uint32    // the OID of the built-in type that holds it
	refusals []refusal // the column types that cannot hold it
	forms    []form    // its Go types: T and idtype.Null[T]
}

// newValueType returns the row of T, stored in base and converted for its
// codec by valuer and scanner.
func newValueType[T id, PT idPtr[T]](name string, base uint32, valuer func(T) any, scanner func(*T) any, refusals ...refusal) *valueType {
	t := &valueType{name: name, base: base, refusals: refusals}
	plain := plainForm[T, PT]{row: t, valuer: valuer, scanner: scanner}
	t.forms = []form{plain, nullForm[T, PT]{v: plain}}
	return t
}

// refused returns the error of the Go type of the row named name bound to a
// parameter whose built-in type is base, or nil if base may hold it.
func (t *valueType) refused(base uint32, name string) error {
	for _, r := range t.refusals {
		if r.oid == base {
			return fmt.Errorf("%w: idtype.%s %s", r.err, name, r.text)
		}
	}
	return nil
}

// A form is one Go type of the table, T or idtype.Null[T], as the plans
// and Register handle it.
type form interface {
	goType() reflect.Type
	// registerDefault registers the form, its pointer and slices with m as
	// values of the type name (and _name).
	registerDefault(m *pgtype.Map, name string)
	// encodePlan returns the plan for the form bound to a parameter whose
	// built-in type is base: a refusal, the binary fast path, or nil for the
	// general path of wrapEncode.
	encodePlan(base uint32, format int16) pgtype.EncodePlan
	// wrapEncode returns the plan that converts the form to what the
	// built-in codecs encode, and a value of that type to plan next.
	wrapEncode() (pgtype.WrappedEncodePlanNextSetter, any)
	// wrapDeref returns the plan that encodes a pointer to the form, and
	// the value to plan next.
	wrapDeref() (pgtype.WrappedEncodePlanNextSetter, any)
	// scanPlan returns the binary fast path for scanning a column of the
	// built-in type base into a pointer to the form, or nil.
	scanPlan(base uint32, format int16) pgtype.ScanPlan
	// wrapScan returns the plan that converts target, a pointer to the
	// form, to what the built-in codecs scan into, and a target of that
	// type to plan next.
	wrapScan(target any) (pgtype.WrappedScanPlanNextSetter, any)
}

// goTypes lists the Go types of the table, and pointers to them, with
// their forms.
var goTypes = func() (types []goType) {
	for _, t := range valueTypes {
		for _, f := range t.forms {
			types = append(types, goType{f.goType(), f, false}, goType{reflect.PointerTo(f.goType()), f, true})
		}
	}
	return types
}()

type goType struct {
	t       reflect.Type
	form    form
	pointer bool
}

// formOf returns the form of v's type, or of the type v points to, with
// whether v is a pointer; ok is false for other types. It compares v's type
// with each of goTypes, which is faster than a map for so few.
func formOf(v any) (f form, pointer, ok bool) {
	t := reflect.TypeOf(v)
	for _, g := range goTypes {
		if g.t == t {
			return g.form, g.pointer, true
		}
	}
	return nil, false, false
}

// goForm is what the forms of X share.
type goForm[X any] struct{}

func (goForm[X]) goType() reflect.Type { return reflect.TypeFor[X]() }

// registerDefault registers X, *X, []X, *[]X, []*X and *[]*X as pgx
// registers its own types, so that pgtype.Map.SQLScanner finds them too.
func (goForm[X]) registerDefault(m *pgtype.Map, name string) {
	var value X
	m.RegisterDefaultPgType(value, name)
	m.RegisterDefaultPgType(&value, name)
	var slice []X
	m.RegisterDefaultPgType(slice, "_"+name)
	m.RegisterDefaultPgType(&slice, "_"+name)
	var ptrSlice []*X
	m.RegisterDefaultPgType(ptrSlice, "_"+name)
	m.RegisterDefaultPgType(&ptrSlice, "_"+name)
}

// wrapDeref encodes a pointer to X. (pgx's own pointer unwrapping skips
// driver.Valuers, which these are.)
func (goForm[X]) wrapDeref() (pgtype.WrappedEncodePlanNextSetter, any) {
	return &derefEncodePlan[X]{}, *new(X)
}

// plainForm is the form T of a row.
type plainForm[T id, PT idPtr[T]] struct {
	goForm[T]
	row     *valueType
	valuer  func(T) any
	scanner func(*T) any
}

func (f plainForm[T, PT]) encodePlan(base uint32, format int16) pgtype.EncodePlan {
	if encode := f.encoder(base, format, f.row.name); encode != nil {
		return encode
	}
	return nil
}

// encoder returns how T is encoded for a parameter whose built-in type is
// base, naming the Go type name in errors, or nil for the general path. It
// refuses T for the row's refusals, in every format, so that no mode that
// knows the parameter's type can store it; in the binary format it writes
// T into its own built-in type as its binary form, without allocating (the
// hot path of CopyFrom and of every parameter).
func (f plainForm[T, PT]) encoder(base uint32, format int16, name string) encodeFunc[T] {
	if err := f.row.refused(base, name); err != nil {
		return func(T, []byte) ([]byte, error) { return nil, err }
	}
	if base == f.row.base && format == pgtype.BinaryFormatCode {
		return T.AppendBinary
	}
	return nil
}

func (f plainForm[T, PT]) wrapEncode() (pgtype.WrappedEncodePlanNextSetter, any) {
	return &convertEncodePlan[T]{valuer: f.valuer}, f.valuer(*new(T))
}

// scanPlan reads T's own built-in type in the binary format straight into
// a *T (scanBinaryPlan).
func (f plainForm[T, PT]) scanPlan(base uint32, format int16) pgtype.ScanPlan {
	if base == f.row.base && format == pgtype.BinaryFormatCode {
		return scanBinaryPlan[T, PT]{}
	}
	return nil
}

func (f plainForm[T, PT]) wrapScan(target any) (pgtype.WrappedScanPlanNextSetter, any) {
	return &convertScanPlan[T]{scanner: f.scanner}, f.scanner(target.(*T))
}

// nullForm is the form idtype.Null[T] of a row: NULL when not Valid, else
// its V as the plain form v.
type nullForm[T id, PT idPtr[T]] struct {
	goForm[idtype.Null[T]]
	v plainForm[T, PT]
}

func (f nullForm[T, PT]) encodePlan(base uint32, format int16) pgtype.EncodePlan {
	if encode := f.v.encoder(base, format, "Null"+f.v.row.name); encode != nil {
		return orNull(encode)
	}
	return nil
}

func (nullForm[T, PT]) wrapEncode() (pgtype.WrappedEncodePlanNextSetter, any) {
	return &nullEncodePlan[T]{}, *new(T)
}

// orNull encodes an idtype.Null[T] as NULL when it is not Valid (it holds
// no ID, and so is sent as NULL whatever the column type, as in the modes
// that cannot know it), else its V with encode.
func orNull[T id](encode encodeFunc[T]) encodeFunc[idtype.Null[T]] {
	return func(n idtype.Null[T], buf []byte) ([]byte, error) {
		if !n.Valid {
			return nil, nil
		}
		return encode(n.V, buf)
	}
}

func (nullForm[T, PT]) scanPlan(uint32, int16) pgtype.ScanPlan { return nil }

func (nullForm[T, PT]) wrapScan(any) (pgtype.WrappedScanPlanNextSetter, any) {
	return &nullScanPlan[T]{}, new(T)
}

// tryWrapEncodePlan is a pgtype.TryWrapEncodePlanFunc: it converts an
// idtype value to what the built-in codec of the parameter's type encodes
// (its pgtype valuer, or the V of a Null), and dereferences a pointer to one.
func tryWrapEncodePlan(value any) (plan pgtype.WrappedEncodePlanNextSetter, nextValue any, ok bool) {
	f, pointer, ok := formOf(value)
	switch {
	case !ok:
		return nil, nil, false
	case pointer:
		plan, nextValue = f.wrapDeref()
	default:
		plan, nextValue = f.wrapEncode()
	}
	return plan, nextValue, true
}

// encodeFunc is the EncodePlan of values of type X.
type encodeFunc[X any] func(X, []byte) ([]byte, error)

func (f encodeFunc[X]) Encode(value any, buf []byte) ([]byte, error) { return f(value.(X), buf) }

// derefEncodePlan encodes a nil *X as NULL and any other *X as its X with next.
type derefEncodePlan[X any] struct{ next pgtype.EncodePlan }

func (p *derefEncodePlan[X]) SetNext(next pgtype.EncodePlan) { p.next = next }

func (p *derefEncodePlan[X]) Encode(value any, buf []byte) ([]byte, error) {
	ptr := value.(*X)
	if ptr == nil {
		return nil, nil
	}
	return p.next.Encode(*ptr, buf)
}

// convertEncodePlan encodes a T as its pgtype valuer with next.
type convertEncodePlan[T id] struct {
	next   pgtype.EncodePlan
	valuer func(T) any
}

func (p *convertEncodePlan[T]) SetNext(next pgtype.EncodePlan) { p.next = next }

func (p *convertEncodePlan[T]) Encode(value any, buf []byte) ([]byte, error) {
	return p.next.Encode(p.valuer(value.(T)), buf)
}

// nullEncodePlan encodes an idtype.Null[T] with orNull and next, the plan
// of T.
type nullEncodePlan[T id] struct{ encodeFunc[idtype.Null[T]] }

func (p *nullEncodePlan[T]) SetNext(next pgtype.EncodePlan) {
	p.encodeFunc = orNull(func(v T, buf []byte) ([]byte, error) { return next.Encode(v, buf) })
}

// scanBinaryPlan reads the binary form of T's own built-in type into a *T
// with T's checks (the hot path of every query): NULL as T.Scan takes it,
// the rest as T.UnmarshalBinary takes it (length, sign).
type scanBinaryPlan[T id, PT idPtr[T]] struct{}

func (scanBinaryPlan[T, PT]) Scan(src []byte, target any) error {
	dst := PT(target.(*T))
	if src == nil {
		return dst.Scan(nil)
	}
	return dst.UnmarshalBinary(src)
}

// convertScanPlan scans into the pgtype scanner of a *T with next.
type convertScanPlan[T id] struct {
	next    pgtype.ScanPlan
	scanner func(*T) any
}

func (p *convertScanPlan[T]) SetNext(next pgtype.ScanPlan) { p.next = next }

func (p *convertScanPlan[T]) Scan(src []byte, target any) error {
	return p.next.Scan(src, p.scanner(target.(*T)))
}

// nullScanPlan scans NULL into an *idtype.Null[T] as Valid=false, and
// anything else into its V with next, the plan of *T.
type nullScanPlan[T id] struct{ next pgtype.ScanPlan }

func (p *nullScanPlan[T]) SetNext(next pgtype.ScanPlan) { p.next = next }

func (p *nullScanPlan[T]) Scan(src []byte, target any) error {
	dst := target.(*idtype.Null[T])
	if src == nil {
		*dst = idtype.Null[T]{}
		return nil
	}
	if err := p.next.Scan(src, &dst.V); err != nil {
		return err
	}
	dst.Valid = true
	return nil
}
