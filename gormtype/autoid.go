package gormtype

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	"gorm.io/gorm"

	"github.com/sortid/sortid/idtype"
)

// DefaultRetries is how often [Transaction] reruns its function after a
// collision when AutoID.Retries is zero.
const DefaultRetries = 3

const pluginName = "sortid:autoid"

// AutoID is the GORM plugin that fills IDs: db.Use(gormtype.AutoID{}).
//
// Before the hooks of every Create (CreateInBatches, FirstOrCreate, the
// Save of a new row, and the Creates saving associations) it gives a fresh
// ID to every unset field (zero, a nil pointer, a NULL Null) of a gormtype
// ID type that is a primary key or tagged sortid:"auto", unless tagged
// sortid:"-" or filled by a database default the model declares. Rows
// given by key to an upsert on the key (db.Save's, association saves) are
// stored as given. The HUIDs of one statement ascend with its rows.
//
// It never runs a statement again: when a unique key whose value it filled
// in every row is taken, the Create fails with [ErrKeyTaken], and
// [Transaction] retries. A failed Create unsets the fields AutoID filled
// for the INSERT that failed and, when GORM opened a transaction for the
// Create or for a Save or Update that saves associations (not
// CreateInBatches' batches), all it filled since, in hooks too; rows
// stored by earlier statements outside a rolled-back transaction keep
// their keys. A
// Create that a fresh value could make update or skip another row, or that
// would store a zero ID, fails with [ErrRefused] or [ErrZeroID] naming the
// way out (docs/gorm.md). Map values and inline keys (db.First(&row, id))
// are bound as their field's type; a condition on a zero ID fails with
// ErrZeroID. AutoID is safe for concurrent use when
// its generators and OnCollision are.
type AutoID struct {
	// Retries bounds the reruns of [Transaction]: 0 means DefaultRetries,
	// a negative value none.
	Retries int
	// GenerateHUID and GenerateSCRU128 make IDs; nil means idtype's
	// FillHUIDs and GenerateSCRU128.
	GenerateHUID    func() (idtype.HUID, error)
	GenerateSCRU128 func() (idtype.SCRU128, error)
	// OnCollision, if not nil, is called with the Create's context, its
	// table and the driver's error each time a fresh value is taken: before
	// the Create fails with ErrKeyTaken, or with ErrRefused for a table
	// that keeps rows on a rollback. It is not called when the value taken
	// is not one AutoID drew: a trigger's key in another table (the
	// driver's error), or on MySQL a column that stores another number
	// than it is given (ErrRefused).
	OnCollision func(ctx context.Context, table string, err error)
}

// Name implements gorm.Plugin.
func (AutoID) Name() string { return pluginName }

// Initialize implements gorm.Plugin: it fills IDs before the hooks of
// every Create, wraps gorm:create to read the driver's error, and reports
// a collision last; it checks every Update, and the conditions of every
// statement. It
// returns [ErrSetup] (wrapped) when db has no gorm:create.
func (a AutoID) Initialize(db *gorm.DB) error {
	create := db.Callback().Create()
	insert := create.Get("gorm:create")
	if insert == nil {
		return fmt.Errorf("%w: no gorm:create callback, which AutoID wraps to read the driver's error", ErrSetup)
	}
	for _, err := range []error{
		create.After("gorm:begin_transaction").Before("gorm:before_create").Register("sortid:fill", a.fill),
		create.Replace("gorm:create", rawCreate(insert)),
		create.After("*").Register("sortid:finish", a.finish),
		db.Callback().Update().After("gorm:setup_reflect_value").Before("gorm:before_update").Register("sortid:update", update),
		db.Callback().Update().After("*").Register("sortid:updated", updated),
		db.Callback().Update().Before("gorm:update").Register("sortid:where", checkWhere),
		db.Callback().Query().Before("gorm:query").Register("sortid:where", checkWhere),
		db.Callback().Delete().Before("gorm:delete").Register("sortid:where", checkWhere),
		db.Callback().Delete().After("gorm:delete").Register("sortid:deleted", deleted),
		db.Callback().Row().Before("gorm:row").Register("sortid:where", checkWhere),
	} {
		if err != nil {
			return fmt.Errorf("gormtype: register AutoID's callbacks: %w", err)
		}
	}
	return nil
}

