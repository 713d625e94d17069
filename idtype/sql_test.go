package idtype

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestHUIDScanAndValue(t *testing.T) {
	t.Parallel()
	for _, v := range huidVectors {
		val, err := v.value.Value()
		if err != nil || val != int64(v.value) {
			t.Errorf("Value(%d) = %v, %v; want int64", v.value, val, err)
		}
		for _, src := range []any{int64(v.value), uint64(v.value), v.decimal, []byte(v.decimal), v.padded} {
			var h HUID
			if err := h.Scan(src); err != nil || h != v.value {
				t.Errorf("Scan(%T %v) = %d, %v; want %d", src, src, h, err, v.value)
			}
		}
	}
}

// badHUIDScan holds database values HUID.Scan must reject.
var badHUIDScan = []struct {
	src  any
	want error
}{
	{int64(-1), ErrInvalidHUID},
	{int64(-1 << 63), ErrInvalidHUID},
	{uint64(1 << 63), ErrInvalidHUID},
	{"-5", ErrInvalidHUID},
	{[]byte("12a"), ErrInvalidHUID},
	{"", ErrInvalidHUID},
	{nil, ErrNull},
	{1.5, ErrUnsupportedType},
	{float64(7), ErrUnsupportedType},
	{true, ErrUnsupportedType},
	{time.Unix(0, 0), ErrUnsupportedType},
	{int32(5), ErrUnsupportedType},
}

func TestHUIDScanRejects(t *testing.T) {
	t.Parallel()
	for _, tc := range badHUIDScan {
		h := HUID(42)
		err := h.Scan(tc.src)
		if !errors.Is(err, tc.want) || h != 42 {
			t.Errorf("Scan(%T %v) = %d, %v; want %v and no change", tc.src, tc.src, h, err, tc.want)
		}
	}
	var h HUID
	err := h.Scan(1.5)
	if err == nil || !strings.Contains(err.Error(), "float64") || !strings.Contains(err.Error(), "1.5") {
		t.Errorf("error %q should name the Go type and value", err)
	}
}

func TestSCRU128ScanAndValue(t *testing.T) {
	t.Parallel()
	for _, v := range scru128Vectors {
		id := MustParseSCRU128(v.text)
		val, err := id.Value()
		if err != nil || val != v.uuid {
			t.Errorf("Value(%s) = %v, %v; want the UUID form %s", v.text, val, err, v.uuid)
		}
		for _, src := range []any{id[:], v.uuid, []byte(v.uuid), v.text, []byte(strings.ToLower(v.text))} {
			var got SCRU128
			if err := got.Scan(src); err != nil || got != id {
				t.Errorf("Scan(%T %v) = %v, %v; want %s", src, src, got, err, v.text)
			}
		}
		var b SCRU128Bytes
		raw, err := SCRU128Bytes(id).Value()
		if err != nil || string(raw.([]byte)) != string(id[:]) {
			t.Errorf("SCRU128Bytes.Value = %x, %v", raw, err)
		}
		if err := b.Scan(raw); err != nil || b.ID() != id {
			t.Errorf("SCRU128Bytes.Scan = %v, %v", b, err)
		}
	}
}

// badSCRU128Scan holds database values SCRU128.Scan must reject.
var badSCRU128Scan = []struct {
	src  any
	want error
}{
	{[]byte{}, ErrInvalidSCRU128},
	{make([]byte, 15), ErrInvalidSCRU128},
	{make([]byte, 17), ErrInvalidSCRU128},
	{"0123456789abcdef", ErrInvalidSCRU128}, // 16 characters of text are not raw bytes
	{"not a uuid", ErrInvalidSCRU128},
	{"80000000000000000000000000", ErrInvalidSCRU128},
	{nil, ErrNull},
	{int64(1), ErrUnsupportedType},
	{[16]byte{}, ErrUnsupportedType},
}

func TestSCRU128ScanRejects(t *testing.T) {
	t.Parallel()
	for _, tc := range badSCRU128Scan {
		id := MaxSCRU128
		if err := id.Scan(tc.src); !errors.Is(err, tc.want) || id != MaxSCRU128 {
			t.Errorf("Scan(%T %v) = %v, %v; want %v and no change", tc.src, tc.src, id, err, tc.want)
		}
	}
}

