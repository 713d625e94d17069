package pgxtype_test

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/sortid/sortid/idtype"
	"github.com/sortid/sortid/pgxtype"
)

var (
	someHUID    = idtype.MustParseHUID("258037077")
	someSCRU128 = idtype.MustParseSCRU128("00QBTG0FERFTCCNFISUBO489DI")
	formats     = []struct {
		name string
		code int16
	}{{"binary", pgtype.BinaryFormatCode}, {"text", pgtype.TextFormatCode}}
)

func newMap() *pgtype.Map {
	m := pgtype.NewMap()
	pgxtype.Register(m)
	return m
}

// roundTrip encodes value for oid in format and scans the result into a new
// value of dstType, which it returns.
func roundTrip(t *testing.T, m *pgtype.Map, oid uint32, format int16, value any, dstType reflect.Type) any {
	t.Helper()
	buf, err := m.Encode(oid, format, value, nil)
	if err != nil {
		t.Fatalf("Encode(%d, %d, %#v): %v", oid, format, value, err)
	}
	dst := reflect.New(dstType)
	if err := m.Scan(oid, format, buf, dst.Interface()); err != nil {
		t.Fatalf("Scan(%d, %d, %q) into %v: %v", oid, format, buf, dstType, err)
	}
	return dst.Elem().Interface()
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	maxBytes := idtype.SCRU128Bytes(idtype.MaxSCRU128)
	huidPtr, scruPtr := someHUID, someSCRU128
	cases := []struct {
		name  string
		oid   uint32
		value any
		want  any // the value scanned back, of the type to scan into
	}{
		{"HUID zero", pgtype.Int8OID, idtype.HUID(0), idtype.HUID(0)},
		{"HUID max", pgtype.Int8OID, idtype.MaxHUID, idtype.MaxHUID},
		{"HUID", pgtype.Int8OID, someHUID, someHUID},
		{"*HUID", pgtype.Int8OID, &huidPtr, someHUID},
		{"HUID into int4", pgtype.Int4OID, idtype.HUID(7), idtype.HUID(7)},
		{"NullHUID", pgtype.Int8OID, idtype.NullHUID{V: someHUID, Valid: true}, idtype.NullHUID{V: someHUID, Valid: true}},
		{"NullHUID NULL", pgtype.Int8OID, idtype.NullHUID{}, idtype.NullHUID{}},
		{"nil *HUID into NullHUID", pgtype.Int8OID, (*idtype.HUID)(nil), idtype.NullHUID{}},
		{"[]HUID", pgtype.Int8ArrayOID, []idtype.HUID{0, someHUID, idtype.MaxHUID}, []idtype.HUID{0, someHUID, idtype.MaxHUID}},
		{"[]NullHUID", pgtype.Int8ArrayOID, []idtype.NullHUID{{}, {V: 1, Valid: true}}, []idtype.NullHUID{{}, {V: 1, Valid: true}}},
		{"SCRU128 zero", pgtype.UUIDOID, idtype.SCRU128{}, idtype.SCRU128{}},
		{"SCRU128 max", pgtype.UUIDOID, idtype.MaxSCRU128, idtype.MaxSCRU128},
		{"*SCRU128", pgtype.UUIDOID, &scruPtr, someSCRU128},
		{"NullSCRU128", pgtype.UUIDOID, idtype.NullSCRU128{V: someSCRU128, Valid: true}, idtype.NullSCRU128{V: someSCRU128, Valid: true}},
		{"NullSCRU128 NULL", pgtype.UUIDOID, idtype.NullSCRU128{}, idtype.NullSCRU128{}},
		{"NullSCRU128 NULL as bytea", pgtype.ByteaOID, idtype.NullSCRU128{}, idtype.NullSCRU128{}},
		{"[]SCRU128", pgtype.UUIDArrayOID, []idtype.SCRU128{{}, someSCRU128, idtype.MaxSCRU128}, []idtype.SCRU128{{}, someSCRU128, idtype.MaxSCRU128}},
		{"SCRU128Bytes max", pgtype.ByteaOID, maxBytes, maxBytes},
		{"SCRU128Bytes zero", pgtype.ByteaOID, idtype.SCRU128Bytes{}, idtype.SCRU128Bytes{}},
		{"NullSCRU128Bytes", pgtype.ByteaOID, idtype.NullSCRU128Bytes{V: maxBytes, Valid: true}, idtype.NullSCRU128Bytes{V: maxBytes, Valid: true}},
		{"NullSCRU128Bytes NULL", pgtype.ByteaOID, idtype.NullSCRU128Bytes{}, idtype.NullSCRU128Bytes{}},
		{"[]*HUID", pgtype.Int8ArrayOID, []*idtype.HUID{nil, &huidPtr}, []*idtype.HUID{nil, &huidPtr}},
		{"[]*SCRU128", pgtype.UUIDArrayOID, []*idtype.SCRU128{&scruPtr, nil}, []*idtype.SCRU128{&scruPtr, nil}},
		{"[]SCRU128Bytes", pgtype.ByteaArrayOID, []idtype.SCRU128Bytes{maxBytes, {}}, []idtype.SCRU128Bytes{maxBytes, {}}},
	}
	m := newMap()
	for _, f := range formats {
		for _, c := range cases {
			t.Run(f.name+"/"+c.name, func(t *testing.T) {
				got := roundTrip(t, m, c.oid, f.code, c.value, reflect.TypeOf(c.want))
				if !reflect.DeepEqual(got, c.want) {
					t.Errorf("got %#v, want %#v", got, c.want)
				}
			})
		}
	}
}

