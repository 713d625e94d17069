package gormtype

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/schema"
)

const setKeys = "set the keys yourself (gormtype.NewHUID(), NewSCRU128()) or give them a database default (gorm:\"default:huid_generate()\"), and AutoID leaves the statement alone"

// checkStatement returns [ErrRefused] for a Create whose fresh values could
// make it update or skip another row, or leave a filled field out.
func checkStatement(db *gorm.DB, f *filled) error {
	stmt, cols := db.Statement, make([]string, len(f.cols))
	for i, c := range f.cols {
		cols[i] = c.name
	}
	refuse := func(why, fix string) error {
		return fmt.Errorf("%w: a Create into %s with fresh %s: %s; %s", ErrRefused, f.table, strings.Join(cols, ", "), why, fix)
	}
	filled := func(c clause.Column) bool {
		return slices.ContainsFunc(cols, func(n string) bool { return strings.EqualFold(n, c.Name) })
	}
	if len(stmt.Selects)+len(stmt.Omits) > 0 {
		selected, restricted := stmt.SelectAndOmitColumns(true, false)
		for _, c := range cols {
			if v, ok := selected[c]; ok && !v || !ok && restricted {
				return refuse("Select or Omit leaves "+c+" out, so the struct would hold a key no row has",
					"include it, or declare the database default in the model (gorm:\"default:huid_generate()\")")
			}
		}
	}
	if in, _ := stmt.Clauses["INSERT"].Expression.(clause.Insert); in.Modifier != "" {
		return refuse("INSERT "+in.Modifier+" would skip or replace the row that holds a taken key", setKeys)
	}
	c, ok := stmt.Clauses["ON CONFLICT"]
	oc, isOnConflict := c.Expression.(clause.OnConflict)
	switch dialect := db.Dialector.Name(); {
	case !ok:
		return nil
	case !isOnConflict:
		return refuse(fmt.Sprintf("AutoID cannot read the upsert clause %T", c.Expression), setKeys)
	case oc.UpdateAll && slices.ContainsFunc(cols, func(c string) bool { return !slices.Contains(stmt.Schema.PrimaryFieldDBNames, c) }),
		slices.ContainsFunc(oc.DoUpdates, func(a clause.Assignment) bool { return filled(a.Column) }):
		return refuse("the upsert would give the row it updates a fresh value", "list the columns to update without it in DoUpdates, or "+setKeys)
	case dialect == "mysql":
		return refuse("ON DUPLICATE KEY UPDATE fires on every unique key, so a taken fresh key would update the row that holds it",
			"look the row up first (db.Where(…).Assign(…).FirstOrCreate(&row)), or "+setKeys)
	case dialect != "postgres" && dialect != "sqlite":
		return refuse("AutoID knows the upsert of PostgreSQL, MySQL and SQLite only", setKeys)
	case oc.DoNothing || oc.Where.Exprs != nil:
		return refuse("DO NOTHING or DO UPDATE … WHERE may skip a row and leave its struct with a key no row has", "use DoUpdates, or "+setKeys)
	case oc.OnConstraint != "" || len(oc.Columns) == 0 || slices.ContainsFunc(oc.Columns, filled):
		return refuse("its ON CONFLICT may fire on a fresh value (on a filled column, on no column, or ON CONSTRAINT)",
			"aim it at another unique column, or "+setKeys)
	}
	// Return the key and the filled columns, which GORM writes into the row:
	// after an update, that row's values; and those GORM returns itself.
	names := append(slices.Clone(stmt.Schema.PrimaryFieldDBNames), cols...)
	if _, ok := stmt.Clauses["RETURNING"]; !ok {
		for _, fd := range stmt.Schema.FieldsWithDefaultDBValue {
			names = append(names, fd.DBName)
		}
	}
	var returning clause.Returning
	for _, n := range slices.Compact(slices.Sorted(slices.Values(names))) {
		returning.Columns = append(returning.Columns, clause.Column{Name: n})
	}
	stmt.AddClause(returning)
	return nil
}

