package gormtype

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/sortid/sortid/idtype"
)

// DefaultRetries is how often [AutoID] runs a Create again after its fresh
// values collided, when AutoID.Retries is zero.
const DefaultRetries = 3

const pluginName = "sortid:autoid"

// AutoID is the GORM plugin that fills IDs: db.Use(gormtype.AutoID{}).
//
// Before the hooks of every Create (CreateInBatches, FirstOrCreate and the
// Save of a new row too, and each record GORM creates with them), it gives
// a fresh ID to every zero field of a gormtype ID type that is a primary
// key or is tagged sortid:"auto", unless tagged sortid:"-" or filled by a
// database default. The HUIDs of one statement ascend with its rows.
//
// When the driver's error says a unique key with a fresh value is taken,
// the Create is undone and runs again, hooks and associations included,
// with new values, up to Retries times; then it fails with [ErrKeyTaken].
// GORM rolls back the transaction it opened; in yours (or CreateInBatches')
// AutoID rolls back to a savepoint it set before the Create. Without a
// transaction only the failed INSERT is undone: what came before it stays.
// A Create that fails leaves every field AutoID filled zero again, as before
// the call, but for rows that stay stored.
//
// A Create that a fresh value could make update or skip another row, or
// leave holding a key no row has, fails with [ErrRefused] naming the way
// out: on PostgreSQL and SQLite an ON CONFLICT on a filled column, on no
// column, ON CONSTRAINT, DO NOTHING or DO UPDATE … WHERE; an upsert that
// assigns a fresh value; INSERT IGNORE, OR IGNORE, OR REPLACE; MySQL's ON
// DUPLICATE KEY UPDATE of several rows. Keys you set are left alone. An
// allowed upsert reads back the stored row's key and fresh columns. GORM
// saves an association's stored and new rows as one upsert on the primary
// key; AutoID sends the new ones as a plain INSERT apart. A MySQL upsert of one row is sent as a plain INSERT first;
// after a conflict on another key it is undone and runs again with the
// clause and the same values. A row taking the key in between (n in 2^21
// for n HUIDs made elsewhere in that millisecond) meets the clause as the
// conflicting row.
type AutoID struct {
	// Retries bounds the retries after a collision: 0 means
	// DefaultRetries, a negative value disables retrying, and with it the
	// savepoint AutoID sets before a Create in a transaction.
	Retries int
	// GenerateHUID makes HUIDs; nil means idtype.FillHUIDs. A statement's
	// HUIDs ascend with its rows either way.
	GenerateHUID func() (idtype.HUID, error)
	// GenerateSCRU128 makes SCRU128s; nil means idtype.GenerateSCRU128.
	GenerateSCRU128 func() (idtype.SCRU128, error)
	// OnCollision, if not nil, is called once for each collision of fresh
	// values that AutoID retries or ends with ErrKeyTaken (not with
	// Retries < 0), with the Create's context, its table and the driver's
	// error: count the calls to export collisions as a metric.
	OnCollision func(ctx context.Context, table string, err error)
}

// Name implements gorm.Plugin.
func (AutoID) Name() string { return pluginName }

// Initialize implements gorm.Plugin: it fills IDs first in every Create,
// wraps gorm:create to read the driver's error, undoes and retries last,
// and checks every Update, whose associations it fills too.
//
// It returns [ErrNoCreateCallback] (wrapped) when db has no gorm:create.
func (a AutoID) Initialize(db *gorm.DB) error {
	p := &plugin{AutoID: a}
	create := db.Callback().Create()
	insert := create.Get("gorm:create")
	if insert == nil {
		return fmt.Errorf("%w: AutoID wraps it to read the driver's error", ErrNoCreateCallback)
	}
	for _, err := range []error{
		create.Before("*").Register("sortid:begin", p.begin),
		create.Replace("gorm:create", p.insert(insert)),
		create.After("*").Register("sortid:finish", p.finish),
		db.Callback().Update().Before("*").Register("sortid:update", update),
	} {
		if err != nil {
			return fmt.Errorf("gormtype: register AutoID's callbacks: %w", err)
		}
	}
	return nil
}

// plugin is one registration of AutoID.
type plugin struct {
	AutoID
	savepoints atomic.Uint64 // names the savepoints
}

func (p *plugin) retries() int {
	if p.Retries == 0 {
		return DefaultRetries
	}
	return p.Retries
}

// The keys of AutoID's settings. A statement's attempt is its own
// (InstanceSet); parentKey and rerunKey are set with db.Set, whose values
// GORM passes on to the statements that save the statement's associations.
const (
	attemptKey = "sortid:attempt"
	parentKey  = "sortid:parent"
	rerunKey   = "sortid:rerun"
)