// badSCRU128BytesScan holds database values SCRU128Bytes.Scan must reject:
// only 16 raw bytes are a bytea SCRU128.
var badSCRU128BytesScan = []struct {
	src  any
	want error
}{
	{make([]byte, 15), ErrInvalidSCRU128},
	{[]byte("00d2fb00-3ddb-7f58-cbbe-5cf2f04425b2"), ErrInvalidSCRU128},
	{"00d2fb00-3ddb-7f58-cbbe-5cf2f04425b2", ErrUnsupportedType},
	{nil, ErrNull},
}

func TestSCRU128BytesScanRejects(t *testing.T) {
	t.Parallel()
	for _, tc := range badSCRU128BytesScan {
		b := SCRU128Bytes(MaxSCRU128)
		if err := b.Scan(tc.src); !errors.Is(err, tc.want) || b != SCRU128Bytes(MaxSCRU128) {
			t.Errorf("SCRU128Bytes.Scan(%T %v) = %v, %v; want %v and no change", tc.src, tc.src, b, err, tc.want)
		}
	}
}

func TestNullScanAndValue(t *testing.T) {
	t.Parallel()
	var nh NullHUID
	if err := nh.Scan(nil); err != nil || nh.Valid {
		t.Fatalf("NullHUID.Scan(nil) = %+v, %v", nh, err)
	}
	if v, err := nh.Value(); v != nil || err != nil {
		t.Fatalf("invalid NullHUID.Value() = %v, %v; want nil", v, err)
	}
	if err := nh.Scan(int64(7)); err != nil || !nh.Valid || nh.V != 7 {
		t.Fatalf("NullHUID.Scan(7) = %+v, %v", nh, err)
	}
	if v, err := nh.Value(); v != int64(7) || err != nil {
		t.Fatalf("NullHUID.Value() = %v, %v", v, err)
	}
	if err := nh.Scan(int64(-7)); !errors.Is(err, ErrInvalidHUID) {
		t.Fatalf("NullHUID.Scan(-7) = %v", err)
	}
	if _, err := (NullHUID{V: -1, Valid: true}).Value(); !errors.Is(err, ErrInvalidHUID) {
		t.Fatalf("NullHUID{-1}.Value() = %v", err)
	}

	id := MustParseSCRU128("00QBTG0FERFTCCNFISUBO489DI")
	var ns NullSCRU128
	if err := ns.Scan(nil); err != nil || ns.Valid {
		t.Fatalf("NullSCRU128.Scan(nil) = %+v, %v", ns, err)
	}
	if err := ns.Scan(id.UUIDString()); err != nil || !ns.Valid || ns.V != id {
		t.Fatalf("NullSCRU128.Scan = %+v, %v", ns, err)
	}
	if v, err := ns.Value(); v != id.UUIDString() || err != nil {
		t.Fatalf("NullSCRU128.Value() = %v, %v", v, err)
	}
	if v, err := (NullSCRU128{}).Value(); v != nil || err != nil {
		t.Fatalf("invalid NullSCRU128.Value() = %v, %v", v, err)
	}
	if err := ns.Scan(make([]byte, 3)); !errors.Is(err, ErrInvalidSCRU128) {
		t.Fatalf("NullSCRU128.Scan(3 bytes) = %v", err)
	}

	var nb NullSCRU128Bytes
	if err := nb.Scan(nil); err != nil || nb.Valid {
		t.Fatalf("NullSCRU128Bytes.Scan(nil) = %+v, %v", nb, err)
	}
	if err := nb.Scan(id[:]); err != nil || !nb.Valid || nb.V.ID() != id {
		t.Fatalf("NullSCRU128Bytes.Scan = %+v, %v", nb, err)
	}
	v, err := nb.Value()
	if raw, ok := v.([]byte); !ok || string(raw) != string(id[:]) || err != nil {
		t.Fatalf("NullSCRU128Bytes.Value() = %v, %v", v, err)
	}
	if v, err := (NullSCRU128Bytes{}).Value(); v != nil || err != nil {
		t.Fatalf("invalid NullSCRU128Bytes.Value() = %v, %v", v, err)
	}
}

