package gormtype

import (
	"context"
	"database/sql/driver"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/schema"

	"github.com/sortid/sortid/idtype"
)

// Dialector names as gorm.Dialector.Name reports them.
const (
	dialectPostgres = "postgres"
	dialectMySQL    = "mysql"
	dialectSQLite   = "sqlite"
)

// columnType returns the column type for db's dialect.
func columnType(db *gorm.DB, postgres, mysql, sqlite string) string {
	switch db.Dialector.Name() {
	case dialectPostgres:
		return postgres
	case dialectSQLite:
		return sqlite
	}
	return mysql
}

// HUID is an [idtype.HUID] field: a bigint column (integer on SQLite) that
// is never auto-increment, and a JSON string of the decimal form. The zero
// HUID means "not set" to [AutoID].
type HUID idtype.HUID

// NewHUID returns a HUID from idtype's default generator; it panics where
// [idtype.NewHUID] does.
func NewHUID() HUID { return HUID(idtype.NewHUID()) }

// ID returns h as an [idtype.HUID]. IsZero reports whether h is zero, the
// value of an unset field; Time and String are those of the idtype.HUID.
func (h HUID) ID() idtype.HUID { return idtype.HUID(h) }
func (h HUID) IsZero() bool    { return h == 0 }
func (h HUID) Time() time.Time { return idtype.HUID(h).Time() }
func (h HUID) String() string  { return idtype.HUID(h).String() }

// MarshalText, UnmarshalText, MarshalJSON, UnmarshalJSON, Value and Scan
// implement the standard interfaces as [idtype.HUID] does: the decimal
// form in text (a JSON string in JSON) and an int64 in SQL.
func (h HUID) MarshalText() ([]byte, error)     { return idtype.HUID(h).MarshalText() }
func (h *HUID) UnmarshalText(text []byte) error { return (*idtype.HUID)(h).UnmarshalText(text) }
func (h HUID) MarshalJSON() ([]byte, error)     { return idtype.HUID(h).MarshalJSON() }
func (h *HUID) UnmarshalJSON(data []byte) error { return (*idtype.HUID)(h).UnmarshalJSON(data) }
func (h HUID) Value() (driver.Value, error)     { return idtype.HUID(h).Value() }
func (h *HUID) Scan(src any) error              { return (*idtype.HUID)(h).Scan(src) }

// GormDataType implements schema.GormDataTypeInterface. It is not "int", so
// GORM never makes a HUID primary key auto-increment.
func (HUID) GormDataType() string { return "huid" }

// GormDBDataType returns the column type for db's dialect: integer on
// SQLite, bigint elsewhere.
func (HUID) GormDBDataType(db *gorm.DB, _ *schema.Field) string {
	return columnType(db, "bigint", "bigint", "integer")
}

// CreateClauses implements schema.CreateClausesInterface: see [checkPlugin].
func (HUID) CreateClauses(f *schema.Field) []clause.Interface { return checkPlugin(f) }

// SCRU128 is an [idtype.SCRU128] field for a uuid column on PostgreSQL and a
// 16-byte binary column elsewhere, with the 26-character text and JSON form.
// The zero SCRU128 means "not set" to [AutoID].
type SCRU128 idtype.SCRU128

// NewSCRU128 returns a SCRU128 from idtype's default generator; it panics
// where [idtype.NewSCRU128] does.
func NewSCRU128() SCRU128 { return SCRU128(idtype.NewSCRU128()) }

// ID returns id as an [idtype.SCRU128]. IsZero reports whether id is zero,
// the value of an unset field; Time and String are those of the SCRU128.
func (id SCRU128) ID() idtype.SCRU128 { return idtype.SCRU128(id) }
func (id SCRU128) IsZero() bool       { return id == SCRU128{} }
func (id SCRU128) Time() time.Time    { return idtype.SCRU128(id).Time() }
func (id SCRU128) String() string     { return idtype.SCRU128(id).String() }

// MarshalText, UnmarshalText, MarshalJSON, UnmarshalJSON and Scan implement
// the standard interfaces as [idtype.SCRU128] does: the 26-character form
// in text and JSON; 16 raw bytes, or the UUID or 26-character text, from SQL.
func (id SCRU128) MarshalText() ([]byte, error)     { return idtype.SCRU128(id).MarshalText() }
func (id *SCRU128) UnmarshalText(text []byte) error { return (*idtype.SCRU128)(id).UnmarshalText(text) }
func (id SCRU128) MarshalJSON() ([]byte, error)     { return idtype.SCRU128(id).MarshalJSON() }
func (id *SCRU128) UnmarshalJSON(data []byte) error { return (*idtype.SCRU128)(id).UnmarshalJSON(data) }
func (id *SCRU128) Scan(src any) error              { return (*idtype.SCRU128)(id).Scan(src) }

