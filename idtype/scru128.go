package idtype

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/sortid/sortid/internal/chars"
)

// SCRU128 is a 128-bit SCRU128 v1.0.2 identifier in big-endian byte order:
// timestamp (44 bits, ms since 2020-01-01T00:00:00Z), counter (28 bits),
// per_sec_random (24 bits) and per_gen_random (32 bits). Its 16 bytes are
// also its UUID form, so it stores in a PostgreSQL uuid column unchanged.
type SCRU128 [16]byte

const (
	// SCRU128EpochMillis is the SCRU128 epoch, 2020-01-01T00:00:00.000Z, in Unix milliseconds.
	SCRU128EpochMillis = 1577836800000
	// SCRU128MaxTimestamp is the largest timestamp field, 2^44-1. It and 0 are
	// reserved: generators never emit them, parsers accept them.
	SCRU128MaxTimestamp = 1<<44 - 1
	// SCRU128MaxCounter is the largest counter field, 2^28-1.
	SCRU128MaxCounter = 1<<28 - 1
	// SCRU128MaxPerSecRandom is the largest per_sec_random field, 2^24-1.
	SCRU128MaxPerSecRandom = 1<<24 - 1

	scru128TextLen = 26
	uuidTextLen    = 36
	base32Digits   = "0123456789ABCDEFGHIJKLMNOPQRSTUV"
	hexDigits      = "0123456789abcdef"
)

// MaxSCRU128 is the largest SCRU128, all bits set (7VVVVVVVVVVVVVVVVVVVVVVVVV).
var MaxSCRU128 = SCRU128{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}

// SCRU128FromFields returns the SCRU128 with the given fields. It returns an
// error wrapping [ErrInvalidSCRU128] when a field does not fit its width
// (timestamp 44 bits, counter 28 bits, perSecRandom 24 bits). The reserved
// timestamps 0 and 2^44-1 are accepted, as parsers accept them.
func SCRU128FromFields(timestamp uint64, counter, perSecRandom, perGenRandom uint32) (SCRU128, error) {
	switch {
	case timestamp > SCRU128MaxTimestamp:
		return SCRU128{}, fmt.Errorf("%w: timestamp %d does not fit in 44 bits", ErrInvalidSCRU128, timestamp)
	case counter > SCRU128MaxCounter:
		return SCRU128{}, fmt.Errorf("%w: counter %d does not fit in 28 bits", ErrInvalidSCRU128, counter)
	case perSecRandom > SCRU128MaxPerSecRandom:
		return SCRU128{}, fmt.Errorf("%w: per_sec_random %d does not fit in 24 bits", ErrInvalidSCRU128, perSecRandom)
	}
	return makeSCRU128(timestamp, counter, perSecRandom, perGenRandom), nil
}

func makeSCRU128(timestamp uint64, counter, perSecRandom, perGenRandom uint32) SCRU128 {
	var id SCRU128
	binary.BigEndian.PutUint64(id[0:8], timestamp<<20|uint64(counter)>>8)
	binary.BigEndian.PutUint64(id[8:16], uint64(counter&0xff)<<56|uint64(perSecRandom)<<32|uint64(perGenRandom))
	return id
}

func (id SCRU128) hi() uint64 { return binary.BigEndian.Uint64(id[0:8]) }
func (id SCRU128) lo() uint64 { return binary.BigEndian.Uint64(id[8:16]) }

// Timestamp returns the 44-bit timestamp field: milliseconds since 2020-01-01T00:00:00Z.
func (id SCRU128) Timestamp() uint64 { return id.hi() >> 20 }

// Time returns the millisecond of the timestamp field, in UTC.
func (id SCRU128) Time() time.Time {
	return time.UnixMilli(int64(id.Timestamp()) + SCRU128EpochMillis).UTC()
}

// Counter returns the 28-bit counter field.
func (id SCRU128) Counter() uint32 { return uint32(id.hi()&0xfffff)<<8 | uint32(id[8]) }

// PerSecRandom returns the 24-bit per_sec_random field.
func (id SCRU128) PerSecRandom() uint32 { return uint32(id.lo()>>32) & SCRU128MaxPerSecRandom }

// PerGenRandom returns the 32-bit per_gen_random field.
func (id SCRU128) PerGenRandom() uint32 { return uint32(id.lo()) }

// IsZero reports whether id is all zero bytes, the value of an unset field.
func (id SCRU128) IsZero() bool { return id == SCRU128{} }

// Compare returns -1, 0 or +1 as id is less than, equal to or greater than
// other. Byte order, numeric order and (case-folded) text order agree.
func (id SCRU128) Compare(other SCRU128) int { return bytes.Compare(id[:], other[:]) }

// String returns the 26-character uppercase base32 form (digits 0-9A-V).
func (id SCRU128) String() string {
	var buf [scru128TextLen]byte
	id.encodeBase32(&buf)
	return string(buf[:])
}

