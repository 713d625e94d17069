package gormtype

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/schema"
)

// checkStatement returns [ErrRefused] for a Create whose fresh values
// could make it update or skip another row, or leave a filled field out.
// It holds back a MySQL upsert of one row for the plain INSERT tried
// first, and makes a PostgreSQL or SQLite upsert return the stored row's
// key and fresh columns.
func checkStatement(db *gorm.DB, st *attempt) error {
	stmt := db.Statement
	selected, restricted := map[string]bool{}, false
	if len(stmt.Selects)+len(stmt.Omits) > 0 {
		selected, restricted = stmt.SelectAndOmitColumns(true, false)
	}
	for _, c := range st.columns {
		if v, ok := selected[c.name]; ok && !v || !ok && restricted {
			return refusal(stmt, st, "Select or Omit leaves "+c.name+" out, so the struct would hold a key no row has",
				"include it, or declare the database default in the model (gorm:\"default:huid_generate()\")")
		}
	}
	if in, _ := stmt.Clauses["INSERT"].Expression.(clause.Insert); in.Modifier != "" {
		return refusal(stmt, st, "INSERT "+in.Modifier+" would skip or replace the row that holds a taken key", setKeys)
	}
	c, ok := stmt.Clauses["ON CONFLICT"]
	if !ok {
		return nil
	}
	oc, isOnConflict := c.Expression.(clause.OnConflict)
	switch dialect := db.Dialector.Name(); {
	case !isOnConflict:
		return refusal(stmt, st, fmt.Sprintf("AutoID cannot read the upsert clause %T", c.Expression), setKeys)
	case oc.UpdateAll && slices.ContainsFunc(st.columns, func(c filledColumn) bool { return !isKey(stmt, c.name) }),
		slices.ContainsFunc(oc.DoUpdates, func(a clause.Assignment) bool { return st.filled(a.Column) }):
		return refusal(stmt, st, "the upsert would give the row it updates a fresh value", "list the columns to update without it in DoUpdates, or "+setKeys)
	case dialect == dialectMySQL:
		if st.rows > 1 {
			return refusal(stmt, st, "ON DUPLICATE KEY UPDATE fires on every unique key, the primary key included, and AutoID tries it plainly first for one row only",
				"create such rows one at a time, or "+setKeys)
		}
		if st.keyCols == nil { // not yet met another key: try it plainly
			st.upsert = &c
			delete(stmt.Clauses, "ON CONFLICT")
		}
	case dialect != dialectPostgres && dialect != dialectSQLite:
		return refusal(stmt, st, "AutoID knows the upsert of PostgreSQL, MySQL and SQLite only", setKeys)
	case oc.DoNothing || oc.Where.Exprs != nil:
		return refusal(stmt, st, "DO NOTHING or DO UPDATE … WHERE may skip a row and leave its struct with a key no row has",
			"use DoUpdates, or "+setKeys)
	case oc.OnConstraint != "" || len(oc.Columns) == 0 || slices.ContainsFunc(oc.Columns, st.filled):
		return refusal(stmt, st, "its ON CONFLICT may fire on a fresh value (on a filled column, on no column, or ON CONSTRAINT)",
			"aim it at another unique column, or "+setKeys)
	default:
		returnKeys(stmt, st.columns)
	}
	return nil
}

// keepNewRows readies a statement saving associations of another record,
// which GORM sends as an upsert on the primary key that a fresh key would
// turn into an update of another row: the new rows (a key is zero) stay as
// a plain INSERT, the stored ones go apart through GORM's upsert. It
// reports whether a row is new.
func keepNewRows(db *gorm.DB, parent *attempt) (bool, error) {
	stmt := db.Statement
	var news, stored []reflect.Value
	byValue := false
	eachRow(stmt.ReflectValue, func(row reflect.Value) {
		isNew := slices.ContainsFunc(stmt.Schema.PrimaryFields, func(f *schema.Field) bool {
			_, zero := f.ValueOf(stmt.Context, row)
			return zero
		})
		if isNew {
			news = append(news, row)
		} else {
			stored = append(stored, row)
		}
		byValue = byValue || !row.CanAddr()
	})
	if len(news) == 0 {
		return false, nil
	}
	if len(stored) == 0 || byValue { // collect refuses rows by value
		delete(stmt.Clauses, "ON CONFLICT")
		return true, nil
	}
	res := db.Session(&gorm.Session{NewDB: true, SkipHooks: stmt.SkipHooks}).Set(parentKey, parent).
		Clauses(stmt.Clauses["ON CONFLICT"].Expression).Create(pointers(stored).Interface())
	stmt.ReflectValue = pointers(news)
	delete(stmt.Clauses, "ON CONFLICT")
	return true, res.Error
}

// pointers returns a slice of pointers to rows.
func pointers(rows []reflect.Value) reflect.Value {
	s := reflect.MakeSlice(reflect.SliceOf(rows[0].Addr().Type()), 0, len(rows))
	for _, r := range rows {
		s = reflect.Append(s, r.Addr())
	}
	return s
}