// The Valuers must produce values database/sql accepts without conversion.
func TestValuesAreDriverValues(t *testing.T) {
	t.Parallel()
	id := NewSCRU128()
	for _, v := range []driver.Valuer{HUID(1), id, SCRU128Bytes(id), NullHUID{}, NullSCRU128{}, NullSCRU128Bytes{}} {
		val, err := v.Value()
		if err != nil || !driver.IsValue(val) {
			t.Errorf("%T.Value() = %T, %v; not a driver.Value", v, val, err)
		}
	}
}

// ownTypeScan holds the idtype values Scan takes besides database values
// (ent's bulk create scans IDs as *T), and what each target makes of them.
// Every target starts as the row's before; a rejected src leaves it so.
var ownTypeScan = func() []struct {
	name        string
	before, src any // before is a pointer to the target
	want        any // the target's value after Scan
	err         error
} {
	h, s := MustParseHUID("258037077"), MustParseSCRU128("00QBTG0FERFTCCNFISUBO489DI")
	b, neg := SCRU128Bytes(s), HUID(-1)
	hp, sp, bp := &h, &s, &b
	h42, smax, bmax := HUID(42), MaxSCRU128, SCRU128Bytes(MaxSCRU128)
	nh, ns, nb := NullHUID{h42, true}, NullSCRU128{smax, true}, NullSCRU128Bytes{bmax, true}
	type row = struct {
		name        string
		before, src any
		want        any
		err         error
	}
	return []row{
		{"HUID<-HUID", &h42, h, h, nil},
		{"HUID<-*HUID", &h42, hp, h, nil},
		{"HUID<-nil *HUID", &h42, (*HUID)(nil), h42, ErrNull},
		{"HUID<-negative HUID", &h42, neg, h42, ErrInvalidHUID},
		{"HUID<-*negative HUID", &h42, &neg, h42, ErrInvalidHUID},
		{"HUID<-**HUID", &h42, &hp, h42, ErrUnsupportedType},
		{"HUID<-NullHUID", &h42, NullHUID{h, true}, h42, ErrUnsupportedType},

		{"NullHUID<-HUID", &nh, h, NullHUID{h, true}, nil},
		{"NullHUID<-*HUID", &nh, hp, NullHUID{h, true}, nil},
		{"NullHUID<-nil *HUID", &nh, (*HUID)(nil), NullHUID{}, nil},
		{"NullHUID<-valid NullHUID", &nh, NullHUID{h, true}, NullHUID{h, true}, nil},
		{"NullHUID<-*valid NullHUID", &nh, &NullHUID{h, true}, NullHUID{h, true}, nil},
		{"NullHUID<-invalid NullHUID", &nh, NullHUID{h, false}, NullHUID{}, nil},
		{"NullHUID<-nil *NullHUID", &nh, (*NullHUID)(nil), NullHUID{}, nil},
		{"NullHUID<-negative HUID", &nh, neg, nh, ErrInvalidHUID},
		{"NullHUID<-valid negative NullHUID", &nh, NullHUID{neg, true}, nh, ErrInvalidHUID},
		{"NullHUID<-invalid negative NullHUID", &nh, NullHUID{neg, false}, NullHUID{}, nil},
		{"NullHUID<-NullSCRU128", &nh, NullSCRU128{s, true}, nh, ErrUnsupportedType},

		{"SCRU128<-SCRU128", &smax, s, s, nil},
		{"SCRU128<-*SCRU128", &smax, sp, s, nil},
		{"SCRU128<-nil *SCRU128", &smax, (*SCRU128)(nil), smax, ErrNull},
		{"SCRU128<-SCRU128Bytes", &smax, b, smax, ErrUnsupportedType},
		{"SCRU128<-NullSCRU128", &smax, NullSCRU128{s, true}, smax, ErrUnsupportedType},
		{"SCRU128<-**SCRU128", &smax, &sp, smax, ErrUnsupportedType},

		{"NullSCRU128<-SCRU128", &ns, s, NullSCRU128{s, true}, nil},
		{"NullSCRU128<-*SCRU128", &ns, sp, NullSCRU128{s, true}, nil},
		{"NullSCRU128<-nil *SCRU128", &ns, (*SCRU128)(nil), NullSCRU128{}, nil},
		{"NullSCRU128<-valid NullSCRU128", &ns, NullSCRU128{s, true}, NullSCRU128{s, true}, nil},
		{"NullSCRU128<-*valid NullSCRU128", &ns, &NullSCRU128{s, true}, NullSCRU128{s, true}, nil},
		{"NullSCRU128<-invalid NullSCRU128", &ns, NullSCRU128{s, false}, NullSCRU128{}, nil},
		{"NullSCRU128<-nil *NullSCRU128", &ns, (*NullSCRU128)(nil), NullSCRU128{}, nil},
		{"NullSCRU128<-SCRU128Bytes", &ns, b, ns, ErrUnsupportedType},
		{"NullSCRU128<-NullSCRU128Bytes", &ns, NullSCRU128Bytes{b, true}, ns, ErrUnsupportedType},

		{"SCRU128Bytes<-SCRU128Bytes", &bmax, b, b, nil},
		{"SCRU128Bytes<-*SCRU128Bytes", &bmax, bp, b, nil},
		{"SCRU128Bytes<-nil *SCRU128Bytes", &bmax, (*SCRU128Bytes)(nil), bmax, ErrNull},
		{"SCRU128Bytes<-SCRU128", &bmax, s, bmax, ErrUnsupportedType},
		{"SCRU128Bytes<-NullSCRU128Bytes", &bmax, NullSCRU128Bytes{b, true}, bmax, ErrUnsupportedType},

		{"NullSCRU128Bytes<-SCRU128Bytes", &nb, b, NullSCRU128Bytes{b, true}, nil},
		{"NullSCRU128Bytes<-*SCRU128Bytes", &nb, bp, NullSCRU128Bytes{b, true}, nil},
		{"NullSCRU128Bytes<-nil *SCRU128Bytes", &nb, (*SCRU128Bytes)(nil), NullSCRU128Bytes{}, nil},
		{"NullSCRU128Bytes<-valid NullSCRU128Bytes", &nb, NullSCRU128Bytes{b, true}, NullSCRU128Bytes{b, true}, nil},
		{"NullSCRU128Bytes<-*valid NullSCRU128Bytes", &nb, &NullSCRU128Bytes{b, true}, NullSCRU128Bytes{b, true}, nil},
		{"NullSCRU128Bytes<-invalid NullSCRU128Bytes", &nb, NullSCRU128Bytes{b, false}, NullSCRU128Bytes{}, nil},
		{"NullSCRU128Bytes<-nil *NullSCRU128Bytes", &nb, (*NullSCRU128Bytes)(nil), NullSCRU128Bytes{}, nil},
		{"NullSCRU128Bytes<-SCRU128", &nb, s, nb, ErrUnsupportedType},
	}
}()

