package pgxtype

import "github.com/jackc/pgx/v5/pgtype"

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
	// Nothing is added to m.TryWrapScanPlanFuncs: pgx never consults those
	// for a sql.Scanner target, which every idtype pointer is.
	// extendedCodec.PlanScan wraps the targets instead.
	for _, v := range valueTypes {
		extend(m, v.base, true)
	}
	for _, v := range valueTypes {
		for _, r := range v.refusals {
			extend(m, r.oid, false)
		}
		t, _ := m.TypeForOID(v.base)
		for _, f := range v.forms {
			f.registerDefault(m, t.Name)
		}
	}
}

// extend registers the built-in type of oid again, under its own name and
// OID, with its codec wrapped in an extendedCodec that scans into the
// idtype types if scan is set. It does nothing for a type already extended.
func extend(m *pgtype.Map, oid uint32, scan bool) {
	t, ok := m.TypeForOID(oid)
	if !ok {
		return // not reachable: pgx registers int8, uuid, bytea, float4 and float8 in every map
	}
	if _, done := t.Codec.(extendedCodec); done {
		return
	}
	m.RegisterType(&pgtype.Type{Name: t.Name, OID: t.OID, Codec: extendedCodec{Codec: t.Codec, oid: oid, scan: scan}})
}

// registered reports whether Register already ran on m.
func registered(m *pgtype.Map) bool {
	t, ok := m.TypeForOID(valueTypes[0].base)
	if !ok {
		return false
	}
	_, ok = t.Codec.(extendedCodec)
	return ok
}

// extendedCodec is a built-in codec that plans the idtype values first:
// the codec of a type that holds one (int8, uuid, bytea) encodes them and
// scans into them, that of a type that refuses one (float4, float8) only
// refuses them. Everything else, DecodeValue included, is the wrapped
// codec's, so a plain int64 still decodes as int64 and a uuid as [16]byte.
type extendedCodec struct {
	pgtype.Codec
	oid  uint32 // the built-in type extended
	scan bool   // whether it scans into the idtype types
}

// PlanEncode returns the plan of the form of an idtype value (a binary
// fast path that does not allocate, the hot path of CopyFrom and of every
// parameter, or a refusal); every other value gets the wrapped codec's
// plan, and pgx then tries the TryWrapEncodePlanFuncs, tryWrapEncodePlan
// first.
func (c extendedCodec) PlanEncode(m *pgtype.Map, oid uint32, format int16, value any) pgtype.EncodePlan {
	if f, pointer, ok := formOf(value); ok && !pointer {
		if plan := f.encodePlan(c.oid, format); plan != nil {
			return plan
		}
	}
	return c.Codec.PlanEncode(m, oid, format, value)
}

// PlanScan returns, for a pointer to an idtype value, the binary fast path
// of its form (the hot path of every query), else the plan of its form's
// wrapScan with this codec's plan for the target it converts to; for every
// other target, and when that target has no plan, it returns the wrapped
// codec's plan, or nil when none fits (then pgx falls back to sql.Scanner).
// This is the TryWrapScanPlanFunc of the idtype types: pgx consults
// pgtype.Map.TryWrapScanPlanFuncs only for targets that are not
// sql.Scanners, which every idtype pointer is.
func (c extendedCodec) PlanScan(m *pgtype.Map, oid uint32, format int16, target any) pgtype.ScanPlan {
	if f, pointer, ok := formOf(target); c.scan && ok && pointer {
		if plan := f.scanPlan(c.oid, format); plan != nil {
			return plan
		}
		wrap, next := f.wrapScan(target)
		if plan := c.PlanScan(m, oid, format, next); plan != nil {
			wrap.SetNext(plan)
			return wrap
		}
	}
	return c.Codec.PlanScan(m, oid, format, target)
}