// checkRetry returns [ErrRefused], wrapping err, when running the Create
// again could store a row twice: a MySQL table without transactions keeps
// the rows a failed multi-row INSERT wrote before the collision.
func checkRetry(db *gorm.DB, st *attempt, err error) error {
	if db.Dialector.Name() != dialectMySQL || st.rows == 1 {
		return nil
	}
	schemaName, table := tableOf(st.stmt)
	var transactions string
	q := aside(db).Raw(`SELECT e.transactions FROM information_schema.tables t
		JOIN information_schema.engines e ON e.engine = t.engine
		WHERE t.table_schema = COALESCE(NULLIF(?, ''), DATABASE()) AND t.table_name = ?`, schemaName, table).Scan(&transactions)
	if q.Error == nil && transactions == "YES" {
		return nil
	}
	return fmt.Errorf("%w: a fresh key of a %d-row INSERT into %s was taken, and AutoID cannot tell that the table's engine undid the rows written before it; use InnoDB, or insert one row at a time: %w",
		ErrRefused, st.rows, tableName(st.stmt), errors.Join(q.Error, err))
}

// isKey reports whether column is one of the statement's primary key.
func isKey(stmt *gorm.Statement, column string) bool {
	return slices.Contains(stmt.Schema.PrimaryFieldDBNames, column)
}

const setKeys = "set the keys yourself (gormtype.NewHUID(), NewSCRU128()) or give them a database default (gorm:\"default:huid_generate()\"), and AutoID leaves the statement alone"

func refusal(stmt *gorm.Statement, st *attempt, why, fix string) error {
	var cols []string
	for _, c := range st.columns {
		cols = append(cols, c.name)
	}
	return fmt.Errorf("%w: a Create into %s with fresh %s: %s; %s", ErrRefused, tableName(stmt), strings.Join(cols, ", "), why, fix)
}

// filled reports whether AutoID filled column c in the statement.
func (st *attempt) filled(c clause.Column) bool {
	return slices.ContainsFunc(st.columns, func(f filledColumn) bool { return strings.EqualFold(f.name, c.Name) })
}

// returnKeys makes the INSERT return the primary key and the filled
// columns, which GORM writes into the row: after an upsert that updated a
// row, that row's values. It keeps the columns GORM returns for database
// defaults.
func returnKeys(stmt *gorm.Statement, filled []filledColumn) {
	var keys []clause.Column
	for _, name := range storedColumns(stmt, filled) {
		keys = append(keys, clause.Column{Name: name})
	}
	if c, ok := stmt.Clauses["RETURNING"]; ok {
		r, _ := c.Expression.(clause.Returning)
		if len(r.Columns) == 0 {
			return // RETURNING *
		}
		if keys = slices.DeleteFunc(keys, func(k clause.Column) bool { return slices.Contains(r.Columns, k) }); len(keys) > 0 {
			stmt.AddClause(clause.Returning{Columns: keys})
		}
		return
	}
	for _, f := range stmt.Schema.FieldsWithDefaultDBValue {
		if f.Readable && !slices.Contains(keys, clause.Column{Name: f.DBName}) {
			keys = append(keys, clause.Column{Name: f.DBName})
		}
	}
	stmt.AddClause(clause.Returning{Columns: keys})
}

// storedColumns are the primary key and the filled columns: what an upsert
// reads back of the row it stored.
func storedColumns(stmt *gorm.Statement, filled []filledColumn) []string {
	cols := slices.Clone(stmt.Schema.PrimaryFieldDBNames)
	for _, c := range filled {
		if !slices.Contains(cols, c.name) {
			cols = append(cols, c.name)
		}
	}
	return cols
}

// readBack sets the row's key and filled fields to those of the row a
// MySQL upsert met on the unique key cols, which MySQL cannot return.
func readBack(db *gorm.DB, st *attempt) error {
	stmt := db.Statement
	where := map[string]any{}
	var row reflect.Value
	eachRow(stmt.ReflectValue, func(r reflect.Value) { row = r })
	for _, c := range st.keyCols {
		f := stmt.Schema.LookUpField(c)
		if f == nil {
			return fmt.Errorf("gormtype: read back the upserted row: %s has no field for column %s", stmt.Schema.Name, c)
		}
		where[c], _ = f.ValueOf(stmt.Context, row)
	}
	cols := storedColumns(stmt, st.columns)
	stored := reflect.New(stmt.Schema.ModelType)
	if err := aside(db).Unscoped().Table(tableName(stmt)).Select(cols).Where(where).Take(stored.Interface()).Error; err != nil {
		return fmt.Errorf("gormtype: read back the upserted row: %w", err)
	}
	for _, c := range cols {
		f := stmt.Schema.LookUpField(c)
		v, _ := f.ValueOf(stmt.Context, stored.Elem())
		if err := f.Set(stmt.Context, row, v); err != nil {
			return err
		}
	}
	return nil
}
