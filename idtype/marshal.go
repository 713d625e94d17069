package idtype

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strconv"
)

// AppendText implements [encoding.TextAppender]: it appends the decimal
// form. It returns an error wrapping [ErrInvalidHUID] for a negative h.
func (h HUID) AppendText(b []byte) ([]byte, error) {
	if err := h.checkValid(); err != nil {
		return b, err
	}
	return strconv.AppendInt(b, int64(h), 10), nil
}

// MarshalText implements [encoding.TextMarshaler] with the decimal form.
// It returns an error wrapping [ErrInvalidHUID] for a negative h.
func (h HUID) MarshalText() ([]byte, error) { return h.AppendText(nil) }

// UnmarshalText implements [encoding.TextUnmarshaler] with the rules of
// [ParseHUID]; errors wrap [ErrInvalidHUID].
func (h *HUID) UnmarshalText(text []byte) error {
	return scanHUIDText(h, text)
}

// AppendBinary implements [encoding.BinaryAppender]: 8 bytes, big-endian
// (spec §7.2). It returns an error wrapping [ErrInvalidHUID] for a negative h.
func (h HUID) AppendBinary(b []byte) ([]byte, error) {
	if err := h.checkValid(); err != nil {
		return b, err
	}
	return binary.BigEndian.AppendUint64(b, uint64(h)), nil
}

// MarshalBinary implements [encoding.BinaryMarshaler]: 8 bytes, big-endian.
// It returns an error wrapping [ErrInvalidHUID] for a negative h.
func (h HUID) MarshalBinary() ([]byte, error) { return h.AppendBinary(make([]byte, 0, 8)) }

// UnmarshalBinary implements [encoding.BinaryUnmarshaler]. It takes exactly
// 8 bytes, big-endian, whose first byte has its top bit clear (spec §7.2):
// the binary int8 of PostgreSQL. Other lengths and negative values give an
// error wrapping [ErrInvalidHUID], as [HUIDFromInt64].
func (h *HUID) UnmarshalBinary(data []byte) error {
	if len(data) != 8 {
		return binaryLengthError(ErrInvalidHUID, len(data), 8)
	}
	v, err := HUIDFromInt64(int64(binary.BigEndian.Uint64(data)))
	if err != nil {
		return err
	}
	*h = v
	return nil
}

// binaryLengthError is the error of a binary form of the wrong length.
func binaryLengthError(invalid error, got, want int) error {
	return fmt.Errorf("%w: binary form has %d bytes; want exactly %d", invalid, got, want)
}

// MarshalJSON implements [json.Marshaler]. A HUID is a JSON string of its
// decimal form: HUIDs made after 2026-02-19 exceed 2^53, which JavaScript
// numbers cannot hold exactly. It returns an error wrapping [ErrInvalidHUID]
// for a negative h.
func (h HUID) MarshalJSON() ([]byte, error) {
	b, err := h.AppendText(append(make([]byte, 0, huidMaxDigits+2), '"'))
	if err != nil {
		return nil, err
	}
	return append(b, '"'), nil
}

// UnmarshalJSON implements [json.Unmarshaler]. It takes a JSON string of
// the decimal form (the rules of [ParseHUID]) or a JSON integer number of at
// most 2^53 (9007199254740992). A larger number gives an error wrapping
// [ErrInvalidHUID]: JavaScript and many JSON decoders round numbers above
// 2^53, so such a HUID may already be another one, and HUIDs above 2^53
// travel as JSON strings, as MarshalJSON writes them. Fractions, exponents,
// signs and other JSON values give an error wrapping [ErrInvalidHUID] that
// names the accepted forms, and null one wrapping [ErrNull] (use [NullHUID]
// for nullable values).
func (h *HUID) UnmarshalJSON(data []byte) error {
	text, err := jsonText(data, "HUID", ErrInvalidHUID, true)
	if err != nil {
		return err
	}
	if len(data) > 0 && data[0] == '"' {
		return h.UnmarshalText(text)
	}
	return h.unmarshalJSONNumber(data)
}

// maxJSONNumber is 2^53: up to it a JavaScript number (an IEEE 754 double)
// holds every integer exactly; above it, only some.
const maxJSONNumber = 1 << 53

