package gormtype

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

const setKeys = "set the keys yourself (gormtype.NewHUID(), NewSCRU128()) or give them a database default (gorm:\"default:huid_generate()\"), and AutoID leaves the statement alone"

// leftOut reports whether the statement's Select or Omit leaves col out.
func leftOut(stmt *gorm.Statement, col string) bool {
	if len(stmt.Selects)+len(stmt.Omits) == 0 {
		return false
	}
	selected, restricted := stmt.SelectAndOmitColumns(true, false)
	v, ok := selected[col]
	return ok && !v || !ok && restricted
}

// checkStatement returns [ErrRefused] for a Create whose fresh values could
// make it update or skip another row, or leave a filled field out. An
// allowed upsert returns the stored row's key and filled columns.
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
	for _, c := range cols {
		if leftOut(stmt, c) {
			return refuse("Select or Omit leaves "+c+" out, so the struct would hold a key no row has",
				"include it, or declare the database default in the model (gorm:\"default:huid_generate()\")")
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
	// GORM writes the returned columns into the row: after an update, the
	// stored row's; with them the ones GORM returns itself.
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

// checkUnset returns [ErrZeroID] naming a field of a gormtype ID type that
// a Create under AutoID would write zero: AutoID fills keys and sortid:"auto"
// fields only, and a column DEFAULT only counts when the model declares it.
func checkUnset(stmt *gorm.Statement) (err error) {
	for _, f := range stmt.Schema.Fields {
		s := schemeOf(f.FieldType)
		if s == nil || f.FieldType != s.typ || !f.Creatable || f.DBName == "" || f.HasDefaultValue || leftOut(stmt, f.DBName) {
			continue
		}
		eachRow(stmt.ReflectValue, func(row reflect.Value) {
			if err == nil && isZeroID(f.ReflectValueOf(stmt.Context, row)) {
				err = fmt.Errorf("%w: a Create into %s leaves %s.%s (a gormtype.%s) zero, and AutoID fills only keys and fields tagged sortid:\"auto\"; set it, tag it sortid:\"auto\", or declare its column's DEFAULT in the model (gorm:\"default:…\"), which AutoMigrate drops when the model lacks it",
					ErrZeroID, tableName(stmt), stmt.Schema.Name, f.Name, s.name)
			}
		})
	}
	return err
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
