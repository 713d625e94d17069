package idtype

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestHUIDTextAndBinaryRoundTrip(t *testing.T) {
	t.Parallel()
	for _, v := range huidVectors {
		text, err := v.value.MarshalText()
		if err != nil || string(text) != v.decimal {
			t.Errorf("MarshalText(%d) = %q, %v", v.value, text, err)
		}
		var back HUID
		if err := back.UnmarshalText(text); err != nil || back != v.value {
			t.Errorf("UnmarshalText(%q) = %d, %v", text, back, err)
		}
		appended, err := v.value.AppendText([]byte("x"))
		if err != nil || string(appended) != "x"+v.decimal {
			t.Errorf("AppendText = %q, %v", appended, err)
		}
		bin, _ := v.value.MarshalBinary()
		back = -1
		if err := back.UnmarshalBinary(bin); err != nil || back != v.value {
			t.Errorf("UnmarshalBinary(%x) = %d, %v", bin, back, err)
		}
		appended, err = v.value.AppendBinary([]byte{0xaa})
		if err != nil || len(appended) != 9 || appended[0] != 0xaa || string(appended[1:]) != string(bin) {
			t.Errorf("AppendBinary = %x, %v", appended, err)
		}
	}
}

// badHUIDBinary holds byte strings UnmarshalBinary must reject.
var badHUIDBinary = [][]byte{
	nil,
	{},
	{0, 0, 0, 0, 0, 0, 0},
	{0, 0, 0, 0, 0, 0, 0, 0, 0},
	{0x80, 0, 0, 0, 0, 0, 0, 0},
	{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
}

func TestHUIDUnmarshalBinaryRejects(t *testing.T) {
	t.Parallel()
	for _, b := range badHUIDBinary {
		h := HUID(42)
		if err := h.UnmarshalBinary(b); !errors.Is(err, ErrInvalidHUID) || h != 42 {
			t.Errorf("UnmarshalBinary(%x) = %d, %v; want ErrInvalidHUID and no change", b, h, err)
		}
	}
}

func TestHUIDJSON(t *testing.T) {
	t.Parallel()
	out, err := json.Marshal(struct{ ID HUID }{MaxHUID})
	if err != nil || string(out) != `{"ID":"9223372036854775807"}` {
		t.Fatalf("json.Marshal = %s, %v; a HUID must be a JSON string", out, err)
	}
	good := map[string]HUID{
		`"258037077"`:           258037077,
		`258037077`:             258037077,
		`"0000000000258037077"`: 258037077,
		`"9223372036854775807"`: MaxHUID,
		`9007199254740992`:      1 << 53,
		`"9007199254740993"`:    1<<53 + 1,
		`"\u0031\u0032"`:        12,
		`0`:                     0,
	}
	for in, want := range good {
		var h HUID
		if err := json.Unmarshal([]byte(in), &h); err != nil || h != want {
			t.Errorf("json.Unmarshal(%s) = %d, %v; want %d", in, h, err, want)
		}
	}
}

// badHUIDJSON holds JSON values HUID.UnmarshalJSON must reject.
// badHUIDJSON holds JSON values HUID.UnmarshalJSON must reject, and words
// the error must contain: the rule broken or the forms accepted.
var badHUIDJSON = []struct {
	in    string
	want  error
	words string
}{
	{`null`, ErrNull, "NullHUID"},
	{`1.5`, ErrInvalidHUID, notJSONHUID},
	{`1.0`, ErrInvalidHUID, notJSONHUID},
	{`1e3`, ErrInvalidHUID, notJSONHUID},
	{`6.066124038600596e+16`, ErrInvalidHUID, notJSONHUID},
	{`-1`, ErrInvalidHUID, notJSONHUID},
	{`9007199254740993`, ErrInvalidHUID, aboveJSONNumber},
	{`60661240386005960`, ErrInvalidHUID, aboveJSONNumber},
	{`9223372036854775807`, ErrInvalidHUID, aboveJSONNumber},
	{`9223372036854775808`, ErrInvalidHUID, aboveJSONNumber},
	{`123456789012345678901234567890`, ErrInvalidHUID, aboveJSONNumber},
	{`"9223372036854775808"`, ErrInvalidHUID, "exceeds 2^63-1"},
	{`""`, ErrInvalidHUID, "empty"},
	{`" 1"`, ErrInvalidHUID, "decimal digits"},
	{`"-1"`, ErrInvalidHUID, "decimal digits"},
	{`"1e3"`, ErrInvalidHUID, "decimal digits"},
	{`true`, ErrInvalidHUID, notJSONHUID},
	{`[1]`, ErrInvalidHUID, notJSONHUID},
	{`{}`, ErrInvalidHUID, notJSONHUID},
}

const (
	notJSONHUID     = "want a JSON string of decimal digits, or an integer number at most 2^53"
	aboveJSONNumber = "exceeds 2^53 (9007199254740992), above which JavaScript rounds numbers; HUIDs above 2^53 travel as JSON strings"
)

func TestHUIDUnmarshalJSONRejects(t *testing.T) {
	t.Parallel()
	for _, tc := range badHUIDJSON {
		h := HUID(42)
		err := json.Unmarshal([]byte(tc.in), &h)
		if !errors.Is(err, tc.want) || h != 42 || !strings.Contains(fmt.Sprint(err), tc.words) {
			t.Errorf("json.Unmarshal(%s) = %d, %v; want %v saying %q, and no change", tc.in, h, err, tc.want, tc.words)
		}
		n := NullHUID{V: 42, Valid: true}
		err = json.Unmarshal([]byte(tc.in), &n)
		if tc.want == ErrNull {
			continue // null is a NullHUID's NULL
		}
		if !errors.Is(err, tc.want) || n != (NullHUID{V: 42, Valid: true}) || !strings.Contains(fmt.Sprint(err), tc.words) {
			t.Errorf("json.Unmarshal(%s) into NullHUID = %+v, %v; want %v saying %q, and no change", tc.in, n, err, tc.want, tc.words)
		}
	}
}

func TestSCRU128TextBinaryJSONRoundTrip(t *testing.T) {
	t.Parallel()
	for _, v := range scru128Vectors {
		id := MustParseSCRU128(v.text)
		text, _ := id.MarshalText()
		var back SCRU128
		if err := back.UnmarshalText(text); err != nil || back != id || string(text) != v.text {
			t.Errorf("text round trip of %s: %q → %v, %v", v.text, text, back, err)
		}
		bin, _ := id.MarshalBinary()
		back = SCRU128{}
		if err := back.UnmarshalBinary(bin); err != nil || back != id {
			t.Errorf("binary round trip of %s: %v, %v", v.text, back, err)
		}
		js, err := json.Marshal(id)
		if err != nil || string(js) != `"`+v.text+`"` {
			t.Errorf("json.Marshal(%s) = %s, %v", v.text, js, err)
		}
		back = SCRU128{}
		if err := json.Unmarshal(js, &back); err != nil || back != id {
			t.Errorf("json round trip of %s: %v, %v", v.text, back, err)
		}
		back = SCRU128{}
		if err := json.Unmarshal([]byte(`"`+v.uuid+`"`), &back); err != nil || back != id {
			t.Errorf("json.Unmarshal of UUID form %s: %v, %v", v.uuid, back, err)
		}
	}
}

// badSCRU128JSON holds JSON values SCRU128.UnmarshalJSON must reject.
var badSCRU128JSON = []struct {
	in   string
	want error
}{
	{`null`, ErrNull},
	{`1`, ErrInvalidSCRU128},
	{`""`, ErrInvalidSCRU128},
	{`"80000000000000000000000000"`, ErrInvalidSCRU128},
	{`"00QBTG0FERFTCCNFISUBO489D"`, ErrInvalidSCRU128},
	{`["00QBTG0FERFTCCNFISUBO489DI"]`, ErrInvalidSCRU128},
}

func TestSCRU128UnmarshalJSONRejects(t *testing.T) {
	t.Parallel()
	for _, tc := range badSCRU128JSON {
		id := MaxSCRU128
		if err := json.Unmarshal([]byte(tc.in), &id); !errors.Is(err, tc.want) || id != MaxSCRU128 {
			t.Errorf("json.Unmarshal(%s) = %v, %v; want %v and no change", tc.in, id, err, tc.want)
		}
	}
	for _, in := range badSCRU128Text {
		var id SCRU128
		if err := id.UnmarshalText([]byte(in.in)); !errors.Is(err, ErrInvalidSCRU128) {
			t.Errorf("UnmarshalText(%q) = %v", in.in, err)
		}
	}
}

func TestSCRU128UnmarshalBinaryRejects(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 15, 17, 36} {
		var id SCRU128
		if err := id.UnmarshalBinary(make([]byte, n)); !errors.Is(err, ErrInvalidSCRU128) || !strings.Contains(err.Error(), "16") {
			t.Errorf("UnmarshalBinary(%d bytes) = %v", n, err)
		}
	}
}

