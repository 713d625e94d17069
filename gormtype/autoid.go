package gormtype

import (
	"context"
	"fmt"
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
// key or is tagged sortid:"auto", unless tagged sortid:"-" or filled by a
// database default. The HUIDs of one statement ascend with its rows.
//
// When the driver's error says a unique key with a fresh value is taken,
// the Create is undone and runs again, hooks and associations included,
// with new values, up to Retries times; then it fails with [ErrKeyTaken].
// GORM rolls back the transaction it opened; in yours (or CreateInBatches')
// AutoID rolls back to a savepoint it set before the Create. Without a
// transaction only the failed INSERT is undone: what came before it stays.
//
// A Create that a fresh value could make update or skip another row, or
// leave holding a key no row has, fails with [ErrRefused] naming the way
// out: on PostgreSQL and SQLite an ON CONFLICT on a filled column, on no
// column, ON CONSTRAINT, DO NOTHING or DO UPDATE … WHERE; an upsert that
// assigns a fresh value; INSERT IGNORE, OR IGNORE, OR REPLACE; MySQL's ON
// DUPLICATE KEY UPDATE of several rows. Keys you set are left alone.
// A MySQL upsert of one row is sent as a plain INSERT first, then with the
// clause after a conflict on another key, and the stored key read back; a
// row taking the key in between (n in 2^21 for n HUIDs made elsewhere in
// that millisecond) meets the clause as the conflicting row.
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

// createState is what AutoID knows of one Create statement. GORM copies
// a statement's Settings into the statements that save its associations,
// so the one under stateKey is the statement's own or its parent's.
type createState struct {
	stmt      *gorm.Statement
	assoc     bool     // the statement saves associations of another
	savepoint string   // set in a transaction the Create did not open
	retry     *gorm.DB // the statement as it was before its first attempt
	columns   []filledColumn
	rows      int
	scope     *scope
	upsert    *clause.Clause // MySQL: held back until a plain INSERT meets another key
	deferred  any            // new rows that GORM's association upsert must not cover
	raw       error          // gorm:create's error, untranslated
	retrying  *createState   // in an attempt's statement: the Create it retries
}

// scope collects the fields filled by a Create and by the Creates of its
// associations, which one rollback undoes together.
type scope struct {
	parent *scope
	filled [][]filledColumn
}

func (s *scope) add(cols []filledColumn) {
	for ; s != nil; s = s.parent {
		s.filled = append(s.filled, cols)
	}
}

type (
	stateKey   struct{}
	attemptKey struct{}
)

func markParent(db *gorm.DB) {
	db.Statement.Settings.Store(stateKey{}, &createState{stmt: db.Statement})
}

// loadState returns the statement's own state, or nil.
func loadState(stmt *gorm.Statement) *createState {
	v, _ := stmt.Settings.Load(stateKey{})
	if st, _ := v.(*createState); st != nil && st.stmt == stmt {
		return st
	}
	return nil
}

// begin fills the statement's zero auto fields and prepares their undoing.
func (p *plugin) begin(db *gorm.DB) {
	stmt := db.Statement
	v, _ := stmt.Settings.LoadAndDelete(attemptKey{})
	retrying, _ := v.(*createState)
	v, _ = stmt.Settings.Load(stateKey{})
	up, _ := v.(*createState)
	st := &createState{stmt: stmt, retrying: retrying, scope: &scope{}}
	if retrying != nil {
		st.assoc, st.scope = retrying.assoc, retrying.scope
	} else if up != nil && up.stmt != stmt {
		st.assoc, st.scope.parent = true, up.scope
	}
	stmt.Settings.Store(stateKey{}, st)
	if db.Error != nil || db.DryRun || stmt.Schema == nil {
		return
	}
	fields, err := autoFields(stmt.Schema)
	if err == nil {
		err = checkMapRows(stmt, fields)
	}
	if err != nil {
		db.AddError(err)
		return
	}
	cols, rows, err := collect(stmt, fields)
	if err != nil {
		db.AddError(err)
		return
	}
	_, upsert := stmt.Clauses["ON CONFLICT"]
	fresh := rows
	if upsert && st.assoc {
		fresh = countNew(stmt)
	}
	if len(cols) == 0 || fresh == 0 {
		return // nothing to fill, or GORM's association upsert of existing records
	}
	st.columns, st.rows = cols, rows
	if retrying == nil || st.assoc {
		st.retry = db.Session(&gorm.Session{Context: stmt.Context})
	}
	if fresh < rows {
		// GORM's association upsert is for records that exist: the new
		// ones are inserted apart, after the rest.
		st.deferred, st.columns = useRows(stmt), nil
		return
	}
	if err := p.checkStatement(db, st); err != nil {
		db.AddError(err)
		return
	}
	st.scope.add(st.columns)
	if err := p.draw(st.columns); err != nil {
		db.AddError(fmt.Errorf("%w for %s: %w", ErrGenerate, stmt.Schema.Name, err))
		return
	}
	if _, inTx := stmt.ConnPool.(gorm.TxCommitter); inTx && retrying == nil && p.retries() >= 0 {
		st.savepoint = fmt.Sprintf("sortid_%d", p.savepoints.Add(1))
		db.AddError(aside(db).SavePoint(st.savepoint).Error)
	}
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
			if cols, hit, known := p.hitsFilled(db, st, err); known && !hit {
				db.Statement.Clauses["ON CONFLICT"] = *st.upsert
				if err = createRaw(db, create); err == nil {
					err = readBackKey(db, cols)
				}
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

// finish runs the Create again after a collision and ends the savepoint.
func (p *plugin) finish(db *gorm.DB) {
	st := loadState(db.Statement)
	switch {
	case st == nil:
	case st.retrying != nil:
		st.retrying.raw = st.raw
	case st.deferred != nil:
		if db.Error == nil {
			res := st.retry.Create(st.deferred)
			db.RowsAffected += res.RowsAffected
			db.AddError(res.Error)
		}
	default:
		p.retry(db, st)
		if st.savepoint != "" {
			if db.Error != nil {
				p.rollback(db, st)
			}
			db.AddError(releaseSavepoint(db, st.savepoint))
		}
	}
}

// retry runs the Create again while its fresh values collide. Each
// attempt runs the statement as it was before the first one, in a
// Create of its own that reports its INSERT's error in st.raw.
func (p *plugin) retry(db *gorm.DB, st *createState) {
	for draws := 1; st.raw != nil && p.retries() >= 0; draws++ {
		p.rollback(db, st)
		if _, hit, _ := p.hitsFilled(db, st, st.raw); !hit {
			return
		}
		if p.OnCollision != nil {
			p.OnCollision(db.Statement.Context, tableName(db.Statement), st.raw)
		}
		if draws > p.retries() {
			db.Error = fmt.Errorf("%w: %d draws for %s: %w", ErrKeyTaken, draws, tableName(db.Statement), st.raw)
			return
		}
		if err := p.checkRetry(db, st, st.raw); err != nil {
			db.Error = err
			return
		}
		if st.savepoint == "" && db.SkipDefaultTransaction {
			resetFields(st.columns) // what was saved before the INSERT stays
		} else {
			resetFields(st.scope.filled...)
		}
		st.scope.filled, st.raw = nil, nil
		st.retry.Statement.Settings.Store(attemptKey{}, st)
		res := st.retry.Create(db.Statement.Dest)
		db.Error, db.RowsAffected = res.Error, res.RowsAffected
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

// aside returns a new session on the statement's connection for AutoID's
// own statements, without the Create's error.
func aside(db *gorm.DB) *gorm.DB {
	tx := db.Session(&gorm.Session{NewDB: true})
	tx.Error = nil
	return tx
}
