package idtype

import (
	"database/sql"
	"database/sql/driver"
	"encoding/json"
)

// Null is an ID of type T that may be NULL (SQL) or null (JSON), as
// database/sql's sql.Null[T] is for other types. It implements
// [sql.Scanner], [driver.Valuer], [json.Marshaler] and [json.Unmarshaler];
// a valid Null is stored, read and marshalled as its V. Use it through its
// aliases [NullHUID], [NullSCRU128] and [NullSCRU128Bytes].
type Null[T interface {
	HUID | SCRU128 | SCRU128Bytes
	driver.Valuer
	json.Marshaler
}] struct {
	V     T
	Valid bool // Valid is true if V is not NULL
}

// NullHUID is a [HUID] that may be NULL or null, for nullable bigint columns.
type NullHUID = Null[HUID]

// NullSCRU128 is a [SCRU128] that may be NULL or null, for nullable uuid
// columns.
type NullSCRU128 = Null[SCRU128]

// NullSCRU128Bytes is a [SCRU128Bytes] that may be NULL or null, for
// nullable bytea columns.
type NullSCRU128Bytes = Null[SCRU128Bytes]

// Scan implements [sql.Scanner]: NULL, a nil *Null[T] or *T and a Null[T]
// that is not Valid give Valid=false; a valid Null[T] (or a pointer to it)
// is scanned as its V, and anything else as by the Scan of T ([HUID.Scan],
// [SCRU128.Scan], [SCRU128Bytes.Scan]), whose errors, wrapping
// [ErrInvalidHUID], [ErrInvalidSCRU128] or [ErrUnsupportedType], it
// returns, leaving n as it was.
func (n *Null[T]) Scan(src any) error {
	src = nullSource[T, Null[T]](src)
	if src == nil {
		*n = Null[T]{}
		return nil
	}
	if err := any(&n.V).(sql.Scanner).Scan(src); err != nil {
		return err
	}
	n.Valid = true
	return nil
}

// id returns V and whether it is Valid, for nullSource.
func (n Null[T]) id() (T, bool) { return n.V, n.Valid }

// Value implements [driver.Valuer]: NULL when not Valid, else the Value of
// V ([HUID.Value], [SCRU128.Value], [SCRU128Bytes.Value]), with its error
// wrapping [ErrInvalidHUID] for a negative HUID.
func (n Null[T]) Value() (driver.Value, error) {
	if !n.Valid {
		return nil, nil
	}
	return n.V.Value()
}

// MarshalJSON implements [json.Marshaler]: null when not Valid, else V as a
// JSON string ([HUID.MarshalJSON], [SCRU128.MarshalJSON]), with its error
// wrapping [ErrInvalidHUID] for a negative HUID.
func (n Null[T]) MarshalJSON() ([]byte, error) {
	if !n.Valid {
		return []byte("null"), nil
	}
	return n.V.MarshalJSON()
}

// UnmarshalJSON implements [json.Unmarshaler]: null gives Valid=false,
// anything else is decoded into V as by [HUID.UnmarshalJSON] or
// [SCRU128.UnmarshalJSON], whose errors, wrapping [ErrInvalidHUID] or
// [ErrInvalidSCRU128], it returns, leaving n as it was.
func (n *Null[T]) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*n = Null[T]{}
		return nil
	}
	if err := any(&n.V).(json.Unmarshaler).UnmarshalJSON(data); err != nil {
		return err
	}
	n.Valid = true
	return nil
}
