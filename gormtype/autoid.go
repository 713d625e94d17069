package gormtype

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"gorm.io/gorm"

	"github.com/sortid/sortid/idtype"
)

// DefaultRetries is how often [Transaction] runs its function again after
// a collision when AutoID.Retries is zero.
const DefaultRetries = 3

const pluginName = "sortid:autoid"

// AutoID is the GORM plugin that fills IDs: db.Use(gormtype.AutoID{}).
//
// Before the hooks of every Create (CreateInBatches, FirstOrCreate, the
// Save of a new row, and each record GORM creates with them) it gives a
// fresh ID to every unset field (zero, a nil pointer, a NULL Null) of a
// gormtype ID type that is a primary key or tagged sortid:"auto", unless
// tagged sortid:"-" or filled by a database default the model declares.
// The HUIDs of one statement ascend with its rows. Any other ID field a
// Create would write zero is [ErrZeroID], naming it.
//
// It never runs a statement again: when the driver says a unique key with
// a value it filled in every row is taken, the Create fails with
// [ErrKeyTaken]; [Transaction] retries. A failed Create leaves the fields
// AutoID filled unset again in the rows it did not store: with GORM's own
// transaction all of them; in yours, or without one, rows written before
// the failure keep theirs.
//
// A Create that a fresh value could make update or skip another row, or
// leave holding a key no row has, fails with [ErrRefused] naming the way
// out: see docs/gorm.md. Of an association upsert on the key, GORM's way
// to save stored and new rows, the new ones go as a plain INSERT apart.
// Updates and map Creates that give an ID 0, nil or "" fail with
// [ErrZeroID]; map values and inline keys (db.First(&row, id)) are bound
// as their field's type. AutoID is safe for concurrent use, when its
// generators and OnCollision are.
type AutoID struct {
	// Retries bounds the reruns of [Transaction]: 0 means DefaultRetries,
	// a negative value none.
	Retries int
	// GenerateHUID makes HUIDs; nil means idtype.FillHUIDs. A statement's
	// HUIDs ascend with its rows either way.
	GenerateHUID func() (idtype.HUID, error)
	// GenerateSCRU128 makes SCRU128s; nil means idtype.GenerateSCRU128.
	GenerateSCRU128 func() (idtype.SCRU128, error)
	// OnCollision, if not nil, is called with the Create's context, its
	// table and the driver's error each time the driver reports a fresh
	// value taken: before the Create fails with ErrKeyTaken, or with
	// ErrRefused for a table that keeps rows on a rollback. It is not
	// called when MySQL reports another number taken than AutoID drew (a
	// column that stores another number: ErrRefused, no collision).
	OnCollision func(ctx context.Context, table string, err error)
}

// Name implements gorm.Plugin.
func (AutoID) Name() string { return pluginName }

