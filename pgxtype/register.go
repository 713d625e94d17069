package pgxtype

import (
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/sortid/sortid/idtype"
)

// Register teaches m the idtype types: HUID and NullHUID as int8,
// SCRU128 and NullSCRU128 as uuid, SCRU128Bytes and
// NullSCRU128Bytes as bytea, and their pointers and slices (bigint[],
// uuid[], bytea[]), all in the binary format. Call it once for each
// connection, with pgx.Conn.TypeMap(), typically in
// pgxpool.Config.AfterConnect; see the package documentation.
//
// Register wraps the int8, uuid and bytea codecs that m has, which keep
// handling every other Go type, and records the default PostgreSQL type of
// each idtype type for the query modes that do not ask the server. It also
// wraps the float4 and float8 codecs so that they refuse a HUID, with an
// error wrapping [ErrInexactColumn], instead of rounding it. Calling it
// again on the same map changes nothing.
func Register(m *pgtype.Map) {
	if registered(m) {
		return
	}
	m.TryWrapEncodePlanFuncs = append([]pgtype.TryWrapEncodePlanFunc{tryWrapEncodePlan}, m.TryWrapEncodePlanFuncs...)
	// tryWrapScanPlan is not added to m.TryWrapScanPlanFuncs: pgx never
	// consults those for a sql.Scanner target, which every idtype pointer is.
	// extendedCodec applies it instead.
	for _, oid := range []uint32{pgtype.Int8OID, pgtype.UUIDOID, pgtype.ByteaOID} {
		extend(m, oid)
	}
	for oid := range floatTypes {
		t, _ := m.TypeForOID(oid) // pgx registers float4 and float8 in every map
		m.RegisterType(&pgtype.Type{Name: t.Name, OID: t.OID, Codec: floatCodec{t.Codec}})
	}
	registerDefaultPgTypes(m)
}

// registered reports whether Register already ran on m.
func registered(m *pgtype.Map) bool {
	t, ok := m.TypeForOID(pgtype.Int8OID)
	if !ok {
		return false
	}
	_, ok = t.Codec.(extendedCodec)
	return ok
}

// extend registers the type of oid again, under its own name and OID, with
// its codec wrapped in an extendedCodec.
func extend(m *pgtype.Map, oid uint32) {
	t, ok := m.TypeForOID(oid)
	if !ok {
		return // not reachable: pgx registers int8, uuid and bytea in every map
	}
	m.RegisterType(&pgtype.Type{Name: t.Name, OID: t.OID, Codec: extendedCodec{Codec: t.Codec, oid: oid}})
}

// registerDefaultPgTypes maps each idtype type to the PostgreSQL type used
// when the server does not say which it wants.
func registerDefaultPgTypes(m *pgtype.Map) {
	registerVariants[idtype.HUID](m, "int8")
	registerVariants[idtype.NullHUID](m, "int8")
	registerVariants[idtype.SCRU128](m, "uuid")
	registerVariants[idtype.NullSCRU128](m, "uuid")
	registerVariants[idtype.SCRU128Bytes](m, "bytea")
	registerVariants[idtype.NullSCRU128Bytes](m, "bytea")
}

// registerVariants registers T, *T, []T, *[]T, []*T and *[]*T as pgx
// registers its own types, so that pgtype.Map.SQLScanner finds them too.
func registerVariants[T any](m *pgtype.Map, name string) {
	var value T
	m.RegisterDefaultPgType(value, name)
	m.RegisterDefaultPgType(&value, name)
	var slice []T
	m.RegisterDefaultPgType(slice, "_"+name)
	m.RegisterDefaultPgType(&slice, "_"+name)
	var ptrSlice []*T
	m.RegisterDefaultPgType(ptrSlice, "_"+name)
	m.RegisterDefaultPgType(&ptrSlice, "_"+name)
}

// floatCodec is the float4 or float8 codec refusing to encode a HUID, which
// it would round (see ErrInexactColumn). Everything else, scanning
// included, is the wrapped codec's.
type floatCodec struct{ pgtype.Codec }

func (c floatCodec) PlanEncode(m *pgtype.Map, oid uint32, format int16, value any) pgtype.EncodePlan {
	if plan := encodePlanFor(oid, format, value); plan != nil {
		return plan
	}
	return c.Codec.PlanEncode(m, oid, format, value)
}

// extendedCodec is a built-in codec that also scans into the idtype types.
// Everything else, DecodeValue included, is the wrapped codec's, so a plain
// int64 still decodes as int64 and a uuid as [16]byte.
type extendedCodec struct {
	pgtype.Codec
	oid uint32 // the built-in type extended: int8, uuid or bytea
}

// PlanEncode returns the plan of encodePlanFor for an idtype value (a
// binary fast path that does not allocate, the hot path of CopyFrom and of
// every parameter, or the refusal of the wrong SCRU128 form); every other
// value gets the wrapped codec's plan, and pgx then tries the
// TryWrapEncodePlanFuncs, tryWrapEncodePlan first.
func (c extendedCodec) PlanEncode(m *pgtype.Map, oid uint32, format int16, value any) pgtype.EncodePlan {
	if plan := encodePlanFor(c.oid, format, value); plan != nil {
		return plan
	}
	return c.Codec.PlanEncode(m, oid, format, value)
}

// PlanScan returns the binary fast path of scanPlanFor (the hot path of
// every query), else the wrapped codec's plan for the pgtype scanner of an
// idtype target, else the wrapped codec's plan for the target itself. It
// returns nil when none fits (then pgx falls back to sql.Scanner).
func (c extendedCodec) PlanScan(m *pgtype.Map, oid uint32, format int16, target any) pgtype.ScanPlan {
	if plan := scanPlanFor(c.oid, format, target); plan != nil {
		return plan
	}
	if wrap, next, ok := tryWrapScanPlan(target); ok {
		if plan := c.Codec.PlanScan(m, oid, format, next); plan != nil {
			wrap.SetNext(plan)
			return wrap
		}
	}
	return c.Codec.PlanScan(m, oid, format, target)
}
