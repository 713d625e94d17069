package gormtype

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/schema"
)

// Between returns a scope that keeps the rows whose ID in column was made in
// [from, to): WHERE column BETWEEN lo AND hi, with the bounds of
// [idtype.HUIDRange] or [idtype.SCRU128Range], an index range on the key.
// It picks the bounds by the type of the model's field for column (its
// database or Go name, optionally table-qualified), so the query needs a
// model; for a column the model lacks, or a query without one, use
// [BetweenHUID], [BetweenSCRU128] or [BetweenSCRU128Bytes]. A bad window
// or an unknown column becomes the query's error ([ErrUnknownColumn]).
func Between(column string, from, to time.Time) func(*gorm.DB) *gorm.DB {
	return func(db *gorm.DB) *gorm.DB {
		f, err := idField(db, column)
		if err != nil {
			_ = db.AddError(err)
			return db
		}
		table, _ := splitColumn(column)
		return between(db, table+f.DBName, schemeOf(f.FieldType), from, to)
	}
}

// BetweenHUID is [Between] for a HUID column, whatever the model.
func BetweenHUID(column string, from, to time.Time) func(*gorm.DB) *gorm.DB {
	return func(db *gorm.DB) *gorm.DB { return between(db, column, &schemes[0], from, to) }
}

// BetweenSCRU128 is [Between] for a SCRU128 column (uuid on PostgreSQL).
func BetweenSCRU128(column string, from, to time.Time) func(*gorm.DB) *gorm.DB {
	return func(db *gorm.DB) *gorm.DB { return between(db, column, &schemes[1], from, to) }
}

// BetweenSCRU128Bytes is [Between] for a SCRU128Bytes column (bytea on PostgreSQL).
func BetweenSCRU128Bytes(column string, from, to time.Time) func(*gorm.DB) *gorm.DB {
	return func(db *gorm.DB) *gorm.DB { return between(db, column, &schemes[2], from, to) }
}

func between(db *gorm.DB, column string, s *scheme, from, to time.Time) *gorm.DB {
	lo, hi, err := s.bounds(from, to)
	if err != nil {
		_ = db.AddError(fmt.Errorf("gormtype: Between(%q): %w", column, err))
		return db
	}
	return db.Where(clause.Expr{SQL: "? BETWEEN ? AND ?", Vars: []any{clause.Column{Name: column}, lo, hi}})
}

// splitColumn splits "t.col" into "t." and "col".
func splitColumn(column string) (table, name string) {
	i := strings.LastIndexByte(column, '.') + 1
	return column[:i], column[i:]
}

// idField returns the model's ID field for column.
func idField(db *gorm.DB, column string) (*schema.Field, error) {
	stmt := db.Statement
	model := stmt.Model
	if model == nil {
		model = stmt.Dest
	}
	err := errors.New("the query has no model")
	if model != nil {
		err = stmt.Parse(model)
	}
	if err != nil {
		return nil, fmt.Errorf("%w %q: %w; pass one with db.Model(&Row{}), or use BetweenHUID, BetweenSCRU128 or BetweenSCRU128Bytes", ErrUnknownColumn, column, err)
	}
	_, name := splitColumn(column)
	if f := stmt.Schema.LookUpField(name); f != nil && schemeOf(f.FieldType) != nil {
		return f, nil
	}
	return nil, fmt.Errorf("%w %q in model %s", ErrUnknownColumn, column, stmt.Schema.Name)
}
