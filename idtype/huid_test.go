package idtype

import (
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestHUIDVectors(t *testing.T) {
	t.Parallel()
	for _, v := range huidVectors {
		if got := v.value.String(); got != v.decimal {
			t.Errorf("HUID(%d).String() = %q, want %q", int64(v.value), got, v.decimal)
		}
		if got := v.value.PaddedString(); got != v.padded {
			t.Errorf("HUID(%d).PaddedString() = %q, want %q", int64(v.value), got, v.padded)
		}
		if got := v.value.Time().UnixMilli(); got != v.unixMilli {
			t.Errorf("HUID(%d).Time() = %d ms, want %d", int64(v.value), got, v.unixMilli)
		}
		if got := v.value.Random(); got != v.random {
			t.Errorf("HUID(%d).Random() = %d, want %d", int64(v.value), got, v.random)
		}
		for _, text := range []string{v.decimal, v.padded} {
			got, err := ParseHUID(text)
			if err != nil || got != v.value {
				t.Errorf("ParseHUID(%q) = %d, %v; want %d", text, got, err, v.value)
			}
		}
		built, err := HUIDFromParts(time.UnixMilli(v.unixMilli), v.random)
		if err != nil || built != v.value {
			t.Errorf("HUIDFromParts(%d, %d) = %d, %v; want %d", v.unixMilli, v.random, built, err, v.value)
		}
		bin, err := v.value.MarshalBinary()
		if err != nil || hex.EncodeToString(bin) != v.binary {
			t.Errorf("HUID(%d).MarshalBinary() = %x, %v; want %s", int64(v.value), bin, err, v.binary)
		}
	}
}

func TestHUIDSpecAppendixA(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 1, 0, 0, 0, 123_000_000, time.UTC)
	h, err := HUIDFromParts(at, 0x15555)
	if err != nil {
		t.Fatal(err)
	}
	if h != 258037077 {
		t.Fatalf("HUIDFromParts(2026-01-01T00:00:00.123Z, 0x15555) = %d, want 258037077", h)
	}
	if h.Timestamp() != 123 || h.Random() != 87381 || h.Time().UnixMilli() != 1767225600123 {
		t.Fatalf("decoding 258037077: timestamp %d random %d unix ms %d", h.Timestamp(), h.Random(), h.Time().UnixMilli())
	}
}

func TestParseHUIDRejects(t *testing.T) {
	t.Parallel()
	for _, tc := range badHUIDText {
		if h, err := ParseHUID(tc.in); !errors.Is(err, ErrInvalidHUID) {
			t.Errorf("ParseHUID(%q) [%s] = %d, %v; want ErrInvalidHUID", tc.in, tc.why, h, err)
		}
	}
}

// wrapsToHUIDEpoch is a time whose UnixMilli wraps around to the HUID
// epoch (2^61 s * 1000 is 0 mod 2^64): windows must be checked as times.
var wrapsToHUIDEpoch = time.Unix(1<<61+HUIDEpochMillis/1000, 0)

func TestHUIDFromPartsRejects(t *testing.T) {
	t.Parallel()
	epoch := time.UnixMilli(HUIDEpochMillis)
	last := time.UnixMilli(HUIDEpochMillis + HUIDMaxTimestamp)
	cases := []struct {
		t      time.Time
		random uint32
		want   error
	}{
		{epoch.Add(-time.Millisecond), 0, ErrTimeOutOfRange},
		{epoch.Add(-time.Nanosecond), 0, ErrTimeOutOfRange},
		{last.Add(time.Millisecond), 0, ErrTimeOutOfRange},
		{wrapsToHUIDEpoch, 0, ErrTimeOutOfRange},
		{epoch, 1 << 21, ErrInvalidHUID},
		{epoch, ^uint32(0), ErrInvalidHUID},
	}
	for _, tc := range cases {
		if h, err := HUIDFromParts(tc.t, tc.random); !errors.Is(err, tc.want) {
			t.Errorf("HUIDFromParts(%v, %d) = %d, %v; want %v", tc.t, tc.random, h, err, tc.want)
		}
	}
	// Both edges of the window are valid, and sub-millisecond time is dropped.
	if h, err := HUIDFromParts(epoch, 0); err != nil || h != 0 {
		t.Errorf("HUIDFromParts(epoch, 0) = %d, %v", h, err)
	}
	if h, err := HUIDFromParts(last.Add(999*time.Microsecond), HUIDMaxRandom); err != nil || h != MaxHUID {
		t.Errorf("HUIDFromParts(last ms, max) = %d, %v; want MaxHUID", h, err)
	}
}

func TestHUIDNegativeIsRejectedByEncoders(t *testing.T) {
	t.Parallel()
	h := HUID(-1)
	if h.Valid() {
		t.Error("HUID(-1).Valid() = true")
	}
	if _, err := h.MarshalText(); !errors.Is(err, ErrInvalidHUID) {
		t.Errorf("MarshalText: %v", err)
	}
	if _, err := h.MarshalBinary(); !errors.Is(err, ErrInvalidHUID) {
		t.Errorf("MarshalBinary: %v", err)
	}
	if _, err := h.MarshalJSON(); !errors.Is(err, ErrInvalidHUID) {
		t.Errorf("MarshalJSON: %v", err)
	}
	if _, err := h.Value(); !errors.Is(err, ErrInvalidHUID) {
		t.Errorf("Value: %v", err)
	}
	if _, err := ParseHUID(h.PaddedString()); err == nil {
		t.Errorf("the padded form of a negative HUID parses: %q", h.PaddedString())
	}
}

// TestHUIDPaddedOrder checks the spec §7.1 property: the 19-digit form sorts
// as the numbers do, while plain decimal does not.
func TestHUIDPaddedOrder(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	ids := make([]HUID, 2000)
	for i := range ids {
		ids[i] = HUID(r.Int64N(int64(MaxHUID)) >> r.IntN(63))
	}
	ids = append(ids, 0, MaxHUID, 9, 10, 99, 100)
	byText := slices.Clone(ids)
	slices.SortFunc(byText, func(a, b HUID) int { return strings.Compare(a.PaddedString(), b.PaddedString()) })
	byNumber := slices.Clone(ids)
	slices.Sort(byNumber)
	if !slices.Equal(byText, byNumber) {
		t.Fatal("sorting by PaddedString differs from numeric order")
	}
	if strings.Compare(HUID(9).String(), HUID(10).String()) < 0 {
		t.Fatal("plain decimal unexpectedly sorts numerically; the property test is not discriminating")
	}
}

func TestHUIDAppendPadded(t *testing.T) {
	t.Parallel()
	got := string(HUID(42).AppendPadded([]byte("id=")))
	if got != "id=0000000000000000042" {
		t.Fatalf("AppendPadded = %q", got)
	}
}

func TestMustParseHUIDPanics(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Fatal("MustParseHUID(\"x\") did not panic")
		}
	}()
	MustParseHUID("x")
}

func TestParseErrorsNameTheCharacter(t *testing.T) {
	t.Parallel()
	for _, tc := range badCharText {
		var err error
		if tc.scru {
			_, err = ParseSCRU128(tc.in)
		} else {
			_, err = ParseHUID(tc.in)
		}
		if err == nil || !strings.Contains(err.Error(), tc.named) {
			t.Errorf("parsing %q: error %v; want it to name %s", tc.in, err, tc.named)
		}
	}
}