// TestBinaryWireFormat checks the bytes sent: int8 and uuid as pgx sends
// int64 and pgtype.UUID, a SCRU128Bytes into bytea as its 16 raw bytes.
func TestBinaryWireFormat(t *testing.T) {
	t.Parallel()
	m := newMap()
	cases := []struct {
		name      string
		oid       uint32
		value, as any
	}{
		{"HUID", pgtype.Int8OID, someHUID, int64(someHUID)},
		{"SCRU128", pgtype.UUIDOID, someSCRU128, pgtype.UUID{Bytes: someSCRU128, Valid: true}},
		{"SCRU128Bytes", pgtype.ByteaOID, idtype.SCRU128Bytes(someSCRU128), someSCRU128[:]},
		{"[]HUID", pgtype.Int8ArrayOID, []idtype.HUID{someHUID}, []int64{int64(someHUID)}},
		{"[]SCRU128", pgtype.UUIDArrayOID, []idtype.SCRU128{someSCRU128}, []pgtype.UUID{{Bytes: someSCRU128, Valid: true}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := m.Encode(c.oid, pgtype.BinaryFormatCode, c.value, nil)
			if err != nil {
				t.Fatalf("Encode: %v", err)
			}
			want, err := m.Encode(c.oid, pgtype.BinaryFormatCode, c.as, nil)
			if err != nil {
				t.Fatalf("Encode %T: %v", c.as, err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("Encode(%T) = %x, want %x as for %T", c.value, got, want, c.as)
			}
		})
	}
}

func TestEncodeRejectsNegativeHUID(t *testing.T) {
	t.Parallel()
	neg := idtype.HUID(-1)
	cases := []struct {
		name  string
		oid   uint32
		value any
	}{
		{"HUID", pgtype.Int8OID, neg},
		{"*HUID", pgtype.Int8OID, &neg},
		{"NullHUID", pgtype.Int8OID, idtype.NullHUID{V: neg, Valid: true}},
		{"[]HUID", pgtype.Int8ArrayOID, []idtype.HUID{1, neg}},
		{"HUID, unknown OID", 0, neg},
		{"HUID into numeric", pgtype.NumericOID, neg},
	}
	m := newMap()
	for _, f := range formats {
		for _, c := range cases {
			t.Run(f.name+"/"+c.name, func(t *testing.T) {
				buf, err := m.Encode(c.oid, f.code, c.value, nil)
				if !errors.Is(err, idtype.ErrInvalidHUID) {
					t.Errorf("Encode(%#v) = %q, %v; want an error wrapping ErrInvalidHUID", c.value, buf, err)
				}
			})
		}
	}
}

func TestScanRejectsBadData(t *testing.T) {
	t.Parallel()
	m := newMap()
	encode := func(oid uint32, format int16, v any) []byte {
		buf, err := m.Encode(oid, format, v, []byte{})
		if err != nil {
			t.Fatalf("Encode(%v): %v", v, err)
		}
		return buf
	}
	cases := []struct {
		name   string
		oid    uint32
		src    any // encoded with the built-in codec; nil is NULL
		target any
		want   error
	}{
		{"negative int8 into HUID", pgtype.Int8OID, int64(-1), new(idtype.HUID), idtype.ErrInvalidHUID},
		{"min int8 into NullHUID", pgtype.Int8OID, int64(-1 << 63), new(idtype.NullHUID), idtype.ErrInvalidHUID},
		{"negative element into []HUID", pgtype.Int8ArrayOID, []int64{1, -2}, new([]idtype.HUID), idtype.ErrInvalidHUID},
		{"NULL into HUID", pgtype.Int8OID, nil, new(idtype.HUID), idtype.ErrNull},
		{"NULL element into []HUID", pgtype.Int8ArrayOID, []*int64{nil}, new([]idtype.HUID), idtype.ErrNull},
		{"NULL into SCRU128", pgtype.UUIDOID, nil, new(idtype.SCRU128), idtype.ErrNull},
		{"NULL element into []SCRU128", pgtype.UUIDArrayOID, []pgtype.UUID{{}}, new([]idtype.SCRU128), idtype.ErrNull},
		{"NULL bytea into SCRU128", pgtype.ByteaOID, nil, new(idtype.SCRU128), idtype.ErrNull},
		{"NULL into SCRU128Bytes", pgtype.ByteaOID, nil, new(idtype.SCRU128Bytes), idtype.ErrNull},
		{"15 bytes into SCRU128Bytes", pgtype.ByteaOID, make([]byte, 15), new(idtype.SCRU128Bytes), idtype.ErrInvalidSCRU128},
		{"17 bytes into NullSCRU128Bytes", pgtype.ByteaOID, make([]byte, 17), new(idtype.NullSCRU128Bytes), idtype.ErrInvalidSCRU128},
		{"empty bytea into SCRU128Bytes", pgtype.ByteaOID, []byte{}, new(idtype.SCRU128Bytes), idtype.ErrInvalidSCRU128},
		{"15 bytes into SCRU128", pgtype.ByteaOID, make([]byte, 15), new(idtype.SCRU128), idtype.ErrInvalidSCRU128},
		{"36 bytes of UUID text into SCRU128Bytes", pgtype.ByteaOID, []byte(someSCRU128.UUIDString()), new(idtype.SCRU128Bytes), idtype.ErrInvalidSCRU128},
		{"36 bytes of UUID text into NullSCRU128Bytes", pgtype.ByteaOID, []byte(someSCRU128.UUIDString()), new(idtype.NullSCRU128Bytes), idtype.ErrInvalidSCRU128},
		{"15 bytes into NullSCRU128", pgtype.ByteaOID, make([]byte, 15), new(idtype.NullSCRU128), idtype.ErrInvalidSCRU128},
	}
	for _, f := range formats {
		for _, c := range cases {
			t.Run(f.name+"/"+c.name, func(t *testing.T) {
				var src []byte
				if c.src != nil {
					src = encode(c.oid, f.code, c.src)
				}
				err := m.Scan(c.oid, f.code, src, c.target)
				if !errors.Is(err, c.want) {
					t.Errorf("Scan(%q) into %T = %v, want an error wrapping %v", src, c.target, err, c.want)
				}
			})
		}
	}
}

// TestScanByteaLengthNamed checks that the error for a bytea of the wrong
// length names that length, for each bytea-form target and each format.
func TestScanByteaLengthNamed(t *testing.T) {
	t.Parallel()
	m := newMap()
	for _, n := range []int{0, 15, 17, 36} {
		for _, target := range []any{new(idtype.SCRU128Bytes), new(idtype.NullSCRU128Bytes)} {
			for _, f := range formats {
				src, err := m.Encode(pgtype.ByteaOID, f.code, make([]byte, n), []byte{})
				if err != nil {
					t.Fatalf("Encode: %v", err)
				}
				err = m.Scan(pgtype.ByteaOID, f.code, src, target)
				if want := fmt.Sprintf("has %d bytes; want exactly 16", n); err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("%s: %d bytes into %T = %v, want an error containing %q", f.name, n, target, err, want)
				}
			}
		}
	}
}