// fill refuses what AutoID cannot guarantee and fills the unset auto
// fields; it runs in the transaction GORM opens for the Create, if any.
func (a AutoID) fill(db *gorm.DB) {
	stmt, up := db.Statement, linkOf(db)
	nested := up != nil && up.open
	l := openLink(db)
	if db.Error != nil || db.DryRun || stmt.Schema == nil {
		return
	}
	fields, err := autoFields(stmt.Schema)
	if err == nil {
		err = checkMaps(stmt, fields, true)
	}
	if err == nil {
		err = checkAssociationKeys(stmt)
	}
	anyNew := true
	if err == nil && nested {
		anyNew, err = splitStored(db) // none: GORM's upsert of stored rows
	} else if err == nil && savesByKey(stmt) {
		anyNew = false
		eachRow(stmt.ReflectValue, func(row reflect.Value) { anyNew = anyNew || isNew(stmt, row) })
		if !anyNew {
			err = checkStored(stmt)
		}
	}
	f := &filled{}
	if err == nil && anyNew {
		f, err = collect(stmt, fields)
	}
	if err == nil && len(f.cols) > 0 {
		err = checkStatement(db, f)
	}
	if err != nil || len(f.cols) == 0 {
		db.AddError(err)
		return
	}
	l.own = f
	l.unit.record(f, "", false)
	db.AddError(f.draw(generators{a.GenerateHUID, a.GenerateSCRU128}))
}

// rawCreate wraps gorm:create: it refuses a zero ID field AutoID does not
// fill, records the table written to, and keeps the driver's error as it
// was made (with gorm.Config.TranslateError it would not name the key).
func rawCreate(create func(*gorm.DB)) func(*gorm.DB) {
	return func(db *gorm.DB) {
		if db.Error == nil && !db.DryRun && db.Statement.Schema != nil {
			db.AddError(checkUnset(db.Statement))
		}
		l, cfg := linkOf(db), db.Config
		if l == nil || db.Error != nil {
			create(db)
			return
		}
		if l.own != nil && cfg.TranslateError {
			raw := *cfg
			raw.TranslateError = false
			db.Config = &raw
		}
		create(db)
		db.Config = cfg
		wrote(db, l.unit)
		if f := l.own; f != nil {
			f.raw, f.inserted, db.Error = db.Error, db.Error == nil, nil
			if f.inserted && f.returning {
				f.readBack()
			}
			db.AddError(f.raw)
		}
	}
}

// finish turns a taken fresh value into ErrKeyTaken, unsets the fields
// filled in rows the failure did not store, and ends the statement's unit.
func (a AutoID) finish(db *gorm.DB) {
	l := linkOf(db)
	if l == nil || !l.open {
		return
	}
	if f := l.own; f != nil && db.Error != nil {
		if cols, hit := takenKey(db, f); hit {
			db.Error = a.collision(db, l, cols)
		}
		if !f.inserted {
			f.reset()
		}
	}
	l.close(db.Error)
}

// collision returns the error of a Create whose fresh value in the key
// cols was taken: ErrKeyTaken, or ErrRefused when no rerun can succeed.
func (a AutoID) collision(db *gorm.DB, l *link, cols []string) error {
	f := l.own
	if err := checkStoredKey(db, f, cols); err != nil {
		return err
	}
	if a.OnCollision != nil {
		a.OnCollision(db.Statement.Context, f.table, f.raw)
	}
	written := l.unit.tables()
	if f.rows > 1 { // a multi-row INSERT keeps the rows before the taken one
		written = append(written, f.table)
	}
	if err := checkEngines(db, f, written); err != nil {
		l.unit.record(nil, "", true)
		return err
	}
	return fmt.Errorf("%w: %s (%s); run the Create in gormtype.Transaction to retry it: %v", ErrKeyTaken, f.table, strings.Join(cols, ", "), f.raw)
}

// update marks an Update as running for the Creates that save its
// associations, and refuses one that would write a zero ID.
func update(db *gorm.DB) {
	openLink(db)
	if db.Error == nil && db.Statement.Schema != nil {
		err := checkMaps(db.Statement, nil, false)
		if err == nil {
			err = checkModelKey(db.Statement)
		}
		if err == nil {
			err = checkSave(db.Statement)
		}
		if err == nil {
			err = checkAssociationKeys(db.Statement)
		}
		db.AddError(err)
	}
}

// updated records what an Update wrote, and ends it.
func updated(db *gorm.DB) {
	if l := linkOf(db); l != nil && l.open {
		wrote(db, l.unit)
		l.close(db.Error)
	}
}

// deleted records what a Delete wrote.
func deleted(db *gorm.DB) { wrote(db, unitOf(db.Statement.ConnPool)) }

// wrote records in u the table a statement wrote rows to, for the engine
// check of a MySQL collision.
func wrote(db *gorm.DB, u *unit) {
	if u != nil && db.Dialector.Name() == "mysql" && db.Error == nil && db.RowsAffected > 0 {
		u.record(nil, tableName(db.Statement), false)
	}
}
