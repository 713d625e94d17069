package gormtype

import (
	"reflect"
	"slices"
	"strconv"
	"time"

	"github.com/sortid/sortid/idtype"
)

// scheme is one ID type: all that AutoID and Between know of it. A new
// type is a type (types.go), a member of [ID] and a case of Null's decode
// (null.go), and a row here.
type scheme struct {
	name           string       // the gormtype type, for messages
	typ, null      reflect.Type // the gormtype type and its Null form
	core, coreNull reflect.Type // idtype's forms, which GORM cannot store as IDs
	// fresh sets dst (values of typ) to fresh IDs, ascending for HUIDs, and
	// returns them in a slice of idtype's IDs.
	fresh func(g generators, dst []reflect.Value) (any, error)
	// bounds are the first and the last ID made in [from, to).
	bounds func(from, to time.Time) (lo, hi any, err error)
	// text is an ID of idtype's as PostgreSQL writes it in the key value of
	// a unique violation (and MySQL a HUID); nil where it depends on the
	// session (bytea_output).
	text func(id any) string
}

var schemes = []scheme{
	{"HUID", reflect.TypeFor[HUID](), reflect.TypeFor[NullHUID](),
		reflect.TypeFor[idtype.HUID](), reflect.TypeFor[idtype.NullHUID](), freshHUIDs,
		func(from, to time.Time) (any, any, error) {
			lo, hi, err := idtype.HUIDRange(from, to)
			return HUID(lo), HUID(hi), err
		}, func(id any) string { return strconv.FormatInt(int64(id.(idtype.HUID)), 10) }},
	{"SCRU128", reflect.TypeFor[SCRU128](), reflect.TypeFor[NullSCRU128](),
		reflect.TypeFor[idtype.SCRU128](), reflect.TypeFor[idtype.NullSCRU128](), freshSCRU128s[SCRU128], bounds128[SCRU128],
		func(id any) string { return id.(idtype.SCRU128).UUIDString() }},
	{"SCRU128Bytes", reflect.TypeFor[SCRU128Bytes](), reflect.TypeFor[NullSCRU128Bytes](),
		reflect.TypeFor[idtype.SCRU128Bytes](), reflect.TypeFor[idtype.NullSCRU128Bytes](), freshSCRU128s[SCRU128Bytes], bounds128[SCRU128Bytes], nil},
}

// schemeOf returns the scheme of a field type (a gormtype ID type or its
// Null form, also behind a pointer), or nil.
func schemeOf(t reflect.Type) *scheme {
	t = indirect(t)
	i := slices.IndexFunc(schemes, func(s scheme) bool { return t == s.typ || t == s.null })
	if i < 0 {
		return nil
	}
	return &schemes[i]
}

func indirect(t reflect.Type) reflect.Type {
	if t.Kind() == reflect.Pointer {
		return t.Elem()
	}
	return t
}

// generators make fresh IDs; nil means idtype's defaults.
type generators struct {
	huid func() (idtype.HUID, error)
	scru func() (idtype.SCRU128, error)
}

// freshHUIDs draws ascending HUIDs (FillHUIDs sorts them), so that a batch
// appends at the right edge of the primary-key index in the order of the
// caller's slice.
func freshHUIDs(g generators, dst []reflect.Value) (_ any, err error) {
	ids := make([]idtype.HUID, len(dst))
	if g.huid == nil {
		err = idtype.FillHUIDs(ids)
	}
	for i := 0; g.huid != nil && i < len(ids) && err == nil; i++ {
		ids[i], err = g.huid()
	}
	if g.huid != nil {
		slices.Sort(ids)
	}
	for i := 0; err == nil && i < len(ids); i++ {
		dst[i].SetInt(int64(ids[i]))
	}
	if err != nil {
		return nil, err
	}
	return ids, nil
}

func freshSCRU128s[T SCRU128 | SCRU128Bytes](g generators, dst []reflect.Value) (any, error) {
	generate, ids := g.scru, make([]idtype.SCRU128, len(dst))
	if generate == nil {
		generate = idtype.GenerateSCRU128
	}
	for i, v := range dst {
		id, err := generate()
		if err != nil {
			return nil, err
		}
		ids[i] = id
		v.Set(reflect.ValueOf(T(id)))
	}
	return ids, nil
}

func bounds128[T SCRU128 | SCRU128Bytes](from, to time.Time) (any, any, error) {
	lo, hi, err := idtype.SCRU128Range(from, to)
	return T(lo), T(hi), err
}