// TestScanByteaIntoSCRU128 checks that with Register a bytea scans into the
// uuid form exactly as SCRU128.Scan and NullSCRU128.Scan take it without:
// 16 raw bytes, or the text of the UUID or base32 form.
func TestScanByteaIntoSCRU128(t *testing.T) {
	t.Parallel()
	m := newMap()
	for _, src := range [][]byte{someSCRU128[:], []byte(someSCRU128.UUIDString()), []byte(someSCRU128.String())} {
		for _, f := range formats {
			buf, err := m.Encode(pgtype.ByteaOID, f.code, src, []byte{})
			if err != nil {
				t.Fatalf("Encode: %v", err)
			}
			var id, viaScan idtype.SCRU128
			var n, nViaScan idtype.NullSCRU128
			errs := []error{m.Scan(pgtype.ByteaOID, f.code, buf, &id), viaScan.Scan(src),
				m.Scan(pgtype.ByteaOID, f.code, buf, &n), nViaScan.Scan(src)}
			if errors.Join(errs...) != nil || id != someSCRU128 || viaScan != id || n != nViaScan || n.V != someSCRU128 {
				t.Errorf("%s: bytea %q scanned %v, %v (Scan: %v, %v), errors %v; want %v", f.name, src, id, n, viaScan, nViaScan, errs, someSCRU128)
			}
		}
	}
}