func TestScanOwnTypes(t *testing.T) {
	t.Parallel()
	for _, tc := range ownTypeScan {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			target := reflect.New(reflect.TypeOf(tc.before).Elem())
			target.Elem().Set(reflect.ValueOf(tc.before).Elem())
			err := target.Interface().(sql.Scanner).Scan(tc.src)
			if tc.err == nil && err != nil || !errors.Is(err, tc.err) {
				t.Fatalf("Scan(%T %v) error %v; want %v", tc.src, tc.src, err, tc.err)
			}
			if got := target.Elem().Interface(); got != tc.want {
				t.Fatalf("Scan(%T %v) = %v; want %v", tc.src, tc.src, got, tc.want)
			}
		})
	}
}

// A nil pointer is NULL, and the error says so and names the Null type to use.
func TestScanNilPointerNamesRule(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		target sql.Scanner
		src    any
		want   string
	}{
		{new(HUID), (*HUID)(nil), "nil *HUID scanned into HUID (use NullHUID)"},
		{new(SCRU128), (*SCRU128)(nil), "nil *SCRU128 scanned into SCRU128 (use NullSCRU128)"},
		{new(SCRU128Bytes), (*SCRU128Bytes)(nil), "nil *SCRU128Bytes scanned into SCRU128Bytes (use NullSCRU128Bytes)"},
	} {
		if err := tc.target.Scan(tc.src); !errors.Is(err, ErrNull) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%T.Scan(nil pointer) = %v; want ErrNull saying %q", tc.target, err, tc.want)
		}
	}
}
