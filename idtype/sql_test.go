package idtype

import (
	"database/sql/driver"
	"errors"
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
	if err := nh.Scan(int64(7)); err != nil || !nh.Valid || nh.HUID != 7 {
		t.Fatalf("NullHUID.Scan(7) = %+v, %v", nh, err)
	}
	if v, err := nh.Value(); v != int64(7) || err != nil {
		t.Fatalf("NullHUID.Value() = %v, %v", v, err)
	}
	if err := nh.Scan(int64(-7)); !errors.Is(err, ErrInvalidHUID) {
		t.Fatalf("NullHUID.Scan(-7) = %v", err)
	}
	if _, err := (NullHUID{HUID: -1, Valid: true}).Value(); !errors.Is(err, ErrInvalidHUID) {
		t.Fatalf("NullHUID{-1}.Value() = %v", err)
	}

	id := MustParseSCRU128("00QBTG0FERFTCCNFISUBO489DI")
	var ns NullSCRU128
	if err := ns.Scan(nil); err != nil || ns.Valid {
		t.Fatalf("NullSCRU128.Scan(nil) = %+v, %v", ns, err)
	}
	if err := ns.Scan(id.UUIDString()); err != nil || !ns.Valid || ns.SCRU128 != id {
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
	if err := nb.Scan(id[:]); err != nil || !nb.Valid || nb.SCRU128.ID() != id {
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
