package gormtype

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"

	"gorm.io/gorm"
	"gorm.io/gorm/callbacks"
	"gorm.io/gorm/clause"
)

const savepointName = "sortid_autoid"

// insert wraps gorm:create: rows with fresh values are inserted apart from
// any upsert clause, and again with new values after a collision.
func (a AutoID) insert(create func(*gorm.DB)) func(*gorm.DB) {
	return func(db *gorm.DB) {
		st := loadState(db.Statement)
		if st == nil || db.Error != nil || db.DryRun || !st.filledAny() {
			create(db)
			return
		}
		ins := inserter{AutoID: a, db: db, create: create, st: st, all: db.Statement.ReflectValue}
		err := ins.run()
		if ins.savepoint && st.callerTx {
			// A failed insert was rolled back to the savepoint, which the
			// caller's transaction must not keep.
			if rerr := execSQL(db, "RELEASE SAVEPOINT "+savepointName); rerr != nil {
				err = errors.Join(err, rerr)
			}
		}
		db.AddError(err)
		db.RowsAffected = ins.rowsAffected
	}
}

// inserter runs the INSERTs of one Create statement with fresh values.
type inserter struct {
	AutoID
	db     *gorm.DB
	create func(*gorm.DB)
	st     *fillState
	all    reflect.Value // the statement's rows as GORM set them
	up     upsert
	// The statement's ReflectValue shows exactly cur, rows in which AutoID
	// filled the columns filled.
	cur          []reflect.Value
	filled       []string
	release      bool // RELEASE each savepoint after a success
	savepoint    bool // AutoID's savepoint is open
	rowsAffected int64
}

