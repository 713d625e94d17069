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

// MarshalJSON implements [json.Marshaler]: null, or the HUID as a JSON string.
func (n NullHUID) MarshalJSON() ([]byte, error) { return n.id().MarshalJSON() }

// UnmarshalJSON implements [json.Unmarshaler] as [idtype.NullHUID.UnmarshalJSON].
func (n *NullHUID) UnmarshalJSON(data []byte) error {
	var v idtype.NullHUID
	if err := v.UnmarshalJSON(data); err != nil {
		return err
	}
	*n = NullHUID{HUID(v.HUID), v.Valid}
	return nil
}

// Value implements [driver.Valuer]: NULL, or the HUID as an int64.
func (n NullHUID) Value() (driver.Value, error) { return n.id().Value() }

// Scan implements [sql.Scanner] as [idtype.NullHUID.Scan].
func (n *NullHUID) Scan(src any) error {
	var v idtype.NullHUID
	if err := v.Scan(src); err != nil {
		return err
	}
	*n = NullHUID{HUID(v.HUID), v.Valid}
	return nil
}

// GormDataType implements schema.GormDataTypeInterface.
func (NullHUID) GormDataType() string { return "huid" }

// GormDBDataType returns the column type of [HUID.GormDBDataType].
func (NullHUID) GormDBDataType(db *gorm.DB, _ *schema.Field) string { return huidColumnType(db) }

// NullSCRU128 is a [SCRU128] that may be NULL (SQL) or null (JSON).
type NullSCRU128 struct {
	SCRU128 SCRU128
	Valid   bool // Valid is true if SCRU128 is not NULL
}

// MarshalJSON implements [json.Marshaler]: null, or the 26-character form.
func (n NullSCRU128) MarshalJSON() ([]byte, error) {
	return idtype.NullSCRU128{SCRU128: idtype.SCRU128(n.SCRU128), Valid: n.Valid}.MarshalJSON()
}

// UnmarshalJSON implements [json.Unmarshaler] as [idtype.NullSCRU128.UnmarshalJSON].
func (n *NullSCRU128) UnmarshalJSON(data []byte) error {
	var v idtype.NullSCRU128
	if err := v.UnmarshalJSON(data); err != nil {
		return err
	}
	*n = NullSCRU128{SCRU128(v.SCRU128), v.Valid}
	return nil
}

// Value implements [driver.Valuer]: NULL, or [SCRU128.Value].
func (n NullSCRU128) Value() (driver.Value, error) {
	if !n.Valid {
		return nil, nil
	}
	return n.SCRU128.Value()
}

// GormValue implements gorm.Valuer: NULL, or [SCRU128.GormValue].
func (n NullSCRU128) GormValue(ctx context.Context, db *gorm.DB) clause.Expr {
	if !n.Valid {
		return clause.Expr{SQL: "NULL"}
	}
	return n.SCRU128.GormValue(ctx, db)
}

// Scan implements [sql.Scanner] as [idtype.NullSCRU128.Scan].
func (n *NullSCRU128) Scan(src any) error {
	var v idtype.NullSCRU128
	if err := v.Scan(src); err != nil {
		return err
	}
	*n = NullSCRU128{SCRU128(v.SCRU128), v.Valid}
	return nil
}

// GormDataType implements schema.GormDataTypeInterface.
func (NullSCRU128) GormDataType() string { return "scru128" }

// GormDBDataType returns the column type of [SCRU128.GormDBDataType].
func (NullSCRU128) GormDBDataType(db *gorm.DB, _ *schema.Field) string {
	return scru128ColumnType(db)
}

// NullSCRU128Bytes is a [SCRU128Bytes] that may be NULL (SQL) or null (JSON).
type NullSCRU128Bytes struct {
	SCRU128 SCRU128Bytes
	Valid   bool // Valid is true if SCRU128 is not NULL
}

func (n NullSCRU128Bytes) id() idtype.NullSCRU128Bytes {
	return idtype.NullSCRU128Bytes{SCRU128: idtype.SCRU128Bytes(n.SCRU128), Valid: n.Valid}
}

// MarshalJSON implements [json.Marshaler]: null, or the 26-character form.
func (n NullSCRU128Bytes) MarshalJSON() ([]byte, error) { return n.id().MarshalJSON() }

// UnmarshalJSON implements [json.Unmarshaler] as [idtype.NullSCRU128Bytes.UnmarshalJSON].
func (n *NullSCRU128Bytes) UnmarshalJSON(data []byte) error {
	var v idtype.NullSCRU128Bytes
	if err := v.UnmarshalJSON(data); err != nil {
		return err
	}
	*n = NullSCRU128Bytes{SCRU128Bytes(v.SCRU128), v.Valid}
	return nil
}

// Value implements [driver.Valuer]: NULL, or the 16 raw bytes.
func (n NullSCRU128Bytes) Value() (driver.Value, error) { return n.id().Value() }

// Scan implements [sql.Scanner] as [idtype.NullSCRU128Bytes.Scan].
func (n *NullSCRU128Bytes) Scan(src any) error {
	var v idtype.NullSCRU128Bytes
	if err := v.Scan(src); err != nil {
		return err
	}
	*n = NullSCRU128Bytes{SCRU128Bytes(v.SCRU128), v.Valid}
	return nil
}

// GormDataType implements schema.GormDataTypeInterface.
func (NullSCRU128Bytes) GormDataType() string { return "scru128bytes" }

// GormDBDataType returns the column type of [SCRU128Bytes.GormDBDataType].
func (NullSCRU128Bytes) GormDBDataType(db *gorm.DB, _ *schema.Field) string {
	return scru128BytesColumnType(db)
}

// CreateClauses implements schema.CreateClausesInterface as [HUID.CreateClauses].
func (NullHUID) CreateClauses(f *schema.Field) []clause.Interface { return checkPlugin(f) }

// CreateClauses implements schema.CreateClausesInterface as [HUID.CreateClauses].
func (NullSCRU128) CreateClauses(f *schema.Field) []clause.Interface { return checkPlugin(f) }

// CreateClauses implements schema.CreateClausesInterface as [HUID.CreateClauses].
func (NullSCRU128Bytes) CreateClauses(f *schema.Field) []clause.Interface { return checkPlugin(f) }
