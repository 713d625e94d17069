package idtype

import (
	"database/sql/driver"
	"fmt"
)

// Value implements [driver.Valuer]: the HUID as an int64, for bigint
// columns. It returns an error wrapping [ErrInvalidHUID] for a negative h.
func (h HUID) Value() (driver.Value, error) {
	if err := h.checkValid(); err != nil {
		return nil, err
	}
	return int64(h), nil
}

// Scan implements [sql.Scanner]. It takes an int64 (or a uint64) in
// [0, 2^63-1], the decimal form as string or []byte, and a HUID or a
// *HUID (ent's bulk create scans its IDs so). A negative or larger value or
// malformed text gives an error wrapping [ErrInvalidHUID], NULL or a nil
// *HUID one wrapping [ErrNull] (scan nullable columns into [NullHUID]), and
// any other type one wrapping [ErrUnsupportedType].
func (h *HUID) Scan(src any) error {
	switch v := deref[HUID](src).(type) {
	case HUID:
		return h.setInt64(int64(v))
	case int64:
		return h.setInt64(v)
	case uint64:
		if v > uint64(MaxHUID) {
			return fmt.Errorf("%w: database value %d exceeds 2^63-1", ErrInvalidHUID, v)
		}
		*h = HUID(v)
		return nil
	case string:
		return scanHUIDText(h, v)
	case []byte:
		return scanHUIDText(h, v)
	case nil:
		return fmt.Errorf("%w: SQL NULL or a nil *HUID scanned into HUID (use NullHUID)", ErrNull)
	}
	return fmt.Errorf("%w: cannot scan %T (%v) into HUID", ErrUnsupportedType, src, src)
}

// setInt64 sets h to v through HUIDFromInt64, leaving h alone on error.
func (h *HUID) setInt64(v int64) error {
	x, err := HUIDFromInt64(v)
	if err != nil {
		return err
	}
	*h = x
	return nil
}

func scanHUIDText[T string | []byte](h *HUID, text T) error {
	v, err := parseHUID(text)
	if err != nil {
		return err
	}
	*h = v
	return nil
}

// Value implements [driver.Valuer] with the UUID text form, which every
// PostgreSQL driver binds to a uuid column. For a bytea column use
// [SCRU128Bytes], whose Value is the 16 raw bytes.
func (id SCRU128) Value() (driver.Value, error) { return id.UUIDString(), nil }

// Scan implements [sql.Scanner]. It takes 16 raw bytes (a bytea value), the
// UUID form or the 26-character form as string or []byte, and a SCRU128 or
// a *SCRU128. Other lengths and malformed text give an error wrapping
// [ErrInvalidSCRU128], NULL or a nil *SCRU128 one wrapping [ErrNull] (use
// [NullSCRU128]), and other types one wrapping [ErrUnsupportedType].
func (id *SCRU128) Scan(src any) error {
	switch v := deref[SCRU128](src).(type) {
	case SCRU128:
		*id = v
		return nil
	case []byte:
		if len(v) == 16 {
			copy(id[:], v)
			return nil
		}
		return scanSCRU128Text(id, v)
	case string:
		return scanSCRU128Text(id, v)
	case nil:
		return fmt.Errorf("%w: SQL NULL or a nil *SCRU128 scanned into SCRU128 (use NullSCRU128)", ErrNull)
	}
	return fmt.Errorf("%w: cannot scan %T (%v) into SCRU128", ErrUnsupportedType, src, src)
}

func scanSCRU128Text[T string | []byte](id *SCRU128, text T) error {
	v, err := parseSCRU128(text)
	if err != nil {
		return err
	}
	*id = v
	return nil
}

// deref returns *src for a *T, and nil (read as SQL NULL) for a nil *T, so
// that Scan takes a pointer to a value exactly as it takes the value; any
// other src is returned as it is.
func deref[T any](src any) any {
	if p, ok := src.(*T); ok {
		if p == nil {
			return nil
		}
		return *p
	}
	return src
}

// nullSource resolves what a Null type's Scan takes besides database
// values: its own type N, the ID type T and pointers to them. A nil pointer
// and an N that is not Valid are NULL (nil); a valid N gives its T; any other
// src is returned as it is, for T's Scan.
func nullSource[T any, N interface{ id() (T, bool) }](src any) any {
	switch v := deref[T](deref[N](src)).(type) {
	case N:
		if x, ok := v.id(); ok {
			return x
		}
		return nil
	case nil:
		return nil
	default:
		return v
	}
}
