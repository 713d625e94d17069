package gormtype

import (
	"context"
	"database/sql/driver"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/schema"

	"github.com/sortid/sortid/idtype"
)

// NullHUID is a [HUID] that may be NULL (SQL) or null (JSON), for nullable
// columns such as optional foreign keys.
type NullHUID struct {
	HUID  HUID
	Valid bool // Valid is true if HUID is not NULL
}

func (n NullHUID) id() idtype.NullHUID {
	return idtype.NullHUID{HUID: idtype.HUID(n.HUID), Valid: n.Valid}
}

// set stores v when err, the error of decoding it, is nil.
func (n *NullHUID) set(v *idtype.NullHUID, err error) error {
	if err == nil {
		*n = NullHUID{HUID(v.HUID), v.Valid}
	}
	return err
}

// MarshalJSON, UnmarshalJSON, Value and Scan implement the standard
// interfaces as [idtype.NullHUID] does: null in JSON, NULL in SQL.
func (n NullHUID) MarshalJSON() ([]byte, error) { return n.id().MarshalJSON() }
func (n *NullHUID) UnmarshalJSON(data []byte) error {
	var v idtype.NullHUID
	return n.set(&v, v.UnmarshalJSON(data))
}
func (n NullHUID) Value() (driver.Value, error) { return n.id().Value() }
func (n *NullHUID) Scan(src any) error {
	var v idtype.NullHUID
	return n.set(&v, v.Scan(src))
}

// GormDataType, GormDBDataType and CreateClauses are those of [HUID].
func (NullHUID) GormDataType() string { return "huid" }
func (NullHUID) GormDBDataType(db *gorm.DB, f *schema.Field) string {
	return HUID(0).GormDBDataType(db, f)
}
func (NullHUID) CreateClauses(f *schema.Field) []clause.Interface { return checkPlugin(f) }

// NullSCRU128 is a [SCRU128] that may be NULL (SQL) or null (JSON).
type NullSCRU128 struct {
	SCRU128 SCRU128
	Valid   bool // Valid is true if SCRU128 is not NULL
}

func (n NullSCRU128) id() idtype.NullSCRU128 {
	return idtype.NullSCRU128{SCRU128: idtype.SCRU128(n.SCRU128), Valid: n.Valid}
}

// set stores v when err, the error of decoding it, is nil.
func (n *NullSCRU128) set(v *idtype.NullSCRU128, err error) error {
	if err == nil {
		*n = NullSCRU128{SCRU128(v.SCRU128), v.Valid}
	}
	return err
}

// MarshalJSON, UnmarshalJSON and Scan implement the standard interfaces
// as [idtype.NullSCRU128] does; Value and GormValue are NULL when not
// Valid, else those of [SCRU128].
func (n NullSCRU128) MarshalJSON() ([]byte, error) { return n.id().MarshalJSON() }
func (n *NullSCRU128) UnmarshalJSON(data []byte) error {
	var v idtype.NullSCRU128
	return n.set(&v, v.UnmarshalJSON(data))
}
func (n *NullSCRU128) Scan(src any) error {
	var v idtype.NullSCRU128
	return n.set(&v, v.Scan(src))
}
func (n NullSCRU128) Value() (driver.Value, error) {
	if !n.Valid {
		return nil, nil
	}
	return n.SCRU128.Value()
}
func (n NullSCRU128) GormValue(ctx context.Context, db *gorm.DB) clause.Expr {
	if !n.Valid {
		return clause.Expr{SQL: "NULL"}
	}
	return n.SCRU128.GormValue(ctx, db)
}

// GormDataType, GormDBDataType and CreateClauses are those of [SCRU128].
func (NullSCRU128) GormDataType() string { return "scru128" }
func (NullSCRU128) GormDBDataType(db *gorm.DB, f *schema.Field) string {
	return SCRU128{}.GormDBDataType(db, f)
}
func (NullSCRU128) CreateClauses(f *schema.Field) []clause.Interface { return checkPlugin(f) }

// NullSCRU128Bytes is a [SCRU128Bytes] that may be NULL (SQL) or null (JSON).
type NullSCRU128Bytes struct {
	SCRU128 SCRU128Bytes
	Valid   bool // Valid is true if SCRU128 is not NULL
}

func (n NullSCRU128Bytes) id() idtype.NullSCRU128Bytes {
	return idtype.NullSCRU128Bytes{SCRU128: idtype.SCRU128Bytes(n.SCRU128), Valid: n.Valid}
}

// set stores v when err, the error of decoding it, is nil.
func (n *NullSCRU128Bytes) set(v *idtype.NullSCRU128Bytes, err error) error {
	if err == nil {
		*n = NullSCRU128Bytes{SCRU128Bytes(v.SCRU128), v.Valid}
	}
	return err
}

// MarshalJSON, UnmarshalJSON, Value and Scan implement the standard
// interfaces as [idtype.NullSCRU128Bytes] does: null in JSON, NULL in SQL.
func (n NullSCRU128Bytes) MarshalJSON() ([]byte, error) { return n.id().MarshalJSON() }
func (n *NullSCRU128Bytes) UnmarshalJSON(data []byte) error {
	var v idtype.NullSCRU128Bytes
	return n.set(&v, v.UnmarshalJSON(data))
}
func (n NullSCRU128Bytes) Value() (driver.Value, error) { return n.id().Value() }
func (n *NullSCRU128Bytes) Scan(src any) error {
	var v idtype.NullSCRU128Bytes
	return n.set(&v, v.Scan(src))
}

// GormDataType, GormDBDataType and CreateClauses are those of [SCRU128Bytes].
func (NullSCRU128Bytes) GormDataType() string { return "scru128bytes" }
func (NullSCRU128Bytes) GormDBDataType(db *gorm.DB, f *schema.Field) string {
	return SCRU128Bytes{}.GormDBDataType(db, f)
}
func (NullSCRU128Bytes) CreateClauses(f *schema.Field) []clause.Interface { return checkPlugin(f) }
