package gormtype

import (
	"fmt"
	"sync"
	"sync/atomic"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/sortid/sortid/idtype"
)

// DefaultRetries is how often [AutoID] runs a Create again after its fresh
// values collided, when AutoID.Retries is zero.
const DefaultRetries = 3

// TagAuto is the struct tag that marks a non-key field for auto-fill:
// sortid:"auto". The tag sortid:"-" keeps a primary key from being filled.
const TagAuto = "sortid"

const pluginName = "sortid:autoid"

// AutoID is the GORM plugin that fills IDs: db.Use(gormtype.AutoID{}).
//
// Before the hooks of every Create (CreateInBatches, FirstOrCreate and the
// Save of a new row too, and each record GORM creates with them), it gives
// a fresh ID to every zero field of a gormtype ID type that is a primary
// key or is tagged sortid:"auto". Fields the caller set, fields tagged
// sortid:"-" and fields with a database default are left alone. The HUIDs
// of one statement ascend with its rows.
//
// When the database reports a fresh value as taken, the Create is undone
// and runs again, hooks and associations included, with new values, up to
// Retries times; then it fails with [ErrKeyTaken]. GORM's own transaction
// is rolled back for that; in a transaction of yours (or CreateInBatches')
// AutoID rolls back to a savepoint it set before the Create. Without a
// transaction (SkipDefaultTransaction) only the failed INSERT is undone:
// what the hooks wrote before it stays.
//
// A Create whose fresh values could make it update or skip another row
// fails with [ErrRefused] instead: on PostgreSQL and SQLite an ON CONFLICT
// without columns, ON CONSTRAINT or on a filled column; INSERT IGNORE, OR
// IGNORE, OR REPLACE; MySQL's ON DUPLICATE KEY UPDATE for more than one
// fresh row; a Select or Omit that leaves a filled field out. Set such
// keys yourself (NewHUID). A single row's ON DUPLICATE KEY UPDATE is sent
// as a plain INSERT first and with the clause after a conflict on another
// key; a row that takes its key in between, at the odds of a collision, is
// updated. ON CONFLICT on another column (email) is kept as written.
type AutoID struct {
	// Retries bounds the retries after a collision: 0 means
	// DefaultRetries, a negative value disables retrying.
	Retries int
	// GenerateHUID makes HUIDs; nil means idtype.FillHUIDs. A statement's
	// HUIDs ascend with its rows either way.
	GenerateHUID func() (idtype.HUID, error)
	// GenerateSCRU128 makes SCRU128s; nil means idtype.GenerateSCRU128.
	GenerateSCRU128 func() (idtype.SCRU128, error)
}

// Name implements gorm.Plugin.
func (AutoID) Name() string { return pluginName }

// Initialize implements gorm.Plugin: it fills IDs first in every Create,
// wraps gorm:create to read the driver's error, retries collisions last,
// and marks Updates so that the Creates of their associations are known.
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
		db.Callback().Update().Before("*").Register("sortid:parent", markParent),
	} {
		if err != nil {
			return fmt.Errorf("gormtype: register AutoID's callbacks: %w", err)
		}
	}
	return nil
}

// plugin is one registration of AutoID, with what it caches.
type plugin struct {
	AutoID
	fields     sync.Map // *schema.Schema → autoFields' result
	savepoints atomic.Uint64
}

func (p *plugin) retries() int {
	if p.Retries == 0 {
		return DefaultRetries
	}
	return p.Retries
}

// txMode is how a failed Create is undone.
type txMode int

const (
	noTx        txMode = iota // only the failed statement
	ownTx                     // GORM rolls back the transaction it opened
	savepointTx               // AutoID rolls back to its savepoint
)

