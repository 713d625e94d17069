package gormtype

import (
	"database/sql"
	"database/sql/driver"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/schema"
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
// make it update or skip another row, or leave a filled field out. To an
// allowed upsert it adds RETURNING, so that the struct gets the stored row.
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
		return refuse("the upsert would give the row it updates a fresh value", "create new rows with db.Create (db.Save of a slice upserts them), list the columns to update without it in DoUpdates, or "+setKeys)
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
	names := append(slices.Clone(stmt.Schema.PrimaryFieldDBNames), cols...)
	if _, ok := stmt.Clauses["RETURNING"]; !ok { // GORM's own, which ours replaces
		for _, fd := range stmt.Schema.FieldsWithDefaultDBValue {
			names = append(names, fd.DBName)
		}
	}
	var returning clause.Returning
	for _, n := range slices.Compact(slices.Sorted(slices.Values(names))) {
		returning.Columns = append(returning.Columns, clause.Column{Name: n})
	}
	stmt.AddClause(returning)
	f.returning = true
	return nil
}

// zeroFields returns the ID fields (not Null or pointers, whose NULL is a
// value) that keep admits and that are zero in some of the statement's rows.
func zeroFields(stmt *gorm.Statement, keep func(*schema.Field) bool) (zero []*schema.Field) {
	for _, f := range stmt.Schema.Fields {
		if s := schemeOf(f.FieldType); s == nil || f.FieldType != s.typ || f.DBName == "" || !keep(f) {
			continue
		}
		unset := false
		eachRow(stmt.ReflectValue, func(row reflect.Value) {
			unset = unset || isZeroID(f.ReflectValueOf(stmt.Context, row))
		})
		if unset {
			zero = append(zero, f)
		}
	}
	return zero
}

// checkUnset returns [ErrZeroID] naming a field that a Create would write
// zero: AutoID fills keys and sortid:"auto" fields only, and counts a
// column DEFAULT only when the model declares it.
func checkUnset(stmt *gorm.Statement) error {
	zero := zeroFields(stmt, func(f *schema.Field) bool {
		return f.Creatable && !f.HasDefaultValue && !isAutoField(f) && !leftOut(stmt, f.DBName) // AutoID filled those
	})
	if len(zero) == 0 {
		return nil
	}
	return fmt.Errorf("%w: a Create into %s leaves %s.%s (a %s) zero, and AutoID fills only keys and fields tagged sortid:\"auto\"; set it, tag it sortid:\"auto\", or declare its column's DEFAULT in the model (gorm:\"default:…\"), which AutoMigrate drops when the model lacks it",
		ErrZeroID, tableName(stmt), stmt.Schema.Name, zero[0].Name, zero[0].FieldType)
}

// checkSave returns [ErrZeroID] naming a field that a Save (or
// Select("*")) would write zero over the stored ID.
func checkSave(stmt *gorm.Statement) error {
	if len(stmt.Selects) == 0 {
		return nil // Updates skips zero fields
	}
	selected, _ := stmt.SelectAndOmitColumns(false, true)
	zero := zeroFields(stmt, func(f *schema.Field) bool { return selected[f.DBName] && !f.PrimaryKey })
	if len(zero) == 0 {
		return nil
	}
	return fmt.Errorf("%w: db.Save of %s would write its zero %s over the stored one (Save and Select(\"*\") write every field); load the row first (db.First), or update the changed columns only (db.Model(&row).Updates); for a new row use db.Create, which fills it",
		ErrZeroID, stmt.Schema.Name, zero[0].Name)
}

// checkMaps binds the ID values of the statement's maps as their fields'
// types ([asID]): an Update's in copies, as GORM only reads its map, which
// may be shared. For a map Create it returns [ErrRefused] when an auto
// field is unset: AutoID fills structs only.
func checkMaps(stmt *gorm.Statement, auto []*schema.Field, create bool) error {
	var rows []map[string]any
	switch d := stmt.Dest.(type) {
	case map[string]any:
		rows = []map[string]any{d}
	case *map[string]any:
		rows = []map[string]any{*d}
	case []map[string]any:
		rows = slices.Clone(d)
	case *[]map[string]any:
		rows = slices.Clone(*d)
	}
	bound := false
	for i, m := range rows {
		cloned := false
		for _, f := range stmt.Schema.Fields {
			key := f.DBName
			if _, ok := m[key]; !ok {
				key = f.Name
			}
			v, ok := m[key]
			if create && slices.Contains(auto, f) && (v == nil || reflect.ValueOf(v).IsZero()) {
				return fmt.Errorf("%w: a Create into %s from a map leaves %q unset, and AutoID fills structs only; set it in the map, or create from a struct", ErrRefused, tableName(stmt), f.DBName)
			}
			if _, expr := v.(clause.Expression); !ok || expr || schemeOf(f.FieldType) == nil {
				continue
			}
			id, err := asID(f, v)
			if err != nil {
				return err
			} else if create {
				m[key] = id // GORM writes a Create's new key into the map too
			} else if v != id {
				if !cloned {
					m, cloned, bound = maps.Clone(m), true, true
					rows[i] = m
				}
				m[key] = id
			}
		}
	}
	if bound {
		stmt.Dest = rowsAs(stmt.Dest, rows)
	}
	return nil
}

