package gormtype

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/schema"

	"github.com/sortid/sortid/idtype"
)

// ID is the constraint of [Null]: gormtype's ID types.
type ID interface {
	HUID | SCRU128 | SCRU128Bytes
	json.Marshaler
	driver.Valuer
	GormDataType() string
	GormDBDataType(*gorm.DB, *schema.Field) string
}

// Null is an ID that may be NULL (SQL) or null (JSON), for nullable
// columns, with [idtype.Null]'s contract: NULL when not Valid, else V. A
// Valid Null is stored as its V, so a zero V is not ([ErrZeroID]).
type Null[T ID] struct {
	V     T
	Valid bool // Valid is true if V is not NULL
}

// NullHUID, NullSCRU128 and NullSCRU128Bytes are the nullable [HUID],
// [SCRU128] and [SCRU128Bytes].
type (
	NullHUID         = Null[HUID]
	NullSCRU128      = Null[SCRU128]
	NullSCRU128Bytes = Null[SCRU128Bytes]
)

type idNull interface {
	sql.Scanner
	json.Unmarshaler
}

// decode runs f, Scan or UnmarshalJSON, on the idtype.Null of V's type;
// on error n keeps its value, as idtype.Null does.
func (n *Null[T]) decode(f func(idNull) error) (err error) {
	switch v := any(&n.V).(type) {
	case *HUID:
		m := idtype.NullHUID{V: idtype.HUID(*v), Valid: n.Valid}
		err = f(&m)
		*v, n.Valid = HUID(m.V), m.Valid
	case *SCRU128:
		m := idtype.NullSCRU128{V: idtype.SCRU128(*v), Valid: n.Valid}
		err = f(&m)
		*v, n.Valid = SCRU128(m.V), m.Valid
	case *SCRU128Bytes:
		m := idtype.NullSCRU128Bytes{V: idtype.SCRU128Bytes(*v), Valid: n.Valid}
		err = f(&m)
		*v, n.Valid = SCRU128Bytes(m.V), m.Valid
	}
	return err
}

// Scan implements [sql.Scanner] as [idtype.Null.Scan].
func (n *Null[T]) Scan(src any) error {
	return scan(src, func(src any) error { return n.decode(func(m idNull) error { return m.Scan(src) }) })
}

// UnmarshalJSON implements [json.Unmarshaler] as [idtype.Null.UnmarshalJSON].
func (n *Null[T]) UnmarshalJSON(data []byte) error {
	return n.decode(func(m idNull) error { return m.UnmarshalJSON(data) })
}

// Value implements [driver.Valuer]: NULL when not Valid, else V's Value.
func (n Null[T]) Value() (driver.Value, error) {
	if !n.Valid {
		return nil, nil
	}
	return n.V.Value()
}

// MarshalJSON implements [json.Marshaler]: null when not Valid, else V's.
func (n Null[T]) MarshalJSON() ([]byte, error) {
	if !n.Valid {
		return []byte("null"), nil
	}
	return n.V.MarshalJSON()
}

// GormValue implements gorm.Valuer: NULL when not Valid, else V's.
func (n Null[T]) GormValue(ctx context.Context, db *gorm.DB) clause.Expr {
	if !n.Valid {
		return clause.Expr{SQL: "?", Vars: []any{nil}}
	} else if v, ok := any(n.V).(gorm.Valuer); ok {
		return v.GormValue(ctx, db)
	}
	return clause.Expr{SQL: "?", Vars: []any{n.V}}
}

// GormDataType and GormDBDataType are those of V's type.
func (Null[T]) GormDataType() string { var v T; return v.GormDataType() }
func (Null[T]) GormDBDataType(db *gorm.DB, f *schema.Field) string {
	var v T
	return v.GormDBDataType(db, f)
}