func TestNullJSON(t *testing.T) {
	t.Parallel()
	type row struct {
		H  NullHUID
		S  NullSCRU128
		SB NullSCRU128Bytes
	}
	id := MustParseSCRU128("00QBTG0FERFTCCNFISUBO489DI")
	full := row{NullHUID{258037077, true}, NullSCRU128{id, true}, NullSCRU128Bytes{SCRU128Bytes(id), true}}
	out, err := json.Marshal(full)
	want := `{"H":"258037077","S":"00QBTG0FERFTCCNFISUBO489DI","SB":"00QBTG0FERFTCCNFISUBO489DI"}`
	if err != nil || string(out) != want {
		t.Fatalf("json.Marshal = %s, %v; want %s", out, err, want)
	}
	var back row
	if err := json.Unmarshal(out, &back); err != nil || back != full {
		t.Fatalf("round trip = %+v, %v", back, err)
	}
	out, err = json.Marshal(row{})
	if err != nil || string(out) != `{"H":null,"S":null,"SB":null}` {
		t.Fatalf("json.Marshal of invalid = %s, %v", out, err)
	}
	back = full
	if err := json.Unmarshal(out, &back); err != nil || back != (row{}) {
		t.Fatalf("null round trip = %+v, %v", back, err)
	}
	if err := json.Unmarshal([]byte(`{"H":"x"}`), &back); !errors.Is(err, ErrInvalidHUID) {
		t.Fatalf("bad NullHUID JSON: %v", err)
	}
}