// unmarshalJSONNumber sets h from a bare JSON value, which must be an
// integer number of at most 2^53.
func (h *HUID) unmarshalJSONNumber(num []byte) error {
	digits := len(num) > 0
	for _, c := range num {
		digits = digits && '0' <= c && c <= '9'
	}
	if !digits {
		return fmt.Errorf("%w: JSON %s is not a HUID; want a JSON string of decimal digits, or an integer number at most 2^53", ErrInvalidHUID, num)
	}
	// Digits that parseHUID refuses (too many, or above 2^63-1) are above 2^53 too.
	v, err := parseHUID(num)
	if err != nil || v > maxJSONNumber {
		return fmt.Errorf("%w: JSON number %s exceeds 2^53 (9007199254740992), above which JavaScript rounds numbers; HUIDs above 2^53 travel as JSON strings", ErrInvalidHUID, num)
	}
	*h = v
	return nil
}

// jsonText returns the text of a JSON string, or a bare JSON value as is.
// kind names the type in messages; invalid is its sentinel.
func jsonText(data []byte, kind string, invalid error, bare bool) ([]byte, error) {
	if string(data) == "null" {
		return nil, fmt.Errorf("%w: JSON null for %s (use Null%s)", ErrNull, kind, kind)
	}
	if len(data) == 0 || data[0] != '"' {
		if !bare && len(data) > 0 {
			return nil, fmt.Errorf("%w: JSON %s is not a string", invalid, data)
		}
		return data, nil
	}
	if len(data) < 2 || data[len(data)-1] != '"' {
		return nil, fmt.Errorf("%w: malformed JSON string %s", invalid, data)
	}
	inner := data[1 : len(data)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return inner, nil
	}
	var s string // escapes are legal JSON; let encoding/json decode them
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%w: malformed JSON string %s: %w", invalid, data, err)
	}
	return []byte(s), nil
}

// AppendText implements [encoding.TextAppender] with the 26-character
// uppercase base32 form.
func (id SCRU128) AppendText(b []byte) ([]byte, error) {
	var buf [scru128TextLen]byte
	id.encodeBase32(&buf)
	return append(b, buf[:]...), nil
}

// MarshalText implements [encoding.TextMarshaler] with the 26-character form.
func (id SCRU128) MarshalText() ([]byte, error) {
	return id.AppendText(make([]byte, 0, scru128TextLen))
}

// UnmarshalText implements [encoding.TextUnmarshaler] with the rules of
// [ParseSCRU128]; errors wrap [ErrInvalidSCRU128].
func (id *SCRU128) UnmarshalText(text []byte) error {
	return scanSCRU128Text(id, text)
}

// AppendBinary implements [encoding.BinaryAppender]: the 16 bytes.
func (id SCRU128) AppendBinary(b []byte) ([]byte, error) { return append(b, id[:]...), nil }

// MarshalBinary implements [encoding.BinaryMarshaler]: the 16 bytes.
func (id SCRU128) MarshalBinary() ([]byte, error) { return id.AppendBinary(make([]byte, 0, 16)) }

// UnmarshalBinary implements [encoding.BinaryUnmarshaler]. It takes exactly
// 16 bytes; any other length gives an error wrapping [ErrInvalidSCRU128]
// that names it. It is the one checked conversion from 16 bytes (a binary
// uuid or a bytea): [SCRU128Bytes.Scan] and the pgxtype codecs call it.
func (id *SCRU128) UnmarshalBinary(data []byte) error {
	if len(data) != 16 {
		return binaryLengthError(ErrInvalidSCRU128, len(data), 16)
	}
	copy(id[:], data)
	return nil
}

// MarshalJSON implements [json.Marshaler] with the 26-character form as a
// JSON string.
func (id SCRU128) MarshalJSON() ([]byte, error) {
	b, _ := id.AppendText(append(make([]byte, 0, scru128TextLen+2), '"'))
	return append(b, '"'), nil
}

// UnmarshalJSON implements [json.Unmarshaler]. It takes a JSON string in
// either form [ParseSCRU128] accepts; other input gives an error wrapping
// [ErrInvalidSCRU128], and null one wrapping [ErrNull] (use [NullSCRU128]).
func (id *SCRU128) UnmarshalJSON(data []byte) error {
	text, err := jsonText(data, "SCRU128", ErrInvalidSCRU128, false)
	if err != nil {
		return err
	}
	return id.UnmarshalText(text)
}