// rowsAs returns rows in the form of dest: a map, a slice, or a pointer.
func rowsAs(dest any, rows []map[string]any) any {
	switch dest.(type) {
	case map[string]any:
		return rows[0]
	case *map[string]any:
		return &rows[0]
	case []map[string]any:
		return rows
	}
	return &rows
}

// asID returns v, given for the ID field f in a map or inline, as f's type
// (GORM binds such values as they are: a SCRU128's UUID text as text). It
// returns [ErrZeroID] for 0, "" and, unless f is a Null or a pointer that
// is not a key, nil.
func asID(f *schema.Field, v any) (any, error) {
	s, id := schemeOf(f.FieldType), reflect.New(indirect(f.FieldType))
	dv, err := driver.DefaultParameterConverter.ConvertValue(v) // a zero ID's Value is ErrZeroID
	pointer := f.FieldType.Kind() == reflect.Pointer
	switch {
	case err != nil:
	case dv == nil && pointer && !f.PrimaryKey:
		return nil, nil // NULL
	case dv == nil && !pointer && id.Elem().Type() != s.null:
		err = fmt.Errorf("%w: a gormtype.%s field cannot hold NULL; make it *gormtype.%s or Null%s where it may (GORM writes NULL to detach a has-many's rows in Association Delete, Clear and Replace)", ErrZeroID, s.name, s.name, s.name)
	case dv == "" || dv == nil && id.Elem().Type() != s.null || dv != nil && reflect.ValueOf(dv).IsZero():
		err = fmt.Errorf("%w; set a gormtype.%s, or for a new row leave it to AutoID", ErrZeroID, s.name)
	}
	if err == nil {
		err = id.Interface().(sql.Scanner).Scan(dv)
	}
	if err != nil {
		return nil, fmt.Errorf("gormtype: the value %#v for %s.%s: %w", v, f.Schema.Name, f.Name, err)
	}
	return id.Elem().Interface(), nil
}

// splitStored readies a statement saving associations, which GORM sends as
// an upsert on the primary key that a fresh key would turn into an update
// of another row: the new rows (a key [madeKey] is unset) stay as a
// plain INSERT, once each when rows share one (two pets, one new owner),
// the stored ones go apart through GORM's upsert (see [checkStored]). It
// reports whether a row is new.
func splitStored(db *gorm.DB) (bool, error) {
	stmt := db.Statement
	var news, stored []reflect.Value
	byValue, shared, seen := false, false, map[uintptr]bool{}
	eachRow(stmt.ReflectValue, func(row reflect.Value) {
		if byValue = byValue || !row.CanAddr(); !byValue {
			p := row.Addr().Pointer()
			if shared = shared || seen[p]; seen[p] {
				return
			}
			seen[p] = true
		}
		if isNew(stmt, row) {
			news = append(news, row)
		} else {
			stored = append(stored, row)
		}
	})
	if len(news) == 0 {
		return false, checkStored(stmt)
	}
	upsert := stmt.Clauses["ON CONFLICT"].Expression
	delete(stmt.Clauses, "ON CONFLICT")
	if byValue || len(stored) == 0 && !shared { // collect refuses rows by value
		return true, nil
	}
	stmt.ReflectValue = pointers(news)
	if len(stored) == 0 {
		return true, nil
	}
	tx := db.Session(&gorm.Session{NewDB: true, SkipHooks: stmt.SkipHooks}).Clauses(upsert)
	stmt.Settings.Range(func(k, v any) bool { // as GORM hands them to association saves
		tx.Statement.Settings.Store(k, v)
		return true
	})
	if len(stmt.Selects) > 0 {
		tx = tx.Select(stmt.Selects)
	}
	return true, tx.Omit(stmt.Omits...).Create(pointers(stored).Interface()).Error
}

func pointers(rows []reflect.Value) reflect.Value {
	s := reflect.MakeSlice(reflect.SliceOf(rows[0].Addr().Type()), 0, len(rows))
	for _, r := range rows {
		s = reflect.Append(s, r.Addr())
	}
	return s
}

// isNew reports whether a row is new: a key [madeKey] is unset.
func isNew(stmt *gorm.Statement, row reflect.Value) bool {
	return slices.ContainsFunc(stmt.Schema.PrimaryFields, func(f *schema.Field) bool {
		return madeKey(f) && isZeroID(f.ReflectValueOf(stmt.Context, row))
	})
}