// run inserts each group of rows apart. Rows whose IDs the caller set keep
// the statement's upsert clause. Fresh rows are inserted without it and
// retried after a collision; when the clause may apply to a conflict that
// is not a collision (it targets no filled column), a group whose plain
// INSERT hits another unique key is inserted one row at a time, with the
// clause for a row whose plain insert hit such a key.
func (ins *inserter) run() error {
	stmt := ins.db.Statement
	ins.up = takeUpsert(stmt)
	defer ins.up.apply(stmt)
	defer ins.useRows(nil)
	for _, g := range ins.st.groups {
		if len(ins.st.groups) > 1 {
			ins.useRows(g.rows)
		}
		ins.cur, ins.filled = g.rows, g.filled
		var err error
		switch {
		case g.filled == nil:
			ins.up.apply(stmt)
			err = ins.exec(false)
			ins.up.remove(stmt)
		case ins.up.none() || ins.targetsFilled():
			err = ins.insertRetrying()
		default:
			err = ins.insertApart(g.rows)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// insertApart inserts rows without the upsert clause, and one at a time
// with it for those whose plain insert hit another unique key.
func (ins *inserter) insertApart(rows []reflect.Value) error {
	err := ins.insertRetrying()
	if !ins.otherKeyConflict(err) {
		return err
	}
	stmt := ins.db.Statement
	ins.release = true
	for _, row := range rows {
		ins.useRows([]reflect.Value{row})
		ins.cur = []reflect.Value{row}
		err := ins.insertRetrying()
		if ins.otherKeyConflict(err) {
			ins.up.apply(stmt)
			ins.returnKeys()
			err = ins.insertRetrying()
			ins.up.remove(stmt)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// useRows makes the statement write rows (all of its rows for nil).
func (ins *inserter) useRows(rows []reflect.Value) {
	stmt := ins.db.Statement
	switch {
	case rows == nil:
		stmt.ReflectValue = ins.all
	case len(rows) == 1 && ins.all.Kind() == reflect.Struct:
		stmt.ReflectValue = rows[0]
	default:
		list := reflect.MakeSlice(reflect.SliceOf(reflect.PointerTo(rows[0].Type())), 0, len(rows))
		for _, r := range rows {
			list = reflect.Append(list, r.Addr())
		}
		stmt.ReflectValue = list
	}
}

// targetsFilled reports whether the upsert clause applies only to conflicts
// on columns that include one AutoID filled, so that fresh rows never need
// it. MySQL's ON DUPLICATE KEY UPDATE and INSERT modifiers (IGNORE, OR
// REPLACE) apply to every unique key.
func (ins *inserter) targetsFilled() bool {
	oc, ok := ins.up.onConflict()
	if !ok || ins.up.insert != nil || ins.db.Dialector.Name() == dialectMySQL || oc.OnConstraint != "" {
		return false
	}
	target := oc.Columns
	if len(target) == 0 {
		if !oc.UpdateAll {
			return false
		}
		target = keyColumns(ins.db.Statement) // GORM aims UpdateAll without columns at the key
	}
	return slices.ContainsFunc(target, func(c clause.Column) bool { return slices.Contains(ins.filled, c.Name) })
}

// insertRetrying inserts the current rows, and again with new values after
// a collision on a unique key that includes a filled column.
func (ins *inserter) insertRetrying() error {
	for attempt := 0; ; attempt++ {
		err := ins.exec(ins.retries() >= 0 || !ins.up.none())
		if err == nil || ins.retries() < 0 || attempt == ins.retries() {
			return err
		}
		if fresh, known := ins.classify(err); !known || !fresh {
			return err
		}
		if err := ins.redraw(); err != nil {
			return err
		}
	}
}

// otherKeyConflict reports whether err is a unique violation on a key that
// includes no filled column, which the caller's upsert clause may cover. A
// fresh value that stays taken after the retries never reaches the clause.
func (ins *inserter) otherKeyConflict(err error) bool {
	if err == nil {
		return false
	}
	fresh, known := ins.classify(err)
	return known && !fresh
}

// redraw gives the current rows new values and runs their BeforeSave and
// BeforeCreate hooks again.
func (ins *inserter) redraw() error {
	only := make(map[uintptr]bool, len(ins.cur))
	for _, r := range ins.cur {
		only[r.Addr().Pointer()] = true
	}
	if err := ins.draw(ins.st.columns, only); err != nil {
		return fmt.Errorf("%w for %s: %w", ErrGenerate, ins.db.Statement.Schema.Name, err)
	}
	if ins.db.Statement.SkipHooks {
		return nil
	}
	callbacks.BeforeCreate(ins.db)
	err := ins.db.Error
	ins.db.Error = nil
	return err
}

// exec runs gorm:create once on the current rows. When a failure is to be
// followed by more statements (a retry, or the upsert of a row whose plain
// insert hit another key) on PostgreSQL in a transaction, a single row of a
// Create without an upsert clause in the transaction GORM began for it is
// inserted with ON CONFLICT on its key DO NOTHING (where no trigger may keep
// the row out, so that storing nothing means the key is taken), and other
// rows run under a savepoint, so that a failed INSERT leaves the
// transaction usable.
func (ins *inserter) exec(guard bool) error {
	db := ins.db
	stmt := db.Statement
	_, inTx := stmt.ConnPool.(gorm.TxCommitter)
	pg := guard && inTx && db.Dialector.Name() == dialectPostgres
	skipIfTaken := pg && !ins.st.callerTx && ins.up.none() &&
		ins.all.Kind() == reflect.Struct && slices.ContainsFunc(ins.filled, func(c string) bool {
		return slices.Contains(stmt.Schema.PrimaryFieldDBNames, c)
	}) && !mayDropRows(db)
	savepoint := pg && !skipIfTaken
	if skipIfTaken {
		defer delete(stmt.Clauses, "ON CONFLICT")
		stmt.AddClause(clause.OnConflict{Columns: keyColumns(stmt), DoNothing: true})
	}
	if savepoint && !ins.savepoint {
		if err := execSQL(db, "SAVEPOINT "+savepointName); err != nil {
			return err
		}
		ins.savepoint = true
	}
	err := ins.createOnce()
	switch {
	case err == nil && skipIfTaken && db.RowsAffected == 0:
		return ErrKeyTaken
	case err != nil && savepoint:
		// ROLLBACK TO keeps the savepoint for the next attempt.
		if rerr := execSQL(db, "ROLLBACK TO SAVEPOINT "+savepointName); rerr != nil {
			return errors.Join(err, rerr)
		}
		return err
	case err != nil:
		return err
	case savepoint && (ins.st.callerTx || ins.release):
		// In the transaction GORM began for this Create, its COMMIT ends
		// the savepoint.
		if err := execSQL(db, "RELEASE SAVEPOINT "+savepointName); err != nil {
			return err
		}
		ins.savepoint = false
	}
	ins.rowsAffected += db.RowsAffected
	return nil
}

// createOnce runs gorm:create and returns its error as the driver made it:
// with gorm.Config.TranslateError, GORM would replace it by one that no
// longer names the key; AutoID's caller translates the final error.
func (ins *inserter) createOnce() error {
	db := ins.db
	stmt := db.Statement
	stmt.SQL.Reset()
	stmt.Vars = nil
	if cfg := db.Config; cfg.TranslateError {
		raw := *cfg
		raw.TranslateError = false
		db.Config = &raw
		defer func() { db.Config = cfg }()
	}
	ins.create(db)
	err := db.Error
	db.Error = nil
	return err
}

// rowTriggers caches, by database (gorm.Open) and table, whether
// PostgreSQL runs a BEFORE INSERT row trigger for the table or one under
// it, which may keep a row out as a conflict would (RETURN NULL).
var rowTriggers sync.Map

type tableOf struct {
	db    any
	table string
}

// databaseOf identifies the database a gorm.DB was opened on, across its
// sessions: its Dialector when that is a pointer, as the dialects' Open
// functions return (nil otherwise: one cache for all such databases).
func databaseOf(db *gorm.DB) any {
	if reflect.TypeOf(db.Dialector).Kind() == reflect.Pointer {
		return db.Dialector
	}
	return nil
}

// mayDropRows reports whether an insert into the statement's table may
// store nothing without a conflict; true when the catalog cannot say.
func mayDropRows(db *gorm.DB) bool {
	table := db.Statement.Table
	key := tableOf{databaseOf(db), table}
	if v, ok := rowTriggers.Load(key); ok {
		return v.(bool)
	}
	var found bool
	err := db.Session(&gorm.Session{NewDB: true, SkipHooks: true}).Raw(`
		WITH RECURSIVE t(oid) AS (
			SELECT to_regclass(?)::oid
			UNION SELECT i.inhrelid FROM pg_catalog.pg_inherits i JOIN t ON i.inhparent = t.oid)
		SELECT EXISTS (SELECT FROM pg_catalog.pg_trigger g JOIN t ON g.tgrelid = t.oid
			WHERE NOT g.tgisinternal AND g.tgtype & 7 = 7)`, db.Statement.Quote(table)).Scan(&found).Error
	if err != nil {
		return true
	}
	rowTriggers.Store(key, found)
	return found
}

// returnKeys makes an INSERT return the primary key, which GORM writes into
// the row: after an upsert that updated an existing row, the row's own key.
// It keeps the columns GORM returns for database defaults. MySQL has no
// RETURNING.
func (ins *inserter) returnKeys() {
	stmt := ins.db.Statement
	if ins.db.Dialector.Name() == dialectMySQL {
		return
	}
	if _, ok := stmt.Clauses["RETURNING"]; ok {
		// Adding no columns would turn the clause into RETURNING *.
		if missing := missingColumns(stmt, keyColumns(stmt)); len(missing) > 0 {
			stmt.AddClause(clause.Returning{Columns: missing})
		}
		return
	}
	cols := keyColumns(stmt)
	for _, f := range stmt.Schema.FieldsWithDefaultDBValue {
		if f.Readable && !f.PrimaryKey {
			cols = append(cols, clause.Column{Name: f.DBName})
		}
	}
	stmt.AddClause(clause.Returning{Columns: cols})
}

// missingColumns returns the columns of want that the statement's
// RETURNING clause lacks.
func missingColumns(stmt *gorm.Statement, want []clause.Column) []clause.Column {
	r, _ := stmt.Clauses["RETURNING"].Expression.(clause.Returning)
	if len(r.Columns) == 0 {
		return nil // RETURNING *
	}
	return slices.DeleteFunc(want, func(c clause.Column) bool { return slices.Contains(r.Columns, c) })
}

func keyColumns(stmt *gorm.Statement) []clause.Column {
	cols := make([]clause.Column, len(stmt.Schema.PrimaryFieldDBNames))
	for i, name := range stmt.Schema.PrimaryFieldDBNames {
		cols[i] = clause.Column{Name: name}
	}
	return cols
}

func execSQL(db *gorm.DB, sql string) error {
	if _, err := db.Statement.ConnPool.ExecContext(db.Statement.Context, sql); err != nil {
		return fmt.Errorf("gormtype: %s: %w", sql, err)
	}
	return nil
}

// upsert is a statement's upsert clauses: ON CONFLICT (ON DUPLICATE KEY
// UPDATE on MySQL), and an INSERT modifier such as IGNORE or OR REPLACE.
type upsert struct {
	conflict *clause.Clause
	insert   *clause.Clause // only when it has a modifier
}

// takeUpsert removes the statement's upsert clauses and returns them.
func takeUpsert(stmt *gorm.Statement) upsert {
	var u upsert
	if c, ok := stmt.Clauses["ON CONFLICT"]; ok {
		u.conflict = &c
	}
	if c, ok := stmt.Clauses["INSERT"]; ok {
		if in, _ := c.Expression.(clause.Insert); in.Modifier != "" {
			u.insert = &c
		}
	}
	u.remove(stmt)
	return u
}

func (u upsert) none() bool { return u.conflict == nil && u.insert == nil }

func (u upsert) onConflict() (clause.OnConflict, bool) {
	if u.conflict == nil {
		return clause.OnConflict{}, false
	}
	oc, ok := u.conflict.Expression.(clause.OnConflict)
	return oc, ok
}

// remove leaves the statement a plain INSERT.
func (u upsert) remove(stmt *gorm.Statement) {
	delete(stmt.Clauses, "ON CONFLICT")
	if u.insert != nil {
		in, _ := u.insert.Expression.(clause.Insert)
		stmt.Clauses["INSERT"] = clause.Clause{Name: "INSERT", Expression: clause.Insert{Table: in.Table}}
	}
}

// apply gives the statement its upsert clauses back.
func (u upsert) apply(stmt *gorm.Statement) {
	if u.conflict != nil {
		stmt.Clauses["ON CONFLICT"] = *u.conflict
	}
	if u.insert != nil {
		stmt.Clauses["INSERT"] = *u.insert
	}
}
