package idtype

import (
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// Each fuzz target is seeded from the package's vector tables and checks
// that input is either rejected with the right sentinel or round-trips.

func FuzzParseHUID(f *testing.F) {
	for _, v := range huidVectors {
		f.Add(v.decimal)
		f.Add(v.padded)
	}
	for _, b := range badHUIDText {
		f.Add(b.in)
	}
	for _, b := range badCharText {
		f.Add(b.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := ParseHUID(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidHUID) {
				t.Fatalf("ParseHUID(%q) error %v does not wrap ErrInvalidHUID", s, err)
			}
			return
		}
		if h < 0 {
			t.Fatalf("ParseHUID(%q) = %d, negative", s, h)
		}
		if back, err := ParseHUID(h.String()); err != nil || back != h {
			t.Fatalf("String round trip of %d: %d, %v", h, back, err)
		}
		if back, err := ParseHUID(h.PaddedString()); err != nil || back != h || len(h.PaddedString()) != 19 {
			t.Fatalf("PaddedString round trip of %d: %d, %v", h, back, err)
		}
		if strings.TrimLeft(s, "0") != strings.TrimLeft(h.String(), "0") {
			t.Fatalf("ParseHUID(%q) = %d changed the digits", s, h)
		}
	})
}

func FuzzParseSCRU128(f *testing.F) {
	for _, v := range scru128Vectors {
		f.Add(v.text)
		f.Add(v.uuid)
	}
	for _, b := range badSCRU128Text {
		f.Add(b.in)
	}
	for _, b := range badCharText {
		f.Add(b.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := ParseSCRU128(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidSCRU128) {
				t.Fatalf("ParseSCRU128(%q) error %v does not wrap ErrInvalidSCRU128", s, err)
			}
			return
		}
		canonical := id.String()
		if len(s) == 26 && !strings.EqualFold(s, canonical) {
			t.Fatalf("ParseSCRU128(%q) = %s, not the same text", s, canonical)
		}
		if len(s) == 36 && !strings.EqualFold(s, id.UUIDString()) {
			t.Fatalf("ParseSCRU128(%q) = %s, not the same UUID", s, id.UUIDString())
		}
		for _, form := range []string{canonical, id.UUIDString()} {
			if back, err := ParseSCRU128(form); err != nil || back != id {
				t.Fatalf("round trip of %q via %q: %v, %v", s, form, back, err)
			}
		}
	})
}

func FuzzHUIDScan(f *testing.F) {
	for _, v := range huidVectors {
		f.Add(int64(v.value), v.decimal, true)
	}
	for _, b := range badHUIDText {
		f.Add(int64(-1), b.in, false)
	}
	f.Add(int64(-1), "", true)
	f.Fuzz(func(t *testing.T, n int64, s string, useInt bool) {
		var src any = []byte(s)
		if useInt {
			src = n
			checkOwnTypeScan[HUID, NullHUID](t, HUID(n), n)
		}
		var h HUID
		if err := h.Scan(src); err != nil {
			if !errors.Is(err, ErrInvalidHUID) {
				t.Fatalf("Scan(%v) error %v does not wrap ErrInvalidHUID", src, err)
			}
			return
		}
		v, err := h.Value()
		if err != nil {
			t.Fatalf("Value of scanned %d: %v", h, err)
		}
		var back HUID
		if err := back.Scan(v); err != nil || back != h {
			t.Fatalf("Scan/Value round trip of %d: %d, %v", h, back, err)
		}
	})
}

func FuzzSCRU128Scan(f *testing.F) {
	for _, v := range scru128Vectors {
		id := MustParseSCRU128(v.text)
		f.Add(id[:])
		f.Add([]byte(v.uuid))
		f.Add([]byte(v.text))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var id SCRU128
		if err := id.Scan(b); err != nil {
			if !errors.Is(err, ErrInvalidSCRU128) {
				t.Fatalf("Scan(%q) error %v does not wrap ErrInvalidSCRU128", b, err)
			}
			return
		}
		checkOwnTypeScan[SCRU128, NullSCRU128](t, id, id[:])
		checkOwnTypeScan[SCRU128Bytes, NullSCRU128Bytes](t, SCRU128Bytes(id), id[:])
		v, _ := id.Value()
		var back SCRU128
		if err := back.Scan(v); err != nil || back != id {
			t.Fatalf("Scan/Value round trip of %s: %v, %v", id, back, err)
		}
		var raw SCRU128Bytes
		rv, _ := SCRU128Bytes(id).Value()
		if err := raw.Scan(rv); err != nil || raw.ID() != id {
			t.Fatalf("SCRU128Bytes round trip of %s: %v, %v", id, raw, err)
		}
	})
}

func FuzzHUIDUnmarshalJSON(f *testing.F) {
	for _, v := range huidVectors {
		f.Add(`"` + v.decimal + `"`)
		f.Add(v.decimal)
	}
	for _, b := range badHUIDJSON {
		f.Add(b.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var h HUID
		if err := h.UnmarshalJSON([]byte(s)); err != nil {
			if !errors.Is(err, ErrInvalidHUID) && !errors.Is(err, ErrNull) {
				t.Fatalf("UnmarshalJSON(%s) error %v wraps no sentinel", s, err)
			}
			return
		}
		out, err := json.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		var back HUID
		if err := json.Unmarshal(out, &back); err != nil || back != h {
			t.Fatalf("JSON round trip of %d via %s: %d, %v", h, out, back, err)
		}
		var n NullHUID
		if err := n.UnmarshalJSON([]byte(s)); err != nil || !n.Valid || n.V != h {
			t.Fatalf("NullHUID disagrees on %s: %+v, %v", s, n, err)
		}
	})
}