// Initialize implements gorm.Plugin: it fills IDs first in every Create,
// wraps gorm:create to read the driver's error, and reports a collision
// last; it checks every Update, and binds inline keys of queries. It
// returns [ErrNoCreateCallback] (wrapped) when db has no gorm:create.
func (a AutoID) Initialize(db *gorm.DB) error {
	create := db.Callback().Create()
	insert := create.Get("gorm:create")
	if insert == nil {
		return fmt.Errorf("%w: AutoID wraps it to read the driver's error", ErrNoCreateCallback)
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

// link is a statement's place in its tree: the Create and the Creates
// saving its associations, to which GORM hands on the statement's settings
// (linkKey); own is what AutoID filled in the statement itself.
type link struct {
	parent *gorm.Statement
	tree   *fills
	own    *filled
}

const linkKey = "sortid:link"

// units maps a transaction's connection to the fills of its Transaction.
var units sync.Map

func unitKey(pool gorm.ConnPool) gorm.ConnPool {
	if p, ok := pool.(*gorm.PreparedStmtTX); ok {
		return p.Tx
	}
	return pool
}

func unitOf(pool gorm.ConnPool) *fills {
	u, _ := units.Load(unitKey(pool))
	f, _ := u.(*fills)
	return f
}

// ownLink returns the statement's link, not a parent's handed on.
func ownLink(db *gorm.DB) *link {
	v, _ := db.Get(linkKey)
	l, _ := v.(*link)
	if l != nil && l.tree.root != db.Statement && l.parent != db.Statement {
		return nil
	}
	return l
}

// fill refuses what AutoID cannot guarantee and fills the unset auto fields.
func (a AutoID) fill(db *gorm.DB) {
	stmt := db.Statement
	v, _ := db.Get(linkKey)
	up, _ := v.(*link)
	nested := up != nil && !up.tree.done && !isJoinTable(up.parent, stmt)
	t := &fills{parent: unitOf(stmt.ConnPool), root: stmt}
	if nested {
		t = up.tree
	} else {
		_, inTx := stmt.ConnPool.(gorm.TxCommitter)
		t.ownTx = !inTx && !db.SkipDefaultTransaction
	}
	self := &link{parent: stmt, tree: t}
	db.Set(linkKey, self)
	if db.Error != nil || db.DryRun || stmt.Schema == nil {
		return
	}
	fields, err := autoFields(stmt.Schema)
	if err == nil {
		err = checkMaps(stmt, fields, true)
	}
	anyNew := true
	if err == nil && nested {
		anyNew, err = splitStored(db, self, linkKey) // none: GORM's upsert of stored rows
	}
	f := &filled{}
	if err == nil && anyNew {
		f, err = collect(stmt, fields)
	}
	if err == nil && len(f.cols) > 0 && !nested {
		err = checkStatement(db, f)
	}
	if err != nil || len(f.cols) == 0 {
		db.AddError(err)
		return
	}
	self.own = f
	t.add(f, false)
	db.AddError(f.draw(generators{a.GenerateHUID, a.GenerateSCRU128}))
}

// rawCreate wraps gorm:create: it refuses a zero ID field AutoID does not
// fill, and keeps the driver's error as it was made (with
// gorm.Config.TranslateError it would no longer name the key).
func rawCreate(create func(*gorm.DB)) func(*gorm.DB) {
	return func(db *gorm.DB) {
		l := ownLink(db)
		if l != nil && db.Error == nil && !db.DryRun && db.Statement.Schema != nil {
			db.AddError(checkUnset(db.Statement))
		}
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

// finish turns a taken fresh value into ErrKeyTaken and undoes the fill of
// the rows the failure did not store.
func (a AutoID) finish(db *gorm.DB) {
	l := ownLink(db)
	if l == nil {
		return
	}
	t, f := l.tree, l.own
	if t.root == db.Statement {
		t.done = true
	}
	if f == nil || db.Error == nil {
		return
	}
	if cols, hit := takenKey(db, f, f.raw); hit {
		db.Error = a.collision(db, f, t, cols)
	}
	if t.root == db.Statement && t.ownTx {
		t.reset()
	} else if !f.inserted {
		f.reset()
	}
}

// collision returns the error of a Create whose fresh value in the key
// cols was taken: ErrKeyTaken, or ErrRefused when no rerun can succeed.
func (a AutoID) collision(db *gorm.DB, f *filled, t *fills, cols []string) error {
	if err := checkStoredKey(db, f, cols); err != nil {
		return err
	}
	if a.OnCollision != nil {
		a.OnCollision(db.Statement.Context, f.table, f.raw)
	}
	top := t
	for top.parent != nil {
		top = top.parent
	}
	written := top.written()
	if f.rows > 1 { // a multi-row INSERT keeps the rows before the taken one
		written = append(written, f.table)
	}
	if err := checkEngines(db, f, written); err != nil {
		t.add(nil, true)
		return err
	}
	return fmt.Errorf("%w: %s (%s); run the Create in gormtype.Transaction to retry it: %v", ErrKeyTaken, f.table, strings.Join(cols, ", "), f.raw)
}

// update marks an Update as the parent of the Creates that save its
// associations, and refuses one that would write a zero ID.
func update(db *gorm.DB) {
	db.Set(linkKey, &link{parent: db.Statement, tree: &fills{parent: unitOf(db.Statement.ConnPool), root: db.Statement}})
	if db.Error == nil && db.Statement.Schema != nil {
		err := checkMaps(db.Statement, nil, false)
		if err == nil {
			err = checkSave(db.Statement)
		}
		db.AddError(err)
	}
}