// createState is what AutoID knows of one Create statement.
type createState struct {
	assoc     bool // the statement saves associations of another
	mode      txMode
	savepoint string
	retry     *gorm.DB // the statement as it was before its first attempt
	columns   []filledColumn
	rows      int
	scope     *scope
	upsert    *clause.Clause // MySQL: held back until a plain INSERT meets another key
	deferred  any            // rows that GORM's association upsert must not cover
	raw       error          // gorm:create's error, untranslated
	attempt   *attempt       // set in a retry's statement
}

// attempt links a retry's statement to the Create it retries.
type attempt struct {
	assoc bool
	scope *scope
	raw   error
}

// scope collects the fields filled by a Create and by the Creates of its
// associations, which a rollback undoes together.
type scope struct {
	parent *scope
	ptrs   []any
}

func (s *scope) add(ptrs []any) {
	for ; s != nil; s = s.parent {
		s.ptrs = append(s.ptrs, ptrs...)
	}
}

// Settings keys. GORM copies a statement's Settings into the statements
// that save its associations, so a parentKey there tells them apart.
type (
	stateKey   struct{ stmt *gorm.Statement }
	parentKey  struct{}
	attemptKey struct{}
)

type parent struct {
	stmt  *gorm.Statement
	scope *scope
}

func markParent(db *gorm.DB) {
	db.Statement.Settings.Store(parentKey{}, parent{stmt: db.Statement})
}

func loadState(stmt *gorm.Statement) *createState {
	v, _ := stmt.Settings.Load(stateKey{stmt})
	st, _ := v.(*createState)
	return st
}

// begin fills the statement's zero auto fields and prepares their undoing.
func (p *plugin) begin(db *gorm.DB) {
	stmt := db.Statement
	v, _ := stmt.Settings.LoadAndDelete(attemptKey{})
	att, _ := v.(*attempt)
	up, _ := stmt.Settings.Load(parentKey{})
	par, assoc := up.(parent)
	st := &createState{assoc: assoc && par.stmt != stmt, attempt: att, scope: &scope{parent: par.scope}}
	if att != nil {
		st.assoc, st.scope = att.assoc, att.scope
	}
	stmt.Settings.Store(parentKey{}, parent{stmt: stmt, scope: st.scope})
	stmt.Settings.Store(stateKey{stmt}, (*createState)(nil))
	if db.Error != nil || db.DryRun || stmt.Schema == nil {
		return
	}
	fields, err := p.autoFields(stmt.Schema)
	if err == nil {
		err = checkMapRows(stmt, fields)
	}
	if err != nil {
		db.AddError(err)
		return
	}
	cols, rows, fresh := collect(stmt, fields)
	if len(cols) == 0 {
		return
	}
	st.columns, st.rows = cols, len(rows)
	if att == nil {
		st.mode = txModeOf(db)
		st.retry = db.Session(&gorm.Session{Context: stmt.Context})
	}
	stmt.Settings.Store(stateKey{stmt}, st)
	if _, ok := stmt.Clauses["ON CONFLICT"]; ok && st.assoc && len(fresh) < len(rows) {
		// GORM's association upsert is for records that exist: the new
		// ones are inserted apart, after the rest.
		st.deferred, st.columns = useRows(stmt, rows, fresh), nil
		return
	}
	if err := p.checkStatement(db, st); err != nil {
		db.AddError(err)
		return
	}
	st.scope.add(allPtrs(st.columns))
	if err := p.draw(st.columns); err != nil {
		db.AddError(fmt.Errorf("%w for %s: %w", ErrGenerate, stmt.Schema.Name, err))
		return
	}
	if st.mode == savepointTx {
		st.savepoint = fmt.Sprintf("sortid_%d", p.savepoints.Add(1))
		db.AddError(aside(db).SavePoint(st.savepoint).Error)
	}
}

func txModeOf(db *gorm.DB) txMode {
	if _, ok := db.Statement.ConnPool.(gorm.TxCommitter); ok {
		return savepointTx
	}
	if db.SkipDefaultTransaction {
		return noTx
	}
	return ownTx
}