func FuzzSCRU128UnmarshalJSON(f *testing.F) {
	for _, v := range scru128Vectors {
		f.Add(`"` + v.text + `"`)
		f.Add(`"` + v.uuid + `"`)
	}
	for _, b := range badSCRU128JSON {
		f.Add(b.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var id SCRU128
		if err := id.UnmarshalJSON([]byte(s)); err != nil {
			if !errors.Is(err, ErrInvalidSCRU128) && !errors.Is(err, ErrNull) {
				t.Fatalf("UnmarshalJSON(%s) error %v wraps no sentinel", s, err)
			}
			return
		}
		out, _ := json.Marshal(id)
		var back SCRU128
		if err := json.Unmarshal(out, &back); err != nil || back != id {
			t.Fatalf("JSON round trip of %s: %v, %v", id, back, err)
		}
	})
}

func FuzzUnmarshalBinary(f *testing.F) {
	for _, v := range huidVectors {
		b, _ := v.value.MarshalBinary()
		f.Add(b)
	}
	for _, b := range badHUIDBinary {
		f.Add(b)
	}
	for _, v := range scru128Vectors {
		id := MustParseSCRU128(v.text)
		f.Add(id[:])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var h HUID
		if err := h.UnmarshalBinary(b); err != nil {
			if !errors.Is(err, ErrInvalidHUID) {
				t.Fatalf("HUID.UnmarshalBinary(%x) error %v", b, err)
			}
		} else if out, err := h.MarshalBinary(); err != nil || string(out) != string(b) {
			t.Fatalf("HUID binary round trip of %x: %x, %v", b, out, err)
		}
		var id SCRU128
		if err := id.UnmarshalBinary(b); err != nil {
			if !errors.Is(err, ErrInvalidSCRU128) || len(b) == 16 {
				t.Fatalf("SCRU128.UnmarshalBinary(%x) error %v", b, err)
			}
		} else if out, _ := id.MarshalBinary(); string(out) != string(b) {
			t.Fatalf("SCRU128 binary round trip of %x: %x", b, out)
		}
	})
}

// FuzzSCRU128GenerateAt: for any time, GenerateAt either makes an ID of that
// time truncated to the millisecond, twice in a row with the counter going up
// by 1, or refuses with an error wrapping ErrTimeOutOfRange that names the
// time, exactly when the millisecond lies outside 1 to 2^44-2 ms after
// 2020-01-01 (worked out here from the Unix seconds, not as GenerateAt does).
func FuzzSCRU128GenerateAt(f *testing.F) {
	for _, tc := range scru128AtTimes {
		f.Add(tc.t.Unix(), int64(tc.t.Nanosecond()))
	}
	f.Fuzz(func(t *testing.T, sec, nsec int64) {
		when := time.Unix(sec, nsec)
		const first, last = SCRU128EpochMillis + 1, SCRU128EpochMillis + SCRU128MaxTimestamp - 1
		unixSec := when.Unix()
		ms := unixSec*1000 + int64(when.Nanosecond())/1e6 // used only where it cannot overflow
		inWindow := unixSec >= first/1000 && unixSec <= last/1000 && ms >= first && ms <= last
		g := NewSCRU128Generator(WithRandom(chacha(14)))
		a, err := g.GenerateAt(when)
		if !inWindow {
			if !errors.Is(err, ErrTimeOutOfRange) || !strings.Contains(err.Error(), when.UTC().Format(time.RFC3339Nano)) {
				t.Fatalf("GenerateAt(%v) = %s, %v; want an error wrapping ErrTimeOutOfRange naming the time", when, a, err)
			}
			return
		}
		if err != nil || !a.Time().Equal(when.Truncate(time.Millisecond)) || a.Time().UnixMilli() != ms {
			t.Fatalf("GenerateAt(%v) = %s (time %v), %v; want time %v", when, a, a.Time(), err, when.Truncate(time.Millisecond))
		}
		b, err := g.GenerateAt(when)
		if err != nil || b.Timestamp() != a.Timestamp() || b.Counter() != a.Counter()+1 || b.Compare(a) <= 0 {
			t.Fatalf("second GenerateAt(%v) = %s, %v after %s; want the counter + 1", when, b, err, a)
		}
	})
}

// checkOwnTypeScan checks that Scan of x and of &x, into a T and into its
// Null type N, gives what Scan of the database value dbv into a T gives:
// the same value, or an error wrapping the same sentinel.
func checkOwnTypeScan[T comparable, N interface{ id() (T, bool) }](t *testing.T, x T, dbv any) {
	t.Helper()
	var want T
	wantErr := sentinelOf(any(&want).(sql.Scanner).Scan(dbv))
	for _, src := range []any{x, &x} {
		var got T
		err := sentinelOf(any(&got).(sql.Scanner).Scan(src))
		var n N
		nErr := sentinelOf(any(&n).(sql.Scanner).Scan(src))
		v, ok := n.id()
		if err != wantErr || got != want || nErr != wantErr || v != want || ok != (wantErr == nil) {
			t.Fatalf("Scan(%T %v) = %v, %v, into %T %v, %v; Scan(%T %v) = %v, %v",
				src, x, got, err, n, n, nErr, dbv, dbv, want, wantErr)
		}
	}
}

// sentinelOf returns the idtype sentinel err wraps, or err if none.
func sentinelOf(err error) error {
	for _, s := range []error{ErrInvalidHUID, ErrInvalidSCRU128, ErrNull, ErrUnsupportedType} {
		if errors.Is(err, s) {
			return s
		}
	}
	return err
}