// TestEncodeRejectsWrongForm checks that a SCRU128 form bound to the other
// column form fails, in both formats, alone, behind a pointer and in a
// slice, with an error naming the column type and the type to use, while
// NULL of either form is sent as NULL.
func TestEncodeRejectsWrongForm(t *testing.T) {
	t.Parallel()
	asBytes := idtype.SCRU128Bytes(someSCRU128)
	cases := []struct {
		oid   uint32
		value any
		want  string
	}{
		{pgtype.ByteaOID, someSCRU128, "idtype.SCRU128 cannot be stored in a bytea column; use idtype.SCRU128Bytes"},
		{pgtype.ByteaOID, &someSCRU128, "idtype.SCRU128 cannot be stored in a bytea column"},
		{pgtype.ByteaOID, idtype.NullSCRU128{V: someSCRU128, Valid: true}, "idtype.NullSCRU128 cannot be stored in a bytea column"},
		{pgtype.ByteaArrayOID, []idtype.SCRU128{someSCRU128}, "idtype.SCRU128 cannot be stored in a bytea column"},
		{pgtype.UUIDOID, asBytes, "idtype.SCRU128Bytes cannot be stored in a uuid column; use idtype.SCRU128"},
		{pgtype.UUIDOID, &asBytes, "idtype.SCRU128Bytes cannot be stored in a uuid column"},
		{pgtype.UUIDOID, idtype.NullSCRU128Bytes{V: asBytes, Valid: true}, "idtype.NullSCRU128Bytes cannot be stored in a uuid column"},
		{pgtype.UUIDArrayOID, []idtype.SCRU128Bytes{asBytes}, "idtype.SCRU128Bytes cannot be stored in a uuid column"},
	}
	m := newMap()
	for _, f := range formats {
		for _, c := range cases {
			buf, err := m.Encode(c.oid, f.code, c.value, nil)
			if !errors.Is(err, pgxtype.ErrColumnForm) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: Encode(%d, %T) = %q, %v; want ErrColumnForm saying %q", f.name, c.oid, c.value, buf, err, c.want)
			}
		}
		for _, c := range []struct {
			oid   uint32
			value any
		}{{pgtype.ByteaOID, idtype.NullSCRU128{}}, {pgtype.UUIDOID, idtype.NullSCRU128Bytes{}}} {
			if buf, err := m.Encode(c.oid, f.code, c.value, nil); buf != nil || err != nil {
				t.Errorf("%s: Encode(%d, NULL %T) = %q, %v; want NULL", f.name, c.oid, c.value, buf, err)
			}
		}
	}
}