// savesByKey reports whether stmt upserts every column on the primary key,
// as db.Save does for a row its UPDATE did not change (MySQL counts none):
// rows given by key are stored as they are.
func savesByKey(stmt *gorm.Statement) bool {
	oc, _ := stmt.Clauses["ON CONFLICT"].Expression.(clause.OnConflict)
	return oc.UpdateAll && !slices.ContainsFunc(oc.Columns, func(c clause.Column) bool {
		return !slices.Contains(stmt.Schema.PrimaryFieldDBNames, c.Name)
	})
}

// madeKey reports whether a key field's zero means "to be made" (by AutoID
// or the database), not a value such as a slot number 0.
func madeKey(f *schema.Field) bool {
	return f.AutoIncrement || f.HasDefaultValue || schemeOf(f.FieldType) != nil
}

// checkStored returns [ErrZeroID] for rows given by key to an upsert (an
// association's, db.Save's) with a zero ID field: GORM's upsert would write
// it over the stored row, or as NULL into a row not there yet, which AutoID
// cannot tell apart.
func checkStored(stmt *gorm.Statement) error {
	zero := zeroFields(stmt, func(f *schema.Field) bool { return !f.PrimaryKey })
	if len(zero) == 0 {
		return nil
	}
	return fmt.Errorf("%w: GORM saves %s rows given by their keys (associations, db.Save) as an upsert, which would write their zero %s (over the stored row, or as NULL into a row not there yet); to attach a stored row set the foreign key field instead of the association (many2many: db.Omit(\"<association>.*\"), and GORM still links it), or leave the association out of a loaded row's Save (db.Omit(\"<association>\")); for a new row set %s, or create it first",
		ErrZeroID, stmt.Schema.Name, zero[0].Name, zero[0].Name)
}

// checkAssociationKeys returns [ErrZeroID] for an association row whose key
// GORM takes as set and AutoID as unset (a pointer to a zero ID, a Valid
// Null of one): GORM would save one row for all of them.
func checkAssociationKeys(stmt *gorm.Statement) (err error) {
	for _, rel := range stmt.Schema.Relationships.Relations {
		key := rel.FieldSchema.PrioritizedPrimaryField
		if rel.Field.Schema != stmt.Schema || key == nil { // GORM lists other structs' relations here too
			continue
		} else if s := schemeOf(key.FieldType); s == nil || key.FieldType == s.typ {
			continue // GORM and AutoID agree on a plain ID's zero
		}
		eachRow(stmt.ReflectValue, func(row reflect.Value) {
			eachRow(reflect.Indirect(rel.Field.ReflectValueOf(stmt.Context, row)), func(r reflect.Value) {
				if err == nil && pointsToZero(key.ReflectValueOf(stmt.Context, r)) {
					err = fmt.Errorf("%w: a %s in %s.%s has a %s that points to a zero ID or is a Valid Null of one, which GORM takes as a key and saves once for all such rows; leave it nil (or not Valid), and AutoID fills it",
						ErrZeroID, rel.FieldSchema.Name, stmt.Schema.Name, rel.Name, key.Name)
				}
			})
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// pointsToZero reports whether an ID field that GORM takes as set is
// unset: a pointer to a zero ID, or a Valid Null of one.
func pointsToZero(fv reflect.Value) bool {
	return !fv.IsZero() && isZeroID(fv)
}

// checkModelKey returns [ErrZeroID] for an Update of a row whose ID key
// points to a zero ID or is a Valid Null of one, which GORM would match as
// NULL, or, with no Where, is zero while another key part is set, which
// GORM would leave out and update the rows of every value of it.
func checkModelKey(stmt *gorm.Statement) error {
	row := stmt.ReflectValue
	if row.Kind() != reflect.Struct {
		return nil
	}
	_, where := stmt.Clauses["WHERE"]
	set := !where && slices.ContainsFunc(stmt.Schema.PrimaryFields, func(f *schema.Field) bool {
		return !f.ReflectValueOf(stmt.Context, row).IsZero()
	})
	for _, f := range stmt.Schema.PrimaryFields {
		if fv := f.ReflectValueOf(stmt.Context, row); schemeOf(f.FieldType) != nil && (pointsToZero(fv) || set && fv.IsZero()) {
			return fmt.Errorf("%w: the key part %s.%s of the updated row is unset, which GORM would match as NULL or leave out; set it, load the row, or name the rows with Where", ErrZeroID, stmt.Schema.Name, f.Name)
		}
	}
	return nil
}

// aside is a session on the statement's connection for AutoID's own
// statements, without the Create's error.
func aside(db *gorm.DB) *gorm.DB {
	tx := db.Session(&gorm.Session{NewDB: true})
	tx.Error = nil
	return tx
}
