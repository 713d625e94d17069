package gormtype

import (
	"errors"
	"fmt"
	"reflect"
	"slices"

	"gorm.io/gorm"
	"gorm.io/gorm/callbacks"
	"gorm.io/gorm/clause"
)

const savepointName = "sortid_autoid"

// insert wraps gorm:create: rows whose keys AutoID filled are inserted
// apart from any upsert clause, and again with new keys after a collision.
func (a AutoID) insert(create func(*gorm.DB)) func(*gorm.DB) {
	return func(db *gorm.DB) {
		st := loadState(db.Statement)
		if st == nil || db.Error != nil || db.DryRun || len(st.fresh) == 0 {
			create(db)
			return
		}
		ins := inserter{AutoID: a, db: db, create: create, st: st, all: db.Statement.ReflectValue}
		err := ins.run()
		if ins.savepoint && ins.st.callerTx {
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

// inserter runs the INSERTs of one Create statement with fresh keys.
type inserter struct {
	AutoID
	db           *gorm.DB
	create       func(*gorm.DB)
	st           *fillState
	all          reflect.Value   // the statement's rows as GORM set them
	rows         []reflect.Value // the rows of the current INSERT; nil means all
	release      bool            // RELEASE each savepoint after a success
	savepoint    bool            // AutoID's savepoint is open
	rowsAffected int64
}

// run inserts the statement's rows. Without an upsert clause they go in one
// INSERT. With one, the rows whose keys the caller set keep it; the fresh
// rows are inserted without it, and, if a unique key other than the primary
// key conflicts and the clause may cover that key, one at a time with the
// clause for a row whose plain insert hit such a key.
func (ins *inserter) run() error {
	stmt := ins.db.Statement
	c, hasClause := stmt.Clauses["ON CONFLICT"]
	if !hasClause {
		if ins.retries() < 0 {
			return ins.exec(false)
		}
		return ins.insertRetrying()
	}
	defer ins.restore(c)
	if len(ins.st.kept) > 0 {
		ins.useRows(ins.st.kept)
		if err := ins.exec(false); err != nil {
			return err
		}
	}
	delete(stmt.Clauses, "ON CONFLICT")
	ins.useRows(ins.st.fresh)
	err := ins.insertRetrying()
	oc, _ := c.Expression.(clause.OnConflict)
	if !ins.otherKeyConflict(err) || ins.targetsKey(oc) {
		return err
	}
	ins.release = true
	for _, row := range ins.st.fresh {
		ins.useRows([]reflect.Value{row})
		delete(stmt.Clauses, "ON CONFLICT")
		err := ins.insertRetrying()
		if ins.otherKeyConflict(err) {
			stmt.Clauses["ON CONFLICT"] = c
			ins.returnKeys()
			err = ins.insertRetrying()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// otherKeyConflict reports whether err is a unique violation on a key other
// than the primary key, which the caller's upsert clause may cover. A fresh
// key that stays taken after the retries must not reach the clause.
func (ins *inserter) otherKeyConflict(err error) bool {
	return err != nil && isDuplicate(ins.db, err) && !keyCollision(ins.db, err)
}

// restore gives the statement back its rows and upsert clause.
func (ins *inserter) restore(c clause.Clause) {
	ins.useRows(nil)
	ins.db.Statement.Clauses["ON CONFLICT"] = c
}

// useRows makes the statement write rows (all of its rows for nil).
func (ins *inserter) useRows(rows []reflect.Value) {
	stmt := ins.db.Statement
	ins.rows = rows
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

// targetsKey reports whether an upsert clause applies only to conflicts on
// the primary key, so that a fresh row never needs it. MySQL's ON DUPLICATE
// KEY UPDATE applies to every unique key.
func (ins *inserter) targetsKey(oc clause.OnConflict) bool {
	s := ins.db.Statement.Schema
	if ins.db.Dialector.Name() == dialectMySQL || oc.OnConstraint != "" {
		return false
	}
	if len(oc.Columns) == 0 {
		return oc.UpdateAll // GORM aims UpdateAll without columns at the key
	}
	if len(oc.Columns) != len(s.PrimaryFieldDBNames) {
		return false
	}
	for _, col := range oc.Columns {
		if !slices.Contains(s.PrimaryFieldDBNames, col.Name) {
			return false
		}
	}
	return true
}

// insertRetrying inserts the current rows, and again with new keys after a
// collision on the primary key.
func (ins *inserter) insertRetrying() error {
	for attempt := 0; ; attempt++ {
		err := ins.exec(true)
		if err == nil || ins.retries() < 0 || attempt == ins.retries() || !keyCollision(ins.db, err) {
			return err
		}
		if err := ins.redraw(); err != nil {
			return err
		}
	}
}

// redraw gives the current rows new keys and runs their BeforeSave and
// BeforeCreate hooks again.
func (ins *inserter) redraw() error {
	rows := ins.rows
	if rows == nil {
		rows = ins.st.fresh
	}
	only := make(map[uintptr]bool, len(rows))
	for _, r := range rows {
		only[r.Addr().Pointer()] = true
	}
	if err := ins.draw(ins.st.columns, only); err != nil {
		return fmt.Errorf("%w for %s: %w", ErrGenerate, ins.db.Statement.Schema.Name, err)
	}
	if ins.db.Statement.SkipHooks {
		return nil
	}
	if ins.rows == nil && len(ins.st.kept) > 0 {
		// Only the rows with new keys run their hooks again.
		ins.useRows(rows)
		defer ins.useRows(nil)
	}
	callbacks.BeforeCreate(ins.db)
	err := ins.db.Error
	ins.db.Error = nil
	return err
}

// exec runs gorm:create once on the current rows. When a failure is to be
// followed by more statements (a retry, or the upsert of a row whose plain
// insert hit another key) on PostgreSQL in a transaction, a single row in the
// transaction GORM began for it is inserted with ON CONFLICT on its key DO
// NOTHING, and other rows run under a savepoint, so that a failed INSERT
// leaves the transaction usable.
func (ins *inserter) exec(guard bool) error {
	db := ins.db
	stmt := db.Statement
	_, inTx := stmt.ConnPool.(gorm.TxCommitter)
	pg := guard && inTx && db.Dialector.Name() == dialectPostgres
	_, hasClause := stmt.Clauses["ON CONFLICT"]
	skipIfTaken := pg && !ins.st.callerTx && !ins.release && !hasClause &&
		stmt.ReflectValue.Kind() == reflect.Struct && len(ins.st.fresh) == 1
	savepoint := pg && !skipIfTaken
	if skipIfTaken {
		defer delete(stmt.Clauses, "ON CONFLICT")
		stmt.AddClause(clause.OnConflict{Columns: keyColumns(stmt), DoNothing: true})
		ins.returnKeys()
	}
	if savepoint && !ins.savepoint {
		if err := execSQL(db, "SAVEPOINT "+savepointName); err != nil {
			return err
		}
		ins.savepoint = true
	}
	stmt.SQL.Reset()
	stmt.Vars = nil
	ins.create(db)
	err := db.Error
	db.Error = nil
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
