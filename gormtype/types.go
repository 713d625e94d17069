package gormtype

import (
	"context"
	"database/sql/driver"
	"fmt"
	"reflect"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/schema"

	"github.com/sortid/sortid/idtype"
)

// CreateClauses implements schema.CreateClausesInterface with the check of
// [checkPlugin].
func (HUID) CreateClauses(f *schema.Field) []clause.Interface { return checkPlugin(f) }

// CreateClauses implements schema.CreateClausesInterface as [HUID.CreateClauses].
func (SCRU128) CreateClauses(f *schema.Field) []clause.Interface { return checkPlugin(f) }

// CreateClauses implements schema.CreateClausesInterface as [HUID.CreateClauses].
func (SCRU128Bytes) CreateClauses(f *schema.Field) []clause.Interface { return checkPlugin(f) }

// checkPlugin makes a Create fail with [ErrSetup] when it leaves a field
// that [AutoID] would fill zero and the plugin is not registered: the
// database would store the zero key.
func checkPlugin(f *schema.Field) []clause.Interface { return []clause.Interface{pluginCheck{f}} }

type pluginCheck struct{ field *schema.Field }

func (pluginCheck) Name() string               { return "" }
func (pluginCheck) Build(clause.Builder)       {}
func (pluginCheck) MergeClause(*clause.Clause) {}

// ModifyStatement implements gorm.StatementModifier: GORM calls it when it
// adds the clause to a Create.
func (c pluginCheck) ModifyStatement(stmt *gorm.Statement) {
	if _, ok := stmt.DB.Config.Plugins[pluginName]; ok || !isAutoField(c.field) {
		return
	}
	zero := false
	eachRow(stmt.ReflectValue, func(row reflect.Value) {
		_, isZero := c.field.ValueOf(stmt.Context, row)
		zero = zero || isZero
	})
	if zero {
		stmt.AddError(fmt.Errorf("%w: %s.%s is zero and no AutoID plugin fills it; register it with db.Use(gormtype.AutoID{}), or set the field", ErrSetup, stmt.Schema.Name, c.field.Name))
	}
}

// Dialector names as gorm.Dialector.Name reports them.
const (
	dialectPostgres = "postgres"
	dialectMySQL    = "mysql"
	dialectSQLite   = "sqlite"
)

// HUID is an [idtype.HUID] field: a bigint column (integer on SQLite) that
// is never auto-increment, and a JSON string of the decimal form. The zero
// HUID means "not set" to [AutoID].
type HUID idtype.HUID

// NewHUID returns a HUID from idtype's default generator; it panics where
// [idtype.NewHUID] does.
func NewHUID() HUID { return HUID(idtype.NewHUID()) }

// ID returns h as an [idtype.HUID].
func (h HUID) ID() idtype.HUID { return idtype.HUID(h) }

// IsZero reports whether h is zero, the value of an unset field.
func (h HUID) IsZero() bool { return h == 0 }

// Time returns the millisecond h was made in, in UTC.
func (h HUID) Time() time.Time { return idtype.HUID(h).Time() }

// String returns the decimal form.
func (h HUID) String() string { return idtype.HUID(h).String() }

// MarshalText implements [encoding.TextMarshaler] as [idtype.HUID.MarshalText].
func (h HUID) MarshalText() ([]byte, error) { return idtype.HUID(h).MarshalText() }

// UnmarshalText implements [encoding.TextUnmarshaler] as [idtype.HUID.UnmarshalText].
func (h *HUID) UnmarshalText(text []byte) error { return (*idtype.HUID)(h).UnmarshalText(text) }

// MarshalJSON implements [json.Marshaler]: a JSON string of the decimal form.
func (h HUID) MarshalJSON() ([]byte, error) { return idtype.HUID(h).MarshalJSON() }

// UnmarshalJSON implements [json.Unmarshaler] as [idtype.HUID.UnmarshalJSON].
func (h *HUID) UnmarshalJSON(data []byte) error { return (*idtype.HUID)(h).UnmarshalJSON(data) }

// Value implements [driver.Valuer]: the HUID as an int64.
func (h HUID) Value() (driver.Value, error) { return idtype.HUID(h).Value() }

// Scan implements [sql.Scanner] as [idtype.HUID.Scan].
func (h *HUID) Scan(src any) error { return (*idtype.HUID)(h).Scan(src) }

// GormDataType implements schema.GormDataTypeInterface. It is not "int", so
// GORM never makes a HUID primary key auto-increment.
func (HUID) GormDataType() string { return "huid" }

// GormDBDataType returns the column type for db's dialect: integer on
// SQLite, bigint elsewhere.
func (HUID) GormDBDataType(db *gorm.DB, _ *schema.Field) string { return huidColumnType(db) }

func huidColumnType(db *gorm.DB) string {
	if db.Dialector.Name() == dialectSQLite {
		return "integer"
	}
	return "bigint"
}

// SCRU128 is an [idtype.SCRU128] field for a uuid column on PostgreSQL and a
// 16-byte binary column elsewhere, with the 26-character text and JSON form.
// The zero SCRU128 means "not set" to [AutoID].
type SCRU128 idtype.SCRU128

// NewSCRU128 returns a SCRU128 from idtype's default generator; it panics
// where [idtype.NewSCRU128] does.
func NewSCRU128() SCRU128 { return SCRU128(idtype.NewSCRU128()) }