func TestEncodeRejectsHUIDAsFloat(t *testing.T) {
	t.Parallel()
	big := idtype.MustParseHUID("60661340544791426") // a float8 would store 60661340544791424
	cases := []struct {
		oid   uint32
		value any
		want  string
	}{
		{pgtype.Float8OID, big, "idtype.HUID cannot be encoded as float8: it would lose precision above 2^53; use a bigint (int8) or numeric column"},
		{pgtype.Float8OID, idtype.HUID(7), "idtype.HUID cannot be encoded as float8"}, // refused by type, not by value
		{pgtype.Float4OID, big, "idtype.HUID cannot be encoded as float4: it would lose precision above 2^24; use a bigint (int8) or numeric column"},
		{pgtype.Float4OID, idtype.HUID(16777217), "idtype.HUID cannot be encoded as float4"}, // 2^24+1, the first integer a float4 rounds
		{pgtype.Float8OID, &big, "idtype.HUID cannot be encoded as float8"},
		{pgtype.Float8OID, idtype.NullHUID{V: big, Valid: true}, "idtype.NullHUID cannot be encoded as float8"},
		{pgtype.Float4OID, &idtype.NullHUID{V: big, Valid: true}, "idtype.NullHUID cannot be encoded as float4: it would lose precision above 2^24"},
		{pgtype.Float8ArrayOID, []idtype.HUID{big}, "idtype.HUID cannot be encoded as float8"},
		{pgtype.Float4ArrayOID, []idtype.NullHUID{{}, {V: big, Valid: true}}, "idtype.NullHUID cannot be encoded as float4"},
	}
	m := newMap()
	for _, f := range formats {
		for _, c := range cases {
			buf, err := m.Encode(c.oid, f.code, c.value, nil)
			if !errors.Is(err, pgxtype.ErrInexactColumn) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: Encode(%d, %T) = %q, %v; want ErrInexactColumn saying %q", f.name, c.oid, c.value, buf, err, c.want)
			}
		}
		for _, value := range []any{idtype.NullHUID{}, (*idtype.HUID)(nil)} {
			if buf, err := m.Encode(pgtype.Float8OID, f.code, value, nil); buf != nil || err != nil {
				t.Errorf("%s: Encode(float8, NULL %T) = %q, %v; want NULL", f.name, value, buf, err)
			}
		}
	}
}

// TestBuiltinTypesUnchanged checks that Register extends the int8, uuid,
// bytea, float4 and float8 codecs without changing what they do for other
// Go types.
func TestBuiltinTypesUnchanged(t *testing.T) {
	t.Parallel()
	m := newMap()
	cases := []struct {
		name  string
		oid   uint32
		value any
		want  any // DecodeValue result
	}{
		{"int8", pgtype.Int8OID, int64(-5), int64(-5)},
		{"uuid", pgtype.UUIDOID, pgtype.UUID{Bytes: someSCRU128, Valid: true}, [16]byte(someSCRU128)},
		{"bytea", pgtype.ByteaOID, []byte{1, 2, 3}, []byte{1, 2, 3}},
		{"int8[]", pgtype.Int8ArrayOID, []int64{1, -1}, []any{int64(1), int64(-1)}},
		{"float8", pgtype.Float8OID, 6.0661340544791424e+16, 6.0661340544791424e+16},
		{"float8 from int64", pgtype.Float8OID, int64(60661340544791426), 6.0661340544791424e+16},
		{"float4", pgtype.Float4OID, float32(1.5), float32(1.5)},
		{"float8[]", pgtype.Float8ArrayOID, []float64{1.5}, []any{1.5}},
	}
	for _, f := range formats {
		for _, c := range cases {
			t.Run(f.name+"/"+c.name, func(t *testing.T) {
				buf, err := m.Encode(c.oid, f.code, c.value, nil)
				if err != nil {
					t.Fatalf("Encode: %v", err)
				}
				typ, _ := m.TypeForOID(c.oid)
				got, err := typ.Codec.DecodeValue(m, c.oid, f.code, buf)
				if err != nil || !reflect.DeepEqual(got, c.want) {
					t.Errorf("DecodeValue = %#v, %v; want %#v", got, err, c.want)
				}
				var anyDst any
				if err := m.Scan(c.oid, f.code, buf, &anyDst); err != nil || !reflect.DeepEqual(anyDst, c.want) {
					t.Errorf("Scan into any = %#v, %v; want %#v", anyDst, err, c.want)
				}
			})
		}
	}
}