// isJoinTable reports whether the statement writes the join rows of one of
// parent's many2many associations: GORM's DO NOTHING is meant for them.
func isJoinTable(parent, stmt *gorm.Statement) bool {
	return parent != nil && parent.Schema != nil && slices.ContainsFunc(parent.Schema.Relationships.Many2Many,
		func(r *schema.Relationship) bool { return r.JoinTable != nil && r.JoinTable.Table == stmt.Table })
}

// splitStored readies a statement saving associations, which GORM sends as
// an upsert on the primary key that a fresh key would turn into an update
// of another row: the new rows (a key is zero) stay as a plain INSERT, the
// stored ones go apart through GORM's upsert (see [attachStored]). It
// reports whether a row is new.
func splitStored(db *gorm.DB, link any, linkKey string) (bool, error) {
	stmt := db.Statement
	var news, stored []reflect.Value
	byValue := false
	eachRow(stmt.ReflectValue, func(row reflect.Value) {
		if slices.ContainsFunc(stmt.Schema.PrimaryFields, func(f *schema.Field) bool { return isZeroID(f.ReflectValueOf(stmt.Context, row)) }) {
			news = append(news, row)
		} else {
			stored = append(stored, row)
		}
		byValue = byValue || !row.CanAddr()
	})
	if len(news) == 0 {
		return false, attachStored(stmt)
	}
	upsert := stmt.Clauses["ON CONFLICT"].Expression
	delete(stmt.Clauses, "ON CONFLICT")
	if len(stored) == 0 || byValue { // collect refuses rows by value
		return true, nil
	}
	stmt.ReflectValue = pointers(news)
	return true, db.Session(&gorm.Session{NewDB: true, SkipHooks: stmt.SkipHooks}).Set(linkKey, link).
		Clauses(upsert).Create(pointers(stored).Interface()).Error
}

func pointers(rows []reflect.Value) reflect.Value {
	s := reflect.MakeSlice(reflect.SliceOf(rows[0].Addr().Type()), 0, len(rows))
	for _, r := range rows {
		s = reflect.Append(s, r.Addr())
	}
	return s
}

// attachStored leaves the ID columns zero in every row out of GORM's DO
// NOTHING upsert of rows given by key; else zero ones are [ErrZeroID].
func attachStored(stmt *gorm.Statement) error {
	oc, _ := stmt.Clauses["ON CONFLICT"].Expression.(clause.OnConflict)
	for _, f := range stmt.Schema.Fields {
		if s := schemeOf(f.FieldType); s == nil || f.FieldType != s.typ || f.PrimaryKey || f.DBName == "" {
			continue
		}
		set, zero := 0, 0
		eachRow(stmt.ReflectValue, func(row reflect.Value) {
			if isZeroID(f.ReflectValueOf(stmt.Context, row)) {
				zero++
			} else {
				set++
			}
		})
		if zero > 0 && oc.DoNothing && set == 0 {
			stmt.Omits = append(stmt.Omits, f.DBName)
		} else if zero > 0 {
			return fmt.Errorf("%w: GORM saves %s rows given by their keys, and would write their zero %s over the stored one (or store it in a row); load the rows (db.First), or set %s",
				ErrZeroID, stmt.Schema.Name, f.Name, f.Name)
		}
	}
	return nil
}

// checkSave returns [ErrZeroID] for a Save (or Select("*")) that would
// write a zero ID field over the stored one.
func checkSave(stmt *gorm.Statement) (err error) {
	if len(stmt.Selects) == 0 {
		return nil // Updates skips zero fields
	}
	selected, _ := stmt.SelectAndOmitColumns(false, true)
	eachRow(stmt.ReflectValue, func(row reflect.Value) {
		for _, f := range stmt.Schema.Fields {
			if s := schemeOf(f.FieldType); s != nil && f.FieldType == s.typ && selected[f.DBName] && !f.PrimaryKey && err == nil && isZeroID(f.ReflectValueOf(stmt.Context, row)) {
				err = fmt.Errorf("%w: db.Save of %s would write its zero %s over the stored one (Save and Select(\"*\") write every field); load the row first (db.First), or update the changed columns only (db.Model(&row).Updates); for a new row use db.Create, which fills it",
					ErrZeroID, stmt.Schema.Name, f.Name)
			}
		}
	})
	return err
}
