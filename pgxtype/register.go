package pgxtype

import (
	"encoding/binary"
	"fmt"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/sortid/sortid/idtype"
)

// Register teaches m the idtype types: HUID and NullHUID as int8,
// SCRU128 and NullSCRU128 as uuid (or a 16-byte bytea), SCRU128Bytes and
// NullSCRU128Bytes as bytea, and their pointers and slices (bigint[],
// uuid[], bytea[]), all in the binary format. Call it once for each
// connection, with pgx.Conn.TypeMap(), typically in
// pgxpool.Config.AfterConnect; see the package documentation.
//
// Register wraps the int8, uuid and bytea codecs that m has, which keep
// handling every other Go type, and records the default PostgreSQL type of
// each idtype type for the query modes that do not ask the server. Calling
// it again on the same map changes nothing.
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

// extendedCodec is a built-in codec that also scans into the idtype types.
// Everything else, DecodeValue included, is the wrapped codec's, so a plain
// int64 still decodes as int64 and a uuid as [16]byte.
type extendedCodec struct {
	pgtype.Codec
	oid uint32 // the built-in type extended: int8, uuid or bytea
}

// PlanEncode encodes a HUID or NullHUID for int8, a SCRU128 for uuid or
// bytea and a SCRU128Bytes for bytea in binary straight away, without
// allocating (the hot path of CopyFrom and of every parameter); all
// other values get the wrapped codec's plan, and pgx then tries the
// TryWrapEncodePlanFuncs, tryWrapEncodePlan first.
func (c extendedCodec) PlanEncode(m *pgtype.Map, oid uint32, format int16, value any) pgtype.EncodePlan {
	if format == pgtype.BinaryFormatCode {
		switch value.(type) {
		case idtype.HUID:
			if c.oid == pgtype.Int8OID {
				return encodePlanBinaryHUID{}
			}
		case idtype.SCRU128:
			if c.oid == pgtype.UUIDOID || c.oid == pgtype.ByteaOID {
				return encodePlanBinarySCRU128{}
			}
		case idtype.SCRU128Bytes:
			if c.oid == pgtype.ByteaOID {
				return encodePlanBinarySCRU128Bytes{}
			}
		case idtype.NullHUID:
			if c.oid == pgtype.Int8OID {
				return encodePlanBinaryNullHUID{}
			}
		}
	}
	return c.Codec.PlanEncode(m, oid, format, value)
}

// encodePlanBinaryHUID writes a HUID as the 8 big-endian bytes of an int8.
type encodePlanBinaryHUID struct{}

func (encodePlanBinaryHUID) Encode(value any, buf []byte) ([]byte, error) {
	return value.(idtype.HUID).AppendBinary(buf)
}

// encodePlanBinarySCRU128 writes a SCRU128 as the 16 bytes of a uuid or bytea.
type encodePlanBinarySCRU128 struct{}

func (encodePlanBinarySCRU128) Encode(value any, buf []byte) ([]byte, error) {
	id := value.(idtype.SCRU128)
	return append(buf, id[:]...), nil
}

// PlanScan scans a binary int8 into a *HUID and a binary uuid into a
// *SCRU128 straight away (the hot path of every query); other idtype
// targets go through their pgtype scanner and the wrapped codec's plan for
// that; other targets get the wrapped codec's plan. It returns nil when neither fits (then pgx falls back to sql.Scanner).
func (c extendedCodec) PlanScan(m *pgtype.Map, oid uint32, format int16, target any) pgtype.ScanPlan {
	if format == pgtype.BinaryFormatCode {
		switch target.(type) {
		case *idtype.HUID:
			if c.oid == pgtype.Int8OID {
				return scanPlanBinaryHUID{}
			}
		case *idtype.SCRU128:
			if c.oid == pgtype.UUIDOID {
				return scanPlanBinarySCRU128{}
			}
		}
	}
	if wrap, next, ok := tryWrapScanPlan(target); ok {
		if plan := c.Codec.PlanScan(m, oid, format, next); plan != nil {
			wrap.SetNext(plan)
			return wrap
		}
	}
	return c.Codec.PlanScan(m, oid, format, target)
}

// scanPlanBinaryHUID reads the 8 big-endian bytes of a binary int8 into a
// *HUID, rejecting NULL and negative values as huidValue.ScanInt64 does.
type scanPlanBinaryHUID struct{}

func (scanPlanBinaryHUID) Scan(src []byte, target any) error {
	dst := target.(*idtype.HUID)
	if src == nil {
		return fmt.Errorf("%w: SQL NULL scanned into HUID (use NullHUID)", idtype.ErrNull)
	}
	if len(src) != 8 {
		return fmt.Errorf("%w: binary int8 of %d bytes", idtype.ErrInvalidHUID, len(src))
	}
	return scanHUID(dst, int64(binary.BigEndian.Uint64(src)))
}

// scanPlanBinarySCRU128 copies the 16 bytes of a binary uuid into a *SCRU128,
// rejecting NULL.
type scanPlanBinarySCRU128 struct{}

func (scanPlanBinarySCRU128) Scan(src []byte, target any) error {
	dst := target.(*idtype.SCRU128)
	if src == nil {
		return fmt.Errorf("%w: SQL NULL scanned into SCRU128 (use NullSCRU128)", idtype.ErrNull)
	}
	if len(src) != 16 {
		return fmt.Errorf("%w: binary uuid of %d bytes", idtype.ErrInvalidSCRU128, len(src))
	}
	copy(dst[:], src)
	return nil
}

// encodePlanBinarySCRU128Bytes writes a SCRU128Bytes as the 16 bytes of a bytea.
type encodePlanBinarySCRU128Bytes struct{}

func (encodePlanBinarySCRU128Bytes) Encode(value any, buf []byte) ([]byte, error) {
	id := value.(idtype.SCRU128Bytes)
	return append(buf, id[:]...), nil
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