// attempt is one run of a statement: the fields AutoID filled in it and
// how its failure is undone. The statements saving the associations of a
// Create that a transaction or savepoint undoes join its attempt, and the
// Create runs again with them.
type attempt struct {
	stmt      *gorm.Statement
	parent    *attempt   // the statement whose associations this one saves
	owner     *attempt   // the attempt that undoes and retries this one
	joined    []*attempt // those the owner undoes, itself first
	rollback  bool       // a transaction or savepoint undoes the owner
	savepoint string
	base      *gorm.DB // the statement as called, to run it again
	draws     int
	columns   []filledColumn
	rows      int
	inserted  bool
	taken     *attempt // the statement whose fresh value was taken
	takenErr  error
	upsert    *clause.Clause // MySQL: held back for a plain INSERT first
	keyCols   []string       // MySQL: the other key the plain INSERT met
	done      bool
}

func newAttempt(stmt *gorm.Statement) *attempt {
	st := &attempt{stmt: stmt, draws: 1}
	st.owner, st.joined = st, []*attempt{st}
	return st
}

func setting[T any](db *gorm.DB, key string) T {
	v, _ := db.Get(key)
	t, _ := v.(T)
	return t
}

func ownAttempt(db *gorm.DB) *attempt {
	v, _ := db.InstanceGet(attemptKey)
	st, _ := v.(*attempt)
	return st
}

// begin fills the statement's zero auto fields and prepares their undoing.
func (p *plugin) begin(db *gorm.DB) {
	stmt := db.Statement
	st, parent, prev := newAttempt(stmt), setting[*attempt](db, parentKey), setting[*attempt](db, rerunKey)
	keep := prev != nil && prev.upsert != nil && prev.keyCols != nil // MySQL: now with the clause
	if prev != nil {
		st.draws, parent = prev.draws+1, prev.parent
	}
	if keep {
		st.draws, st.keyCols = prev.draws, prev.keyCols
	}
	if parent != nil && !parent.done {
		st.parent = parent
		if parent.owner.rollback {
			st.owner = parent.owner
			st.owner.joined = append(st.owner.joined, st)
		}
	}
	db.InstanceSet(attemptKey, st)
	db.Set(parentKey, st)
	db.Set(rerunKey, (*attempt)(nil))
	if db.Error != nil || db.DryRun || stmt.Schema == nil {
		return
	}
	_, inTx := stmt.ConnPool.(gorm.TxCommitter)
	own := st.owner == st
	if own {
		st.rollback = !inTx && !db.SkipDefaultTransaction // GORM's transaction
	}
	if own && st.parent != nil {
		st.base = asCalled(db) // before keepNewRows changes the statement
	}
	fields, err := autoFields(stmt.Schema)
	if err == nil {
		err = checkMapRows(stmt, fields)
	}
	if err == nil && st.parent != nil {
		var anyNew bool
		if anyNew, err = keepNewRows(db, st.parent); !anyNew && err == nil {
			return // GORM's upsert of stored records
		}
	}
	if err == nil {
		st.columns, st.rows, err = collect(stmt, fields)
	}
	if keep {
		st.columns = prev.columns
	}
	if err != nil || len(st.columns) == 0 {
		db.AddError(err)
		return
	}
	if own && st.base == nil {
		st.base = asCalled(db) // before checkStatement changes the statement
	}
	if st.parent == nil {
		err = checkStatement(db, st)
	}
	if err == nil && !keep {
		if err = p.draw(st.columns); err != nil {
			err = fmt.Errorf("%w for %s: %w", ErrGenerate, stmt.Schema.Name, err)
		}
	}
	if err == nil && own && inTx && p.retries() >= 0 {
		st.savepoint, st.rollback = fmt.Sprintf("sortid_%d", p.savepoints.Add(1)), true
		err = aside(db).SavePoint(st.savepoint).Error
	}
	db.AddError(err)
}

// asCalled is the statement as it stands, to run it again: only a Create
// with fresh values is ever run again.
func asCalled(db *gorm.DB) *gorm.DB {
	return db.Session(&gorm.Session{Context: db.Statement.Context})
}

// insert wraps gorm:create to keep the driver's error as it was made and
// to note whether it says a fresh value was taken.
func (p *plugin) insert(create func(*gorm.DB)) func(*gorm.DB) {
	return func(db *gorm.DB) {
		st := ownAttempt(db)
		if st == nil || len(st.columns) == 0 || db.Error != nil {
			create(db)
			return
		}
		err := createRaw(db, create)
		st.inserted = err == nil
		if err == nil && st.keyCols != nil {
			err = readBack(db, st)
		}
		if cols, hit, known := takenKey(db, err, st.columns, st.rows); hit && st.owner.taken == nil {
			st.owner.taken, st.owner.takenErr = st, err
		} else if known && !hit && st.upsert != nil {
			st.keyCols = cols
		}
		db.AddError(err)
	}
}

