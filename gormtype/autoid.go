package gormtype

import (
	"context"
	"fmt"
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
// sortid:"-" or filled by a database default the model declares. The
// HUIDs of one statement ascend with its rows.
//
// It never runs a statement again: when a unique key whose value it filled
// in every row is taken, the Create fails with [ErrKeyTaken], and
// [Transaction] retries. A failed Create unsets the fields AutoID filled
// in rows it did not store: in GORM's own transaction all of them. A
// Create that a fresh value could make update or skip another row, or that
// would store a zero ID, fails with [ErrRefused] or [ErrZeroID] naming the
// way out (docs/gorm.md). Map values and inline keys (db.First(&row, id))
// are bound as their field's type. AutoID is safe for concurrent use when
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
	// table and the driver's error each time a fresh value is taken, just
	// before the Create fails with ErrKeyTaken.
	OnCollision func(ctx context.Context, table string, err error)
}

// Name implements gorm.Plugin.
func (AutoID) Name() string { return pluginName }

// Initialize implements gorm.Plugin: it fills IDs first in every Create,
// wraps gorm:create to read the driver's error, and reports a collision
// last; it checks every Update, and binds inline keys of queries. It
// returns [ErrSetup] (wrapped) when db has no gorm:create.
func (a AutoID) Initialize(db *gorm.DB) error {
	create := db.Callback().Create()
	insert := create.Get("gorm:create")
	if insert == nil {
		return fmt.Errorf("%w: no gorm:create callback, which AutoID wraps to read the driver's error", ErrSetup)
	}
	for _, err := range []error{
		create.Before("*").Register("sortid:fill", a.fill),
		create.Replace("gorm:create", rawCreate(insert)),
		create.After("*").Register("sortid:finish", a.finish),
		db.Callback().Update().Before("*").Register("sortid:update", update),
		db.Callback().Query().Before("gorm:query").Register("sortid:keys", bindKeys),
		db.Callback().Delete().Before("gorm:delete").Register("sortid:keys", bindKeys),
		db.Callback().Row().Before("gorm:row").Register("sortid:keys", bindKeys),
	} {
		if err != nil {
			return fmt.Errorf("gormtype: register AutoID's callbacks: %w", err)
		}
	}
	return nil
}

// fill refuses what AutoID cannot guarantee and fills the unset auto fields.
func (a AutoID) fill(db *gorm.DB) {
	stmt, l := db.Statement, &link{}
	up := linkOf(db)
	nested := up != nil && !up.tree.done
	if l.tree = newTree(db); nested {
		l.tree = up.tree
	}
	db.Set(linkKey, l)
	if db.Error != nil || db.DryRun || stmt.Schema == nil {
		return
	}
	fields, err := autoFields(stmt.Schema)
	if err == nil {
		err = checkMaps(stmt, fields, true)
	}
	anyNew := true
	if err == nil && nested {
		anyNew, err = splitStored(db) // none: GORM's upsert of stored rows
	}
	f := &filled{}
	if err == nil && anyNew {
		f, err = collect(stmt, fields)
	}
	if err == nil && len(f.cols) > 0 && !nested {
		err = checkStatement(db, f)
	}
	if err == nil && len(f.cols) > 0 {
		err = checkTable(db, f)
	}
	if err != nil || len(f.cols) == 0 {
		db.AddError(err)
		return
	}
	l.own = f
	l.tree.add(f)
	db.AddError(f.draw(generators{a.GenerateHUID, a.GenerateSCRU128}))
}

// rawCreate wraps gorm:create: it refuses a zero ID field AutoID does not
// fill, and keeps the driver's error as it was made (with
// gorm.Config.TranslateError it would no longer name the key).
func rawCreate(create func(*gorm.DB)) func(*gorm.DB) {
	return func(db *gorm.DB) {
		if db.Error == nil && !db.DryRun && db.Statement.Schema != nil {
			db.AddError(checkUnset(db.Statement))
		}
		l := linkOf(db)
		if l == nil || l.own == nil || db.Error != nil {
			create(db)
			return
		}
		cfg := db.Config
		if cfg.TranslateError {
			raw := *cfg
			raw.TranslateError = false
			db.Config = &raw
		}
		create(db)
		db.Config = cfg
		l.own.raw, l.own.inserted, db.Error = db.Error, db.Error == nil, nil
		db.AddError(l.own.raw)
	}
}

// finish turns a taken fresh value into ErrKeyTaken and unsets the fields
// filled in rows the failure did not store.
func (a AutoID) finish(db *gorm.DB) {
	l := linkOf(db)
	if l == nil {
		return
	}
	f, root := l.own, l.tree.root == db.Statement
	l.tree.done = l.tree.done || root
	if f != nil && db.Error != nil {
		if cols, hit := takenKey(db, f); hit {
			if a.OnCollision != nil {
				a.OnCollision(db.Statement.Context, f.table, f.raw)
			}
			db.Error = fmt.Errorf("%w: %s (%s); run the Create in gormtype.Transaction to retry it: %v", ErrKeyTaken, f.table, strings.Join(cols, ", "), f.raw)
		}
		if !f.inserted {
			f.reset()
		}
	}
	if root && l.tree.ownTx && db.Error != nil {
		l.tree.reset()
	}
}

// update marks an Update as the root of the Creates that save its
// associations, and refuses one that would write a zero ID.
func update(db *gorm.DB) {
	db.Set(linkKey, &link{tree: newTree(db)})
	if db.Error == nil && db.Statement.Schema != nil {
		err := checkMaps(db.Statement, nil, false)
		if err == nil {
			err = checkSave(db.Statement)
		}
		db.AddError(err)
	}
}