func TestRegisterIsIdempotent(t *testing.T) {
	t.Parallel()
	m := newMap()
	wraps := len(m.TryWrapEncodePlanFuncs)
	int8Type, _ := m.TypeForOID(pgtype.Int8OID)
	pgxtype.Register(m)
	again, _ := m.TypeForOID(pgtype.Int8OID)
	if len(m.TryWrapEncodePlanFuncs) != wraps || again != int8Type {
		t.Errorf("second Register changed the map: %d encode wrappers (was %d), int8 type %p (was %p)",
			len(m.TryWrapEncodePlanFuncs), wraps, again, int8Type)
	}
	if wraps != len(pgtype.NewMap().TryWrapEncodePlanFuncs)+1 {
		t.Errorf("Register added %d encode wrappers, want 1", wraps-len(pgtype.NewMap().TryWrapEncodePlanFuncs))
	}
}

// TestDefaultPgTypes checks the types used when the server gives no OID
// (QueryExecModeExec and QueryExecModeSimpleProtocol).
func TestDefaultPgTypes(t *testing.T) {
	t.Parallel()
	m := newMap()
	cases := []struct {
		value any
		want  string
	}{
		{idtype.HUID(0), "int8"},
		{idtype.NullHUID{}, "int8"},
		{idtype.SCRU128{}, "uuid"},
		{idtype.NullSCRU128{}, "uuid"},
		{idtype.SCRU128Bytes{}, "bytea"},
		{idtype.NullSCRU128Bytes{}, "bytea"},
		{[]idtype.HUID{}, "_int8"},
		{[]idtype.NullHUID{}, "_int8"},
		{[]idtype.SCRU128{}, "_uuid"},
		{[]idtype.NullSCRU128{}, "_uuid"},
		{[]idtype.SCRU128Bytes{}, "_bytea"},
		{[]idtype.NullSCRU128Bytes{}, "_bytea"},
		{new(idtype.HUID), "int8"},
		{new([]idtype.HUID), "_int8"},
		{[]*idtype.SCRU128{}, "_uuid"},
		{new([]*idtype.NullSCRU128Bytes), "_bytea"},
	}
	for _, c := range cases {
		typ, ok := m.TypeForValue(c.value)
		if !ok || typ.Name != c.want {
			t.Errorf("TypeForValue(%T) = %v, %v; want %s", c.value, typ, ok, c.want)
		}
	}
	// Text with OID 0 is what QueryExecModeExec sends.
	for _, c := range []struct {
		value any
		want  string
	}{
		{someHUID, "258037077"},
		{someSCRU128, someSCRU128.UUIDString()},
		{idtype.SCRU128Bytes(someSCRU128), `\x` + "00d2fb003ddb7f58cbbe5cf2f04425b2"},
		{[]idtype.HUID{1, 2}, "{1,2}"},
		{idtype.NullHUID{}, ""},
	} {
		buf, err := m.Encode(0, pgtype.TextFormatCode, c.value, nil)
		if err != nil || string(buf) != c.want {
			t.Errorf("Encode(0, text, %#v) = %q, %v; want %q", c.value, buf, err, c.want)
		}
	}
}

// TestScanRejectsShortBinary feeds the binary fast paths wire data of the
// wrong length, which no server sends but a broken proxy might.
func TestScanRejectsShortBinary(t *testing.T) {
	t.Parallel()
	m := newMap()
	if err := m.Scan(pgtype.Int8OID, pgtype.BinaryFormatCode, make([]byte, 7), new(idtype.HUID)); !errors.Is(err, idtype.ErrInvalidHUID) {
		t.Errorf("7-byte int8 into HUID: %v, want ErrInvalidHUID", err)
	}
	if err := m.Scan(pgtype.UUIDOID, pgtype.BinaryFormatCode, make([]byte, 15), new(idtype.SCRU128)); !errors.Is(err, idtype.ErrInvalidSCRU128) {
		t.Errorf("15-byte uuid into SCRU128: %v, want ErrInvalidSCRU128", err)
	}
	var h idtype.HUID
	if err := m.Scan(pgtype.Int8OID, pgtype.BinaryFormatCode, []byte{0, 0, 0, 0, 0, 0, 1, 0}, &h); err != nil || h != 256 {
		t.Errorf("binary int8 256 into HUID: %d, %v", h, err)
	}
}