// createRaw runs gorm:create and returns its error untranslated: with
// gorm.Config.TranslateError it would no longer name the key.
func createRaw(db *gorm.DB, create func(*gorm.DB)) error {
	if cfg := db.Config; cfg.TranslateError {
		raw := *cfg
		raw.TranslateError = false
		db.Config = &raw
		defer func() { db.Config = cfg }()
	}
	create(db)
	err := db.Error
	db.Error = nil
	return err
}

// finish undoes a failed attempt and runs the statement again while its
// fresh values collide.
func (p *plugin) finish(db *gorm.DB) {
	st := ownAttempt(db)
	if st == nil || st.owner != st {
		return
	}
	st.done = true
	if st.savepoint != "" {
		if db.Error != nil {
			db.AddError(aside(db).RollbackTo(st.savepoint).Error)
		}
		db.AddError(releaseSavepoint(db, st.savepoint))
	}
	if db.Error == nil {
		return
	}
	if st.upsert != nil && st.keyCols != nil { // MySQL: now with the clause
		rerun(db, st)
		return
	}
	var stored error // read before the reset, which zeroes the drawn values
	if st.taken != nil {
		stored = checkStoredKey(db, st.taken, st.takenErr)
	}
	for _, s := range st.joined {
		if st.rollback || !s.inserted {
			resetFields(s.columns)
		}
	}
	if st.taken == nil || p.retries() < 0 {
		return
	}
	table := tableName(st.taken.stmt)
	if p.OnCollision != nil {
		p.OnCollision(st.stmt.Context, table, st.takenErr)
	}
	if stored != nil {
		db.Error = stored
		return
	}
	if st.draws > p.retries() {
		db.Error = fmt.Errorf("%w: %d draws for %s: %w", ErrKeyTaken, st.draws, table, st.takenErr)
		return
	}
	if err := checkRetry(db, st.taken, st.takenErr); err != nil {
		db.Error = err
		return
	}
	rerun(db, st)
}

// rerun runs the statement again as it was called, after its undoing.
func rerun(db *gorm.DB, st *attempt) {
	res := st.base.Set(rerunKey, st).Create(st.stmt.Dest)
	db.Error, db.RowsAffected = res.Error, res.RowsAffected
}

// update marks an Update as the parent of the Creates that save its
// associations, and refuses one that would write a zero ID.
func update(db *gorm.DB) {
	db.Set(parentKey, newAttempt(db.Statement))
	if db.Error == nil && db.Statement.Schema != nil {
		db.AddError(checkSave(db.Statement))
	}
}

// releaseSavepoint ends a savepoint, which GORM has no call for. Like
// gorm.DB.SavePoint, it bypasses prepared statements.
func releaseSavepoint(db *gorm.DB, name string) error {
	tx := aside(db)
	if p, ok := tx.Statement.ConnPool.(*gorm.PreparedStmtTX); ok {
		tx.Statement.ConnPool = p.Tx
	}
	if err := tx.Exec("RELEASE SAVEPOINT " + name).Error; err != nil {
		return fmt.Errorf("gormtype: release savepoint %s: %w", name, err)
	}
	return nil
}

// aside returns a new session on the statement's connection for AutoID's
// own statements, without the Create's error.
func aside(db *gorm.DB) *gorm.DB {
	tx := db.Session(&gorm.Session{NewDB: true})
	tx.Error = nil
	return tx
}

// draw gives the columns' fields fresh IDs. A column's HUIDs ascend with
// its rows (see [idtype.HUIDGenerator.Fill]): a batch appends at the right
// edge of the primary-key index, in the order of the caller's slice.
func (p *plugin) draw(cols []filledColumn) error {
	for _, c := range cols {
		if err := p.drawColumn(c); err != nil {
			return fmt.Errorf("column %s: %w", c.name, err)
		}
	}
	return nil
}

func (p *plugin) drawColumn(c filledColumn) error {
	if !c.huid {
		generate := p.GenerateSCRU128
		if generate == nil {
			generate = idtype.GenerateSCRU128
		}
		for _, ptr := range c.ptrs {
			id, err := generate()
			if err != nil {
				return err
			}
			ptr.(idSetter).setID(0, id)
		}
		return nil
	}
	huids := make([]idtype.HUID, len(c.ptrs))
	if p.GenerateHUID == nil {
		if err := idtype.FillHUIDs(huids); err != nil {
			return err
		}
	} else {
		for i := range huids {
			var err error
			if huids[i], err = p.GenerateHUID(); err != nil {
				return err
			}
		}
		slices.Sort(huids)
	}
	for i, ptr := range c.ptrs {
		ptr.(idSetter).setID(huids[i], idtype.SCRU128{})
	}
	return nil
}