// Value implements [driver.Valuer] as [idtype.SCRU128.Value]: the UUID
// text, for PostgreSQL uuid columns. GORM statements use
// [SCRU128.GormValue], which sends the 16 raw bytes to MySQL and SQLite;
// only GORM's inline primary-key form db.First(&row, id) goes through Value,
// so on MySQL and SQLite write db.First(&row, "id = ?", id) instead.
func (id SCRU128) Value() (driver.Value, error) { return idtype.SCRU128(id).Value() }

// GormValue implements gorm.Valuer: the UUID text on PostgreSQL, which a
// uuid column takes under every protocol, the 16 raw bytes elsewhere.
func (id SCRU128) GormValue(_ context.Context, db *gorm.DB) clause.Expr {
	if db.Dialector.Name() == dialectPostgres {
		return clause.Expr{SQL: "?", Vars: []any{idtype.SCRU128(id).UUIDString()}}
	}
	return clause.Expr{SQL: "?", Vars: []any{id[:]}}
}

// GormDataType implements schema.GormDataTypeInterface.
func (SCRU128) GormDataType() string { return "scru128" }

// GormDBDataType returns the column type for db's dialect: uuid on
// PostgreSQL, blob on SQLite, binary(16) elsewhere.
func (SCRU128) GormDBDataType(db *gorm.DB, _ *schema.Field) string {
	return columnType(db, "uuid", "binary(16)", "blob")
}

// CreateClauses implements schema.CreateClausesInterface: see [checkPlugin].
func (SCRU128) CreateClauses(f *schema.Field) []clause.Interface { return checkPlugin(f) }

// SCRU128Bytes is an [idtype.SCRU128Bytes] field: a bytea column on
// PostgreSQL, binary(16) on MySQL, blob on SQLite, always bound as the 16
// raw bytes, with the 26-character text and JSON form.
type SCRU128Bytes idtype.SCRU128Bytes

// NewSCRU128Bytes returns a SCRU128Bytes from idtype's default generator;
// it panics where [idtype.NewSCRU128] does.
func NewSCRU128Bytes() SCRU128Bytes { return SCRU128Bytes(idtype.NewSCRU128()) }

// ID returns b as an [idtype.SCRU128]. IsZero reports whether b is zero,
// the value of an unset field; Time and String are those of the SCRU128.
func (b SCRU128Bytes) ID() idtype.SCRU128 { return idtype.SCRU128(b) }
func (b SCRU128Bytes) IsZero() bool       { return b == SCRU128Bytes{} }
func (b SCRU128Bytes) Time() time.Time    { return idtype.SCRU128(b).Time() }
func (b SCRU128Bytes) String() string     { return idtype.SCRU128(b).String() }

// MarshalText, UnmarshalText, MarshalJSON, UnmarshalJSON, Value and Scan
// implement the standard interfaces as [idtype.SCRU128Bytes] does: the
// 26-character form in text and JSON, exactly 16 raw bytes in SQL.
func (b SCRU128Bytes) MarshalText() ([]byte, error) { return idtype.SCRU128(b).MarshalText() }
func (b *SCRU128Bytes) UnmarshalText(text []byte) error {
	return (*idtype.SCRU128)(b).UnmarshalText(text)
}
func (b SCRU128Bytes) MarshalJSON() ([]byte, error) { return idtype.SCRU128(b).MarshalJSON() }
func (b *SCRU128Bytes) UnmarshalJSON(data []byte) error {
	return (*idtype.SCRU128)(b).UnmarshalJSON(data)
}
func (b SCRU128Bytes) Value() (driver.Value, error) { return idtype.SCRU128Bytes(b).Value() }
func (b *SCRU128Bytes) Scan(src any) error          { return (*idtype.SCRU128Bytes)(b).Scan(src) }

// GormDataType implements schema.GormDataTypeInterface.
func (SCRU128Bytes) GormDataType() string { return "scru128bytes" }

// GormDBDataType returns the column type for db's dialect: bytea on
// PostgreSQL, blob on SQLite, binary(16) elsewhere.
func (SCRU128Bytes) GormDBDataType(db *gorm.DB, _ *schema.Field) string {
	return columnType(db, "bytea", "binary(16)", "blob")
}

// CreateClauses implements schema.CreateClausesInterface: see [checkPlugin].
func (SCRU128Bytes) CreateClauses(f *schema.Field) []clause.Interface { return checkPlugin(f) }
