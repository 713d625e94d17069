package idtype

import (
	"cmp"
	"fmt"
	"strconv"
	"time"

	"github.com/sortid/sortid/internal/chars"
)

// HUID is a 63-bit time-sortable identifier: the milliseconds since
// 2026-01-01T00:00:00Z in bits 62..21 and 21 random bits in bits 20..0
// (HUID spec §4). Valid values lie in [0, 2^63-1]; a negative HUID, which
// only a conversion from int64 can produce, is rejected by every encoder.
type HUID int64

const (
	// HUIDEpochMillis is the HUID epoch, 2026-01-01T00:00:00.000Z, in Unix milliseconds.
	HUIDEpochMillis = 1767225600000
	// HUIDMaxTimestamp is the largest HUID time field, 2^42-1 ms after the epoch
	// (2165-05-15T07:35:11.103Z).
	HUIDMaxTimestamp = 1<<42 - 1
	// HUIDMaxRandom is the largest value of the 21-bit random field.
	HUIDMaxRandom = 1<<21 - 1
	// MaxHUID is the largest valid HUID, 2^63-1.
	MaxHUID HUID = 1<<63 - 1

	huidRandomBits = 21
	huidMaxDigits  = 19
)

// HUIDFromParts returns the HUID with the time t (truncated to the
// millisecond, as every HUID's time is) and the given random field.
// It returns an error wrapping [ErrTimeOutOfRange] when t lies outside
// [2026-01-01T00:00:00.000Z, 2165-05-15T07:35:11.103Z], or wrapping
// [ErrInvalidHUID] when random does not fit in 21 bits.
func HUIDFromParts(t time.Time, random uint32) (HUID, error) {
	ms, err := huidMillis(t)
	if err != nil {
		return 0, err
	}
	if random > HUIDMaxRandom {
		return 0, fmt.Errorf("%w: random part %d does not fit in 21 bits", ErrInvalidHUID, random)
	}
	return makeHUID(ms, random), nil
}

func makeHUID(ms int64, random uint32) HUID {
	return HUID(ms<<huidRandomBits | int64(random))
}

// huidMillis returns the HUID time field of t, or an error wrapping
// ErrTimeOutOfRange.
func huidMillis(t time.Time) (int64, error) {
	if !withinMillis(t, HUIDEpochMillis, HUIDEpochMillis+HUIDMaxTimestamp) {
		return 0, fmt.Errorf("%w: %s is outside HUID's window %s", ErrTimeOutOfRange, t.UTC().Format(time.RFC3339Nano), huidWindow)
	}
	return t.UnixMilli() - HUIDEpochMillis, nil
}

const huidWindow = "[2026-01-01T00:00:00.000Z, 2165-05-15T07:35:11.103Z]"

// huidField returns the HUID time field of a Unix millisecond, and whether it is in range.
func huidField(unixMs int64) (int64, bool) {
	ms := unixMs - HUIDEpochMillis
	return ms, ms >= 0 && ms <= HUIDMaxTimestamp
}

// Valid reports whether h lies in [0, 2^63-1], i.e. is not negative.
func (h HUID) Valid() bool { return h >= 0 }

// Timestamp returns the time field: milliseconds since 2026-01-01T00:00:00Z.
func (h HUID) Timestamp() int64 { return int64(h) >> huidRandomBits }

// Time returns the millisecond the HUID was made in, in UTC.
func (h HUID) Time() time.Time {
	return time.UnixMilli(h.Timestamp() + HUIDEpochMillis).UTC()
}

// Random returns the 21-bit random field.
func (h HUID) Random() uint32 { return uint32(h & HUIDMaxRandom) }

// IsZero reports whether h is the zero HUID, the value of an unset field.
func (h HUID) IsZero() bool { return h == 0 }

// Compare returns -1, 0 or +1 as h is less than, equal to or greater than other.
func (h HUID) Compare(other HUID) int { return cmp.Compare(h, other) }

// String returns the plain decimal form, as the spec recommends (§7.1).
func (h HUID) String() string { return strconv.FormatInt(int64(h), 10) }

// PaddedString returns the 19-digit zero-padded decimal form, whose text
// order equals numeric order (spec §7.1). A negative HUID is formatted as
// its plain decimal form, which no parser accepts.
func (h HUID) PaddedString() string {
	var buf [huidMaxDigits]byte
	return string(h.AppendPadded(buf[:0]))
}

// AppendPadded appends the 19-digit zero-padded form of h to b.
func (h HUID) AppendPadded(b []byte) []byte {
	if h < 0 {
		return strconv.AppendInt(b, int64(h), 10)
	}
	start := len(b)
	b = append(b, "0000000000000000000"...)
	v := uint64(h)
	for i := start + huidMaxDigits - 1; v > 0; i-- {
		b[i] = byte('0' + v%10)
		v /= 10
	}
	return b
}

// ParseHUID parses the decimal form of a HUID: 1 to 19 ASCII digits,
// leading zeros allowed (so the 19-digit padded form parses), value at most
// 2^63-1. Empty input, signs, spaces, other characters and larger values
// give an error wrapping [ErrInvalidHUID] that quotes the input.
func ParseHUID(s string) (HUID, error) { return parseHUID(s) }

func parseHUID[T string | []byte](s T) (HUID, error) {
	if len(s) == 0 {
		return 0, fmt.Errorf("%w: empty string", ErrInvalidHUID)
	}
	if len(s) > huidMaxDigits {
		return 0, fmt.Errorf("%w: %q has %d characters, more than 19 digits", ErrInvalidHUID, string(s), len(s))
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%w: %q has %s; only decimal digits are allowed", ErrInvalidHUID, string(s), chars.At(s, i))
		}
		v = v*10 + uint64(c-'0') // 19 digits cannot overflow uint64
	}
	if v > uint64(MaxHUID) {
		return 0, fmt.Errorf("%w: %s exceeds 2^63-1", ErrInvalidHUID, string(s))
	}
	return HUID(v), nil
}

// MustParseHUID is like [ParseHUID] but panics on error. It is meant for
// constants in tests and examples.
func MustParseHUID(s string) HUID {
	h, err := ParseHUID(s)
	if err != nil {
		panic(err)
	}
	return h
}

// HUIDFromInt64 returns v as a HUID. It is the one checked conversion from a
// bigint: [HUID.Scan], [HUID.UnmarshalBinary], [HUID.Value] and the pgxtype
// codecs all call it. A negative v gives an error wrapping [ErrInvalidHUID].
func HUIDFromInt64(v int64) (HUID, error) {
	if v < 0 {
		return 0, negativeHUID(v)
	}
	return HUID(v), nil
}

// negativeHUID is the error of HUIDFromInt64, apart so that it stays inlinable.
func negativeHUID(v int64) error {
	return fmt.Errorf("%w: %d is negative; HUIDs lie in [0, 2^63-1]", ErrInvalidHUID, v)
}

// checkValid returns an error wrapping ErrInvalidHUID for a negative h.
func (h HUID) checkValid() error {
	_, err := HUIDFromInt64(int64(h))
	return err
}