// insert wraps gorm:create to keep the driver's error as it was made and,
// for a held-back MySQL upsert, to insert with the clause after a plain
// INSERT met another unique key.
func (p *plugin) insert(create func(*gorm.DB)) func(*gorm.DB) {
	return func(db *gorm.DB) {
		st := loadState(db.Statement)
		if st == nil || len(st.columns) == 0 || db.Error != nil {
			create(db)
			return
		}
		err := createRaw(db, create)
		if err != nil && st.upsert != nil {
			if hit, known := p.hitsFilled(db, st, err); known && !hit {
				db.Statement.Clauses["ON CONFLICT"] = *st.upsert
				err = createRaw(db, create)
			}
		}
		st.raw = err
		db.AddError(err)
	}
}

// createRaw runs gorm:create and returns its error untranslated: with
// gorm.Config.TranslateError it would no longer name the key.
func createRaw(db *gorm.DB, create func(*gorm.DB)) error {
	db.Statement.SQL.Reset()
	db.Statement.Vars = nil
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

// finish runs a Create again after a collision, and ends the savepoint.
func (p *plugin) finish(db *gorm.DB) {
	st := loadState(db.Statement)
	switch {
	case st == nil:
		return
	case st.attempt != nil:
		st.attempt.raw = st.raw
		return
	case st.deferred != nil:
		if db.Error == nil {
			res := st.retry.Create(st.deferred)
			db.RowsAffected += res.RowsAffected
			db.AddError(res.Error)
		}
		return
	}
	p.retry(db, st)
	if st.savepoint != "" {
		if db.Error != nil {
			p.rollback(db, st)
		}
		db.AddError(releaseSavepoint(db, st.savepoint))
	}
}

// retry runs the Create again while its fresh values collide.
func (p *plugin) retry(db *gorm.DB, st *createState) {
	raw := st.raw
	for draws := 1; raw != nil && p.retries() >= 0; draws++ {
		p.rollback(db, st)
		if hit, _ := p.hitsFilled(db, st, raw); !hit {
			return
		}
		if draws > p.retries() {
			db.Error = fmt.Errorf("%w: %d draws for %s: %w", ErrKeyTaken, draws, db.Statement.Table, raw)
			return
		}
		if err := p.checkRetry(db, st, raw); err != nil {
			db.Error = err
			return
		}
		ptrs := st.scope.ptrs
		if st.mode == noTx { // associations saved before the INSERT are committed
			ptrs = allPtrs(st.columns)
		}
		resetFields(ptrs)
		att := &attempt{assoc: st.assoc, scope: st.scope}
		st.scope.ptrs = nil
		st.retry.Statement.Settings.Store(attemptKey{}, att)
		res := st.retry.Create(db.Statement.Dest)
		db.Error, db.RowsAffected, raw = res.Error, res.RowsAffected, att.raw
	}
}

// rollback undoes the attempt inside the caller's transaction.
func (p *plugin) rollback(db *gorm.DB, st *createState) {
	if st.savepoint != "" {
		db.AddError(aside(db).RollbackTo(st.savepoint).Error)
	}
}

// releaseSavepoint ends a savepoint, which GORM has no call for. Like
// gorm.DB.SavePoint, it bypasses prepared statements.
func releaseSavepoint(db *gorm.DB, name string) error {
	pool := db.Statement.ConnPool
	if p, ok := pool.(*gorm.PreparedStmtTX); ok {
		pool = p.Tx
	}
	if _, err := pool.ExecContext(db.Statement.Context, "RELEASE SAVEPOINT "+name); err != nil {
		return fmt.Errorf("gormtype: release savepoint %s: %w", name, err)
	}
	return nil
}

// aside returns a new session on the statement's connection, for
// statements of AutoID's own; it does not carry the Create's error.
func aside(db *gorm.DB) *gorm.DB {
	tx := db.Session(&gorm.Session{NewDB: true})
	tx.Error = nil
	return tx
}
