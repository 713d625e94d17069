package main

import (
	"encoding/binary"
	"time"
	"unicode"

	"github.com/sortid/sortid/idtype"
)

// uuidv7Earliest is the earliest time a UUIDv7 is believed to carry: the
// first drafts of the format date from 2021, so 2020-01-01 leaves room. It
// keeps the SCRU128s made before 2023, which read as UUIDv7s of the 1970s to
// 2010s, from being taken for UUIDv7s.
var uuidv7Earliest = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

// clockSkew is how far past now a time may lie and still count as "now":
// the leeway for another machine's clock.
const clockSkew = 24 * time.Hour

// foreignUUID describes a 128-bit value that is an RFC 9562 UUID and not a
// SCRU128.
type foreignUUID struct {
	version int
	v7Time  time.Time // the time a version 7 UUID encodes; zero otherwise
}

// detectForeignUUID reports whether id, read as a SCRU128, is instead an
// RFC 9562 UUID made by someone else. A SCRU128 has random bits where a UUID
// has its variant (10) and version (1 to 8), so about 1 in 8 real SCRU128s
// carry some version's bits by chance; the times tell them apart:
//
//   - any version: the SCRU128 reading lies more than clockSkew after now.
//     No real SCRU128 is made in the future, while the random or clock bits
//     of other UUIDs read as a SCRU128 time spread over 557 years from 2020.
//   - version 7: the UUIDv7 reading (the first 48 bits as Unix
//     milliseconds) lies in [uuidv7Earliest, now+clockSkew]. A real SCRU128
//     made at time T reads as the UUIDv7 time 1970 + 16·(T - 2020), decades
//     after now for a SCRU128 made now (a 2026 SCRU128 reads as about 2066).
//
// Only a SCRU128 with the version 7 bits (1 in 64 of them) made from
// 2023-02-15 to the day whose UUIDv7 reading is now (July 2023 late in
// 2026; the day moves a sixteenth as fast as the clock) is taken for a
// UUIDv7; nothing tells those apart.
func detectForeignUUID(id idtype.SCRU128, now time.Time) (foreignUUID, bool) {
	version := int(id[6] >> 4)
	if id[8]>>6 != 0b10 || version < 1 || version > 8 {
		return foreignUUID{}, false
	}
	latest := now.Add(clockSkew)
	if id.Time().After(latest) {
		return foreignUUID{version: version, v7Time: uuidv7Time(id, version)}, true
	}
	if version == 7 {
		t := uuidv7Time(id, version)
		if !t.Before(uuidv7Earliest) && !t.After(latest) {
			return foreignUUID{version: 7, v7Time: t}, true
		}
	}
	return foreignUUID{}, false
}

// uuidv7Time returns the time in the first 48 bits of a version 7 UUID, or
// the zero time for other versions.
func uuidv7Time(id idtype.SCRU128, version int) time.Time {
	if version != 7 {
		return time.Time{}
	}
	return time.UnixMilli(int64(binary.BigEndian.Uint64(id[0:8]) >> 16)).UTC()
}

// crockfordValues marks the digits of Crockford's base32, the ULID
// alphabet (0-9 and A-Z without I, L, O and U), in either letter case.
var crockfordValues = func() (t [256]bool) {
	for _, c := range "0123456789ABCDEFGHJKMNPQRSTVWXYZ" {
		t[c], t[unicode.ToLower(c)] = true, true
	}
	return t
}()

// looksLikeULID reports whether s is a ULID that is not also a valid
// SCRU128 text: 26 Crockford base32 digits, the first at most 7 (a ULID has
// 128 bits), at least one of them W, X, Y or Z, which SCRU128's base32
// (0-9A-V) lacks. A ULID without those letters is valid SCRU128 text, and
// only this test's W-Z tells them apart.
func looksLikeULID(s string) bool {
	if len(s) != 26 || s[0] < '0' || s[0] > '7' {
		return false
	}
	beyondV := false
	for i := 0; i < len(s); i++ {
		if !crockfordValues[s[i]] {
			return false
		}
		beyondV = beyondV || s[i]|0x20 >= 'w' // W-Z and w-z; digits are below
	}
	return beyondV
}
