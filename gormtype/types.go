package gormtype

import (
	"context"
	"database/sql/driver"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/schema"

	"github.com/sortid/sortid/idtype"
)

// columnType returns the column type for db's dialect.
func columnType(db *gorm.DB, postgres, mysql, sqlite string) string {
	if t, ok := map[string]string{"postgres": postgres, "sqlite": sqlite}[db.Dialector.Name()]; ok {
		return t
	}
	return mysql
}

// zeroID is the error of binding the zero value of the ID type named name.
func zeroID(name string) error {
	return fmt.Errorf("%w: a zero gormtype.%s means \"not set\"; set it, or use Null%s for a column that may be empty; on Create, db.Use(gormtype.AutoID{}) fills a zero key or sortid:\"auto\" field",
		ErrZeroID, name, name)
}

// refused is a bound value that the driver refuses with its error. It is
// a func so that GORM takes it for one value, not a struct of conditions.
type refused func() error

// Value, Error and MarshalJSON fail with r's error, which GORM drops
// where it takes a zero ID's Value for its own (a map it scans into).
func (r refused) Value() (driver.Value, error) { return nil, r() }
func (r refused) Error() string                { return r().Error() }
func (r refused) MarshalJSON() ([]byte, error) { return nil, r() }

func refusal(err error) refused { return func() error { return err } }

// scan runs an idtype Scan, or returns the error of a zero ID's Value that
// GORM scans back into an ID (a condition's value it assigns, FirstOrInit).
func scan(src any, idScan func(any) error) error {
	if r, ok := src.(refused); ok {
		return r()
	}
	return idScan(src)
}

// failing is SQL that the driver refuses with err, where GORM would drop
// an error (a subquery's, a group condition's) or write NULL.
func failing(err error) clause.Expr {
	return clause.Expr{SQL: "?", Vars: []any{refusal(err)}}
}

// zeroValue is the Value of a zero ID of the type named name: the error,
// and not nil but a value the driver refuses, as GORM drops the error and
// writes a nil value in a condition as IS NULL.
func zeroValue(name string) (driver.Value, error) {
	err := zeroID(name)
	return refusal(err), err
}

// HUID is an [idtype.HUID] field: a bigint column (integer on SQLite),
// never auto-increment, a JSON string. Zero means "not set".
type HUID idtype.HUID

// NewHUID returns a HUID from idtype's default generator, panicking where
// [idtype.NewHUID] does.
func NewHUID() HUID { return HUID(idtype.NewHUID()) }

// ID returns h as an [idtype.HUID]; IsZero reports whether h is unset. The
// other methods are the idtype.HUID's.
func (h HUID) ID() idtype.HUID                  { return idtype.HUID(h) }
func (h HUID) IsZero() bool                     { return h == 0 }
func (h HUID) Time() time.Time                  { return idtype.HUID(h).Time() }
func (h HUID) String() string                   { return idtype.HUID(h).String() }
func (h HUID) MarshalText() ([]byte, error)     { return idtype.HUID(h).MarshalText() }
func (h *HUID) UnmarshalText(text []byte) error { return (*idtype.HUID)(h).UnmarshalText(text) }
func (h HUID) MarshalJSON() ([]byte, error)     { return idtype.HUID(h).MarshalJSON() }
func (h *HUID) UnmarshalJSON(data []byte) error { return (*idtype.HUID)(h).UnmarshalJSON(data) }
func (h *HUID) Scan(src any) error              { return scan(src, (*idtype.HUID)(h).Scan) }

// Value implements [driver.Valuer]: the int64, or for zero [ErrZeroID]
// and a value that the driver refuses so.
func (h HUID) Value() (driver.Value, error) {
	if h == 0 {
		return zeroValue("HUID")
	}
	return idtype.HUID(h).Value()
}

// GormDataType is not "int": GORM never makes a HUID key auto-increment.
func (HUID) GormDataType() string { return "huid" }
func (HUID) GormDBDataType(db *gorm.DB, _ *schema.Field) string {
	return columnType(db, "bigint", "bigint", "integer")
}

// SCRU128 is an [idtype.SCRU128] field: uuid on PostgreSQL, 16 bytes
// elsewhere, 26 characters in text and JSON. Zero means "not set".
type SCRU128 idtype.SCRU128

// NewSCRU128 returns a SCRU128 from idtype's default generator, panicking
// where [idtype.NewSCRU128] does.
func NewSCRU128() SCRU128 { return SCRU128(idtype.NewSCRU128()) }

