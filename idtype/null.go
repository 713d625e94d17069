package idtype

import "database/sql/driver"

// NullHUID is a HUID that may be NULL (SQL) or null (JSON). It implements
// [sql.Scanner], [driver.Valuer], [json.Marshaler] and [json.Unmarshaler].
type NullHUID struct {
	HUID  HUID
	Valid bool // Valid is true if HUID is not NULL
}

// Scan implements [sql.Scanner]: NULL, a nil *NullHUID or *HUID and a
// NullHUID that is not Valid give Valid=false; a valid NullHUID (or a
// pointer to it) is scanned as its HUID, and anything else as by
// [HUID.Scan], whose errors it returns.
func (n *NullHUID) Scan(src any) error {
	src = nullSource[HUID, NullHUID](src)
	if src == nil {
		*n = NullHUID{}
		return nil
	}
	if err := n.HUID.Scan(src); err != nil {
		return err
	}
	n.Valid = true
	return nil
}

// id returns the HUID and whether it is Valid, for nullSource.
func (n NullHUID) id() (HUID, bool) { return n.HUID, n.Valid }

// Value implements [driver.Valuer]: NULL when not Valid, else [HUID.Value].
func (n NullHUID) Value() (driver.Value, error) {
	if !n.Valid {
		return nil, nil
	}
	return n.HUID.Value()
}

// MarshalJSON implements [json.Marshaler]: null when not Valid, else the
// HUID as a JSON string.
func (n NullHUID) MarshalJSON() ([]byte, error) {
	if !n.Valid {
		return []byte("null"), nil
	}
	return n.HUID.MarshalJSON()
}

// UnmarshalJSON implements [json.Unmarshaler]: null gives Valid=false,
// anything else is decoded as by [HUID.UnmarshalJSON], whose errors it returns.
func (n *NullHUID) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*n = NullHUID{}
		return nil
	}
	if err := n.HUID.UnmarshalJSON(data); err != nil {
		return err
	}
	n.Valid = true
	return nil
}

// NullSCRU128 is a SCRU128 that may be NULL (SQL) or null (JSON), for uuid
// columns. It implements [sql.Scanner], [driver.Valuer], [json.Marshaler]
// and [json.Unmarshaler].
type NullSCRU128 struct {
	SCRU128 SCRU128
	Valid   bool // Valid is true if SCRU128 is not NULL
}

// Scan implements [sql.Scanner]: NULL, a nil *NullSCRU128 or *SCRU128 and a
// NullSCRU128 that is not Valid give Valid=false; a valid NullSCRU128 (or a
// pointer to it) is scanned as its SCRU128, and anything else as by
// [SCRU128.Scan], whose errors it returns.
func (n *NullSCRU128) Scan(src any) error {
	src = nullSource[SCRU128, NullSCRU128](src)
	if src == nil {
		*n = NullSCRU128{}
		return nil
	}
	if err := n.SCRU128.Scan(src); err != nil {
		return err
	}
	n.Valid = true
	return nil
}

// id returns the SCRU128 and whether it is Valid, for nullSource.
func (n NullSCRU128) id() (SCRU128, bool) { return n.SCRU128, n.Valid }

// Value implements [driver.Valuer]: NULL when not Valid, else the UUID form.
func (n NullSCRU128) Value() (driver.Value, error) {
	if !n.Valid {
		return nil, nil
	}
	return n.SCRU128.Value()
}

// MarshalJSON implements [json.Marshaler]: null when not Valid, else the
// 26-character form as a JSON string.
func (n NullSCRU128) MarshalJSON() ([]byte, error) {
	if !n.Valid {
		return []byte("null"), nil
	}
	return n.SCRU128.MarshalJSON()
}

// UnmarshalJSON implements [json.Unmarshaler]: null gives Valid=false,
// anything else is decoded as by [SCRU128.UnmarshalJSON], whose errors it returns.
func (n *NullSCRU128) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*n = NullSCRU128{}
		return nil
	}
	if err := n.SCRU128.UnmarshalJSON(data); err != nil {
		return err
	}
	n.Valid = true
	return nil
}

// NullSCRU128Bytes is a [SCRU128Bytes] that may be NULL (SQL) or null
// (JSON), for nullable bytea columns.
type NullSCRU128Bytes struct {
	SCRU128 SCRU128Bytes
	Valid   bool // Valid is true if SCRU128 is not NULL
}

// Scan implements [sql.Scanner]: NULL, a nil *NullSCRU128Bytes or
// *SCRU128Bytes and a NullSCRU128Bytes that is not Valid give Valid=false; a
// valid NullSCRU128Bytes (or a pointer to it) is scanned as its
// SCRU128Bytes, and anything else as by [SCRU128Bytes.Scan], whose errors it
// returns.
func (n *NullSCRU128Bytes) Scan(src any) error {
	src = nullSource[SCRU128Bytes, NullSCRU128Bytes](src)
	if src == nil {
		*n = NullSCRU128Bytes{}
		return nil
	}
	if err := n.SCRU128.Scan(src); err != nil {
		return err
	}
	n.Valid = true
	return nil
}

// id returns the SCRU128Bytes and whether it is Valid, for nullSource.
func (n NullSCRU128Bytes) id() (SCRU128Bytes, bool) { return n.SCRU128, n.Valid }

// Value implements [driver.Valuer]: NULL when not Valid, else the 16 bytes.
func (n NullSCRU128Bytes) Value() (driver.Value, error) {
	if !n.Valid {
		return nil, nil
	}
	return n.SCRU128.Value()
}

// MarshalJSON implements [json.Marshaler] as [NullSCRU128.MarshalJSON].
func (n NullSCRU128Bytes) MarshalJSON() ([]byte, error) {
	return NullSCRU128{SCRU128(n.SCRU128), n.Valid}.MarshalJSON()
}

// UnmarshalJSON implements [json.Unmarshaler] as [NullSCRU128.UnmarshalJSON].
func (n *NullSCRU128Bytes) UnmarshalJSON(data []byte) error {
	var v NullSCRU128
	if err := v.UnmarshalJSON(data); err != nil {
		return err
	}
	*n = NullSCRU128Bytes{SCRU128Bytes(v.SCRU128), v.Valid}
	return nil
}
