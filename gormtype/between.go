package gormtype

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Between returns a scope that keeps the rows whose ID in column was made in
// [from, to): WHERE column BETWEEN lo AND hi, with the bounds of
// [idtype.HUIDRange] or [idtype.SCRU128Range], an index range on the key.
// It picks them by the model's field for column (its database or Go name,
// optionally table-qualified); without a model, or for a column the model
// lacks, use [BetweenHUID], [BetweenSCRU128] or [BetweenSCRU128Bytes]. A
// bad window, or an unknown column ([ErrUnknownColumn]), becomes the
// query's error, also in a group condition (Where(db.Scopes(…))). One scope
// may serve queries on many goroutines.
func Between(column string, from, to time.Time) func(*gorm.DB) *gorm.DB {
	return func(db *gorm.DB) *gorm.DB {
		stmt, model, err := db.Statement, db.Statement.Model, fmt.Errorf("the query has no model")
		if model == nil {
			model = stmt.Dest
		}
		if model != nil {
			err = stmt.Parse(model)
		}
		if err != nil {
			return addError(db, fmt.Errorf("%w %q: %w; pass one with db.Model(&Row{}), or use BetweenHUID, BetweenSCRU128 or BetweenSCRU128Bytes", ErrUnknownColumn, column, err))
		}
		i := strings.LastIndexByte(column, '.') + 1 // "table.column"
		if f := stmt.Schema.LookUpField(column[i:]); f != nil && schemeOf(f.FieldType) != nil {
			return between(db, column[:i]+f.DBName, schemeOf(f.FieldType), from, to)
		}
		return addError(db, fmt.Errorf("%w %q in model %s", ErrUnknownColumn, column, stmt.Schema.Name))
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
		return addError(db, fmt.Errorf("gormtype: Between(%q): %w", column, err))
	} else if reflect.ValueOf(lo).IsZero() { // from the epoch: a zero ID binds as ErrZeroID
		return db.Where(clause.Expr{SQL: "? <= ?", Vars: []any{clause.Column{Name: column}, hi}})
	}
	return db.Where(clause.Expr{SQL: "? BETWEEN ? AND ?", Vars: []any{clause.Column{Name: column}, lo, hi}})
}

// addError fails the query with err, also where GORM drops the scope's
// error (a group condition, Where(db.Scopes(…))): its condition binds a
// value the driver refuses. A subquery runs as a dry run, and GORM writes
// one that failed as no SQL: there the condition alone fails the query.
func addError(db *gorm.DB, err error) *gorm.DB {
	if !db.DryRun {
		_ = db.AddError(err)
	}
	return db.Where(failing(err))
}