// ID returns id as an [idtype.SCRU128]; IsZero reports whether id is
// unset. The other methods are the idtype.SCRU128's.
func (id SCRU128) ID() idtype.SCRU128               { return idtype.SCRU128(id) }
func (id SCRU128) IsZero() bool                     { return id == SCRU128{} }
func (id SCRU128) Time() time.Time                  { return idtype.SCRU128(id).Time() }
func (id SCRU128) String() string                   { return idtype.SCRU128(id).String() }
func (id SCRU128) MarshalText() ([]byte, error)     { return idtype.SCRU128(id).MarshalText() }
func (id *SCRU128) UnmarshalText(text []byte) error { return (*idtype.SCRU128)(id).UnmarshalText(text) }
func (id SCRU128) MarshalJSON() ([]byte, error)     { return idtype.SCRU128(id).MarshalJSON() }
func (id *SCRU128) UnmarshalJSON(data []byte) error { return (*idtype.SCRU128)(id).UnmarshalJSON(data) }
func (id *SCRU128) Scan(src any) error              { return scan(src, (*idtype.SCRU128)(id).Scan) }

// Value implements [driver.Valuer]: the UUID text, or for zero [ErrZeroID]
// and a value that the driver refuses so. GORM binds [SCRU128.GormValue]
// instead.
func (id SCRU128) Value() (driver.Value, error) {
	if id.IsZero() {
		return zeroValue("SCRU128")
	}
	return idtype.SCRU128(id).Value()
}

// GormValue implements gorm.Valuer: the UUID text on PostgreSQL, the 16
// bytes elsewhere; zero makes the statement fail with [ErrZeroID].
func (id SCRU128) GormValue(_ context.Context, db *gorm.DB) clause.Expr {
	switch {
	case id.IsZero(): // bound too: GORM drops a subquery's error, not a driver's
		err := zeroID("SCRU128")
		_ = db.AddError(err)
		return failing(err)
	case db.Dialector.Name() == "postgres":
		return clause.Expr{SQL: "?", Vars: []any{idtype.SCRU128(id).UUIDString()}}
	}
	return clause.Expr{SQL: "?", Vars: []any{id[:]}}
}

// GormDataType and GormDBDataType name the column type.
func (SCRU128) GormDataType() string { return "scru128" }
func (SCRU128) GormDBDataType(db *gorm.DB, _ *schema.Field) string {
	return columnType(db, "uuid", "binary(16)", "blob")
}

// SCRU128Bytes is an [idtype.SCRU128Bytes] field: bytea on PostgreSQL,
// always the 16 bytes in SQL, 26 characters in text and JSON. Zero means
// "not set".
type SCRU128Bytes idtype.SCRU128Bytes

// NewSCRU128Bytes returns a SCRU128Bytes from idtype's default generator,
// panicking where [idtype.NewSCRU128] does.
func NewSCRU128Bytes() SCRU128Bytes { return SCRU128Bytes(idtype.NewSCRU128()) }

// ID returns b as an [idtype.SCRU128]; IsZero reports whether b is unset.
// The other methods are the idtype.SCRU128Bytes'.
func (b SCRU128Bytes) ID() idtype.SCRU128           { return idtype.SCRU128(b) }
func (b SCRU128Bytes) IsZero() bool                 { return b == SCRU128Bytes{} }
func (b SCRU128Bytes) Time() time.Time              { return idtype.SCRU128(b).Time() }
func (b SCRU128Bytes) String() string               { return idtype.SCRU128(b).String() }
func (b SCRU128Bytes) MarshalText() ([]byte, error) { return idtype.SCRU128(b).MarshalText() }
func (b *SCRU128Bytes) UnmarshalText(text []byte) error {
	return (*idtype.SCRU128)(b).UnmarshalText(text)
}
func (b SCRU128Bytes) MarshalJSON() ([]byte, error) { return idtype.SCRU128(b).MarshalJSON() }
func (b *SCRU128Bytes) UnmarshalJSON(data []byte) error {
	return (*idtype.SCRU128)(b).UnmarshalJSON(data)
}
func (b *SCRU128Bytes) Scan(src any) error { return scan(src, (*idtype.SCRU128Bytes)(b).Scan) }
func (SCRU128Bytes) GormDataType() string  { return "scru128bytes" }
func (SCRU128Bytes) GormDBDataType(db *gorm.DB, _ *schema.Field) string {
	return columnType(db, "bytea", "binary(16)", "blob")
}

// Value implements [driver.Valuer]: the 16 bytes, or for zero [ErrZeroID]
// and a value that the driver refuses so.
func (b SCRU128Bytes) Value() (driver.Value, error) {
	if b.IsZero() {
		return zeroValue("SCRU128Bytes")
	}
	return idtype.SCRU128Bytes(b).Value()
}
