package gormtype

import (
	"bytes"
	"context"
	"database/sql/driver"
	"encoding/json"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/schema"
)

// ID is the constraint of [Null]: gormtype's ID types.
type ID interface {
	HUID | SCRU128 | SCRU128Bytes
	IsZero() bool
	json.Marshaler
	driver.Valuer
	GormDataType() string
	GormDBDataType(*gorm.DB, *schema.Field) string
}

// Null is an ID that may be NULL (SQL) or null (JSON), for nullable
// columns. A Valid Null with a zero V is never stored ([ErrZeroID]).
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

// Scan implements [sql.Scanner]: NULL is not Valid, the rest V's Scan.
func (n *Null[T]) Scan(src any) error {
	var v T
	if src == nil {
		*n = Null[T]{}
		return nil
	}
	if err := any(&v).(interface{ Scan(any) error }).Scan(src); err != nil {
		return err
	}
	*n = Null[T]{v, true}
	return nil
}

// Value implements [driver.Valuer]: NULL when not Valid, else V's Value.
func (n Null[T]) Value() (driver.Value, error) {
	if !n.Valid {
		return nil, nil
	}
	return n.V.Value()
}

// GormValue implements gorm.Valuer: NULL when not Valid, else V's.
func (n Null[T]) GormValue(ctx context.Context, db *gorm.DB) clause.Expr {
	if !n.Valid {
		return clause.Expr{SQL: "?", Vars: []any{nil}}
	}
	if v, ok := any(n.V).(gorm.Valuer); ok {
		return v.GormValue(ctx, db)
	}
	return clause.Expr{SQL: "?", Vars: []any{n.V}}
}

// MarshalJSON implements [json.Marshaler]: null when not Valid, else V's.
func (n Null[T]) MarshalJSON() ([]byte, error) {
	if !n.Valid {
		return []byte("null"), nil
	}
	return n.V.MarshalJSON()
}

// UnmarshalJSON implements [json.Unmarshaler]: null is not Valid, the rest
// V's UnmarshalJSON.
func (n *Null[T]) UnmarshalJSON(data []byte) error {
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		*n = Null[T]{}
		return nil
	}
	var v T
	if err := any(&v).(json.Unmarshaler).UnmarshalJSON(data); err != nil {
		return err
	}
	*n = Null[T]{v, true}
	return nil
}

// GormDataType and GormDBDataType are those of V's type.
func (Null[T]) GormDataType() string { var v T; return v.GormDataType() }
func (Null[T]) GormDBDataType(db *gorm.DB, f *schema.Field) string {
	var v T
	return v.GormDBDataType(db, f)
}