// UUIDString returns the canonical lowercase 8-4-4-4-12 hexadecimal form,
// the form PostgreSQL prints for uuid columns.
func (id SCRU128) UUIDString() string {
	var buf [uuidTextLen]byte
	id.encodeUUID(&buf)
	return string(buf[:])
}

// encodeBase32 writes the 128-bit value in radix 32, most significant digit
// first, 26 digits with leading zeros.
func (id SCRU128) encodeBase32(dst *[scru128TextLen]byte) {
	hi, lo := id.hi(), id.lo()
	for i := scru128TextLen - 1; i >= 0; i-- {
		dst[i] = base32Digits[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
}

func (id SCRU128) encodeUUID(dst *[uuidTextLen]byte) {
	j := 0
	for i, b := range id {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			dst[j] = '-'
			j++
		}
		dst[j] = hexDigits[b>>4]
		dst[j+1] = hexDigits[b&15]
		j += 2
	}
}

// ParseSCRU128 parses the 26-character base32 form (case-insensitive, at
// most 7VVVVVVVVVVVVVVVVVVVVVVVVV) or the 36-character 8-4-4-4-12 UUID form
// (case-insensitive hex), which PostgreSQL returns for uuid columns. Other
// input gives an error wrapping [ErrInvalidSCRU128] that quotes it.
//
// Every 128-bit value is a SCRU128, so a UUID of another kind parses
// without error: a UUIDv7 made in 2026 reads as a SCRU128 of 2023, a random
// UUIDv4 as one of a random year up to 2577. ParseSCRU128 cannot tell them
// apart; `sortid inspect` warns when the times say an input is an RFC 9562
// UUID rather than a SCRU128.
func ParseSCRU128(s string) (SCRU128, error) { return parseSCRU128(s) }

func parseSCRU128[T string | []byte](s T) (SCRU128, error) {
	switch len(s) {
	case scru128TextLen:
		return parseBase32(s)
	case uuidTextLen:
		return parseUUID(s)
	}
	return SCRU128{}, fmt.Errorf("%w: %q has %d characters; want 26 (base32) or 36 (UUID)", ErrInvalidSCRU128, string(s), len(s))
}

// base32Values maps an ASCII byte to its digit value, or 0xff.
var base32Values = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for i := 0; i < 32; i++ {
		t[base32Digits[i]] = byte(i)
		if c := base32Digits[i]; c >= 'A' {
			t[c+'a'-'A'] = byte(i)
		}
	}
	return t
}()

func parseBase32[T string | []byte](s T) (SCRU128, error) {
	var hi, lo uint64
	for i := 0; i < scru128TextLen; i++ {
		v := base32Values[s[i]]
		if v == 0xff {
			return SCRU128{}, fmt.Errorf("%w: %q has %s; base32 digits are 0-9 and A-V", ErrInvalidSCRU128, string(s), chars.At(s, i))
		}
		hi = hi<<5 | lo>>59
		lo = lo<<5 | uint64(v)
	}
	// 26 digits hold 130 bits: the first digit may only use the low 3.
	if base32Values[s[0]] > 7 {
		return SCRU128{}, fmt.Errorf("%w: %q exceeds 7VVVVVVVVVVVVVVVVVVVVVVVVV (2^128-1)", ErrInvalidSCRU128, string(s))
	}
	var id SCRU128
	binary.BigEndian.PutUint64(id[0:8], hi)
	binary.BigEndian.PutUint64(id[8:16], lo)
	return id, nil
}

// hexValues maps an ASCII byte to its hex digit value, or 0xff.
var hexValues = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for i := 0; i < 16; i++ {
		t[hexDigits[i]] = byte(i)
		t["0123456789ABCDEF"[i]] = byte(i)
	}
	return t
}()

func parseUUID[T string | []byte](s T) (SCRU128, error) {
	if s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return SCRU128{}, fmt.Errorf("%w: %q is not in the 8-4-4-4-12 UUID form", ErrInvalidSCRU128, string(s))
	}
	var id SCRU128
	j := 0
	for i := range id {
		if j == 8 || j == 13 || j == 18 || j == 23 {
			j++
		}
		h, l := hexValues[s[j]], hexValues[s[j+1]]
		if h == 0xff || l == 0xff {
			bad := j
			if h != 0xff {
				bad++
			}
			return SCRU128{}, fmt.Errorf("%w: %q has %s; UUID digits are hexadecimal", ErrInvalidSCRU128, string(s), chars.At(s, bad))
		}
		id[i] = h<<4 | l
		j += 2
	}
	return id, nil
}

// MustParseSCRU128 is like [ParseSCRU128] but panics on error. It is meant
// for constants in tests and examples.
func MustParseSCRU128(s string) SCRU128 {
	id, err := ParseSCRU128(s)
	if err != nil {
		panic(err)
	}
	return id
}