// ID returns id as an [idtype.SCRU128].
func (id SCRU128) ID() idtype.SCRU128 { return idtype.SCRU128(id) }

// IsZero reports whether id is zero, the value of an unset field.
func (id SCRU128) IsZero() bool { return id == SCRU128{} }

// Time returns the millisecond id was made in, in UTC.
func (id SCRU128) Time() time.Time { return idtype.SCRU128(id).Time() }

// String returns the 26-character form.
func (id SCRU128) String() string { return idtype.SCRU128(id).String() }

// MarshalText implements [encoding.TextMarshaler] as [idtype.SCRU128.MarshalText].
func (id SCRU128) MarshalText() ([]byte, error) { return idtype.SCRU128(id).MarshalText() }

// UnmarshalText implements [encoding.TextUnmarshaler] as [idtype.SCRU128.UnmarshalText].
func (id *SCRU128) UnmarshalText(text []byte) error {
	return (*idtype.SCRU128)(id).UnmarshalText(text)
}

// MarshalJSON implements [json.Marshaler]: the 26-character form as a JSON string.
func (id SCRU128) MarshalJSON() ([]byte, error) { return idtype.SCRU128(id).MarshalJSON() }

// UnmarshalJSON implements [json.Unmarshaler] as [idtype.SCRU128.UnmarshalJSON].
func (id *SCRU128) UnmarshalJSON(data []byte) error {
	return (*idtype.SCRU128)(id).UnmarshalJSON(data)
}

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

// Scan implements [sql.Scanner] as [idtype.SCRU128.Scan]: 16 raw bytes, or
// the UUID or 26-character text.
func (id *SCRU128) Scan(src any) error { return (*idtype.SCRU128)(id).Scan(src) }

// GormDataType implements schema.GormDataTypeInterface.
func (SCRU128) GormDataType() string { return "scru128" }

// GormDBDataType returns the column type for db's dialect: uuid on
// PostgreSQL, blob on SQLite, binary(16) elsewhere.
func (SCRU128) GormDBDataType(db *gorm.DB, _ *schema.Field) string { return scru128ColumnType(db) }

func scru128ColumnType(db *gorm.DB) string {
	switch db.Dialector.Name() {
	case dialectPostgres:
		return "uuid"
	case dialectSQLite:
		return "blob"
	}
	return "binary(16)"
}

// SCRU128Bytes is an [idtype.SCRU128Bytes] field: a bytea column on
// PostgreSQL, binary(16) on MySQL, blob on SQLite, always bound as the 16
// raw bytes, with the 26-character text and JSON form.
type SCRU128Bytes idtype.SCRU128Bytes

// NewSCRU128Bytes returns a SCRU128Bytes from idtype's default generator;
// it panics where [idtype.NewSCRU128] does.
func NewSCRU128Bytes() SCRU128Bytes { return SCRU128Bytes(idtype.NewSCRU128()) }

// ID returns b as an [idtype.SCRU128].
func (b SCRU128Bytes) ID() idtype.SCRU128 { return idtype.SCRU128(b) }

// IsZero reports whether b is zero, the value of an unset field.
func (b SCRU128Bytes) IsZero() bool { return b == SCRU128Bytes{} }

// Time returns the millisecond b was made in, in UTC.
func (b SCRU128Bytes) Time() time.Time { return idtype.SCRU128(b).Time() }

// String returns the 26-character form.
func (b SCRU128Bytes) String() string { return idtype.SCRU128(b).String() }

// MarshalText implements [encoding.TextMarshaler] as [idtype.SCRU128.MarshalText].
func (b SCRU128Bytes) MarshalText() ([]byte, error) { return idtype.SCRU128(b).MarshalText() }

// UnmarshalText implements [encoding.TextUnmarshaler] as [idtype.SCRU128.UnmarshalText].
func (b *SCRU128Bytes) UnmarshalText(text []byte) error {
	return (*idtype.SCRU128)(b).UnmarshalText(text)
}

// MarshalJSON implements [json.Marshaler]: the 26-character form as a JSON string.
func (b SCRU128Bytes) MarshalJSON() ([]byte, error) { return idtype.SCRU128(b).MarshalJSON() }

// UnmarshalJSON implements [json.Unmarshaler] as [idtype.SCRU128.UnmarshalJSON].
func (b *SCRU128Bytes) UnmarshalJSON(data []byte) error {
	return (*idtype.SCRU128)(b).UnmarshalJSON(data)
}

// Value implements [driver.Valuer] with the 16 raw bytes.
func (b SCRU128Bytes) Value() (driver.Value, error) { return idtype.SCRU128Bytes(b).Value() }

// Scan implements [sql.Scanner] as [idtype.SCRU128Bytes.Scan]: exactly 16 bytes.
func (b *SCRU128Bytes) Scan(src any) error { return (*idtype.SCRU128Bytes)(b).Scan(src) }

// GormDataType implements schema.GormDataTypeInterface.
func (SCRU128Bytes) GormDataType() string { return "scru128bytes" }

// GormDBDataType returns the column type for db's dialect: bytea on
// PostgreSQL, blob on SQLite, binary(16) elsewhere.
func (SCRU128Bytes) GormDBDataType(db *gorm.DB, _ *schema.Field) string {
	return scru128BytesColumnType(db)
}

func scru128BytesColumnType(db *gorm.DB) string {
	switch db.Dialector.Name() {
	case dialectPostgres:
		return "bytea"
	case dialectSQLite:
		return "blob"
	}
	return "binary(16)"
}
