package idtype

import (
	"database/sql/driver"
	"fmt"
)

// SCRU128Bytes is a SCRU128 for bytea (or binary(16), blob) columns: its
// Value is the 16 raw bytes and its Scan demands exactly 16 bytes, so a
// value can never be stored as its 36 bytes of UUID text by mistake. Use
// [SCRU128] for uuid columns. Text and JSON forms are those of SCRU128;
// convert with SCRU128(b) for everything else.
type SCRU128Bytes SCRU128

// ID returns b as a SCRU128, as gormtype's ID types do.
func (b SCRU128Bytes) ID() SCRU128 { return SCRU128(b) }

// String returns the 26-character uppercase form.
func (b SCRU128Bytes) String() string { return SCRU128(b).String() }

// AppendText implements [encoding.TextAppender] as [SCRU128.AppendText].
func (b SCRU128Bytes) AppendText(dst []byte) ([]byte, error) { return SCRU128(b).AppendText(dst) }

// MarshalText implements [encoding.TextMarshaler] as [SCRU128.MarshalText].
func (b SCRU128Bytes) MarshalText() ([]byte, error) { return SCRU128(b).MarshalText() }

// UnmarshalText implements [encoding.TextUnmarshaler] as [SCRU128.UnmarshalText].
func (b *SCRU128Bytes) UnmarshalText(text []byte) error { return (*SCRU128)(b).UnmarshalText(text) }

// MarshalJSON implements [json.Marshaler] as [SCRU128.MarshalJSON].
func (b SCRU128Bytes) MarshalJSON() ([]byte, error) { return SCRU128(b).MarshalJSON() }

// UnmarshalJSON implements [json.Unmarshaler] as [SCRU128.UnmarshalJSON].
func (b *SCRU128Bytes) UnmarshalJSON(data []byte) error { return (*SCRU128)(b).UnmarshalJSON(data) }

// AppendBinary implements [encoding.BinaryAppender]: the 16 bytes.
func (b SCRU128Bytes) AppendBinary(dst []byte) ([]byte, error) { return append(dst, b[:]...), nil }

// MarshalBinary implements [encoding.BinaryMarshaler]: the 16 bytes.
func (b SCRU128Bytes) MarshalBinary() ([]byte, error) { return SCRU128(b).MarshalBinary() }

// UnmarshalBinary implements [encoding.BinaryUnmarshaler] as [SCRU128.UnmarshalBinary].
func (b *SCRU128Bytes) UnmarshalBinary(data []byte) error {
	return (*SCRU128)(b).UnmarshalBinary(data)
}

// Value implements [driver.Valuer] with the 16 raw bytes.
func (b SCRU128Bytes) Value() (driver.Value, error) { return b[:], nil }

// Scan implements [sql.Scanner]. It takes exactly 16 bytes as []byte, and a
// SCRU128Bytes or a *SCRU128Bytes; other lengths give an error wrapping
// [ErrInvalidSCRU128], NULL or a nil *SCRU128Bytes one wrapping [ErrNull]
// (use [NullSCRU128Bytes]) and other types, SCRU128 among them, one
// wrapping [ErrUnsupportedType].
func (b *SCRU128Bytes) Scan(src any) error {
	switch v := deref[SCRU128Bytes](src).(type) {
	case SCRU128Bytes:
		*b = v
		return nil
	case []byte:
		return (*SCRU128)(b).UnmarshalBinary(v)
	case nil:
		return fmt.Errorf("%w: SQL NULL or a nil *SCRU128Bytes scanned into SCRU128Bytes (use NullSCRU128Bytes)", ErrNull)
	}
	return fmt.Errorf("%w: cannot scan %T (%v) into SCRU128Bytes; want 16 bytes as []byte", ErrUnsupportedType, src, src)
}
