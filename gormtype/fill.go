package gormtype

import (
	"database/sql"
	"database/sql/driver"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/schema"
)

// TagAuto is the struct tag that marks a non-key field for auto-fill:
// sortid:"auto". The tag sortid:"-" keeps a primary key from being filled.
const TagAuto = "sortid"

// isAutoField reports whether AutoID fills f when it is unset.
func isAutoField(f *schema.Field) bool {
	if schemeOf(f.FieldType) == nil || !f.Creatable || f.DBName == "" || f.HasDefaultValue && f.DefaultValueInterface == nil {
		return false // the database makes a default
	}
	tag := f.Tag.Get(TagAuto)
	return tag == "auto" || tag != "-" && f.PrimaryKey
}

// autoFieldsOf caches autoFields by schema.
var autoFieldsOf sync.Map

// autoFields returns the fields of s that AutoID fills, or [ErrSetup].
func autoFields(s *schema.Schema) (fields []*schema.Field, err error) {
	if v, ok := autoFieldsOf.Load(s); ok {
		return v.([]*schema.Field), nil
	}
	for _, f := range s.Fields {
		for _, sc := range schemes {
			if t := indirect(f.FieldType); t == sc.core || t == sc.coreNull {
				name := map[bool]string{true: "Null"}[t == sc.coreNull] + sc.name
				return nil, fmt.Errorf("%w: %s.%s is an idtype.%s, which GORM does not store as an ID; use gormtype.%s in models", ErrSetup, s.Name, f.Name, name, name)
			}
		}
		if f.Tag.Get(TagAuto) == "auto" && schemeOf(f.FieldType) == nil {
			return nil, fmt.Errorf("%w: %s.%s is tagged sortid:\"auto\" but is a %s; AutoID fills gormtype's ID types only", ErrSetup, s.Name, f.Name, f.FieldType)
		}
		if isAutoField(f) {
			fields = append(fields, f)
		}
	}
	autoFieldsOf.Store(s, fields)
	return fields, nil
}

// checkMaps binds the ID values of the statement's maps as their fields'
// types ([asID]). For a map Create it returns [ErrRefused] when an auto
// field is unset: AutoID fills structs only.
func checkMaps(stmt *gorm.Statement, auto []*schema.Field, create bool) error {
	var maps []map[string]any
	switch d := stmt.Dest.(type) {
	case map[string]any:
		maps = append(maps, d)
	case *map[string]any:
		maps = append(maps, *d)
	case []map[string]any:
		maps = d
	case *[]map[string]any:
		maps = *d
	}
	for _, m := range maps {
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
			}
			m[key] = id
		}
	}
	return nil
}

// asID returns v, given for the ID field f in a map or inline, as f's type
// (GORM binds such values as they are: a SCRU128's UUID text as text). It
// returns [ErrZeroID] for 0, "" and, unless f is a Null type, nil.
func asID(f *schema.Field, v any) (any, error) {
	given, s, id, err := v, schemeOf(f.FieldType), reflect.New(indirect(f.FieldType)), error(nil)
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer {
		v = nil
		if !rv.IsNil() {
			v = rv.Elem().Interface()
		}
	}
	if valuer, ok := v.(driver.Valuer); ok {
		v, err = valuer.Value() // gormtype's and idtype's IDs, zero ones refused
	}
	if rv := reflect.ValueOf(v); rv.CanInt() {
		v = rv.Int()
	} else if rv.CanUint() {
		v = rv.Uint()
	}
	if err == nil && (v == "" || v == nil && id.Elem().Type() != s.null || v != nil && reflect.ValueOf(v).IsZero()) {
		err = fmt.Errorf("%w; set a gormtype.%s, or for a new row leave it to AutoID", ErrZeroID, s.name)
	}
	if err == nil {
		err = id.Interface().(sql.Scanner).Scan(v)
	}
	if err != nil {
		return nil, fmt.Errorf("gormtype: the value %#v for %s.%s: %w", given, f.Schema.Name, f.Name, err)
	}
	return id.Elem().Interface(), nil
}

// isJoinTable reports whether the statement writes the join rows of one of
// parent's many2many associations: GORM's DO NOTHING is meant for them.
func isJoinTable(parent, stmt *gorm.Statement) bool {
	return parent != nil && parent.Schema != nil && slices.ContainsFunc(parent.Schema.Relationships.Many2Many,
		func(r *schema.Relationship) bool { return r.JoinTable != nil && r.JoinTable.Table == stmt.Table })
}

// splitStored readies a statement saving associations, which GORM sends as
// an upsert on the primary key that a fresh key would turn into an update
// of another row: the new rows (a key is unset) stay as a plain INSERT,
// the stored ones go apart through GORM's upsert (see [attachStored]). It
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

// filled is what AutoID filled in one statement.
type filled struct {
	table    string
	rows     int
	cols     []filledColumn
	inserted bool  // its INSERT succeeded
	raw      error // its INSERT's error, untranslated
}

// filledColumn holds a column's unset fields in row order: as found, what
// to zero to undo the fill (a nil pointer, not its ID), and the IDs drawn.
type filledColumn struct {
	name              string
	scheme            *scheme
	fields, undo, ids []reflect.Value
}

// collect finds the unset auto fields of the statement's rows. It returns
// [ErrRefused] for a row passed by value, whose fields it cannot fill.
func collect(stmt *gorm.Statement, fields []*schema.Field) (*filled, error) {
	f := &filled{table: tableName(stmt), cols: make([]filledColumn, len(fields))}
	var err error
	eachRow(stmt.ReflectValue, func(row reflect.Value) {
		f.rows++
		for i, field := range fields {
			fv := field.ReflectValueOf(stmt.Context, row)
			if !isZeroID(fv) {
				continue
			} else if !row.CanAddr() {
				err = fmt.Errorf("%w: a Create into %s passes a row by value, so AutoID cannot fill its %s.%s; pass a pointer (Create(&row))", ErrRefused, f.table, stmt.Schema.Name, field.Name)
				return
			}
			c := &f.cols[i]
			c.name, c.scheme, c.fields, c.undo = field.DBName, schemeOf(field.FieldType), append(c.fields, fv), append(c.undo, fv)
			if fv.Kind() == reflect.Pointer && !fv.IsNil() {
				c.undo[len(c.undo)-1] = fv.Elem()
			}
		}
	})
	f.cols = slices.DeleteFunc(f.cols, func(c filledColumn) bool { return len(c.fields) == 0 })
	return f, err
}

// isZeroID reports whether an ID field is unset: a nil pointer, a zero ID,
// or a Null that is NULL (idtype's rule) or holds a zero ID.
func isZeroID(fv reflect.Value) bool {
	if fv.Kind() == reflect.Pointer {
		if fv.IsNil() {
			return true
		}
		fv = fv.Elem()
	}
	if fv.Kind() == reflect.Struct { // Null[T]{V, Valid}
		return !fv.Field(1).Bool() || fv.Field(0).IsZero()
	}
	return fv.IsZero()
}

// reset makes the fields f filled zero again, pointers found nil nil.
func (f *filled) reset() {
	for _, c := range f.cols {
		for _, fv := range c.undo {
			fv.SetZero()
		}
	}
}

// fills are the statements AutoID filled in one unit of work, which one
// failure undoes: a Transaction's, or a Create's tree; safe for concurrent
// use.
type fills struct {
	mu          sync.Mutex
	list        []*filled
	kept        bool            // rows stay stored: their fields keep their IDs
	parent      *fills          // an enclosing unit, which gets every fill too
	root        *gorm.Statement // a tree's Create
	ownTx, done bool            // root's failure rolls back GORM's transaction; root ended
}

func (u *fills) add(f *filled, kept bool) {
	for ; u != nil; u = u.parent {
		u.mu.Lock()
		if u.kept = u.kept || kept; f != nil {
			u.list = append(u.list, f)
		}
		u.mu.Unlock()
	}
}

// reset makes every field filled in the unit zero again, unless rows stay.
func (u *fills) reset() {
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, f := range u.list {
		if !u.kept {
			f.reset()
		}
	}
}

// written returns the tables the unit's statements wrote rows to.
func (u *fills) written() (tables []string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, f := range u.list {
		if f.inserted {
			tables = append(tables, f.table)
		}
	}
	return tables
}

// eachRow calls fn with every struct the statement writes.
func eachRow(rv reflect.Value, fn func(reflect.Value)) {
	if rv.Kind() == reflect.Struct {
		fn(rv)
	} else if rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array {
		for i := range rv.Len() {
			if row := reflect.Indirect(rv.Index(i)); row.Kind() == reflect.Struct {
				fn(row)
			}
		}
	}
}

// tableOf returns the schema ("": the connection's) and the table of the
// statement; GORM keeps a qualifier only in TableExpr.
func tableOf(stmt *gorm.Statement) (schemaName, table string) {
	name := stmt.Table
	if e := stmt.TableExpr; e != nil && len(e.Vars) == 0 && e.SQL != "" {
		name = strings.NewReplacer("`", "", `"`, "").Replace(strings.Fields(e.SQL)[0]) // "t AS a"
	}
	i := strings.LastIndexByte(name, '.')
	return name[:max(i, 0)], name[i+1:]
}

// tableName is the statement's table for messages, schema included.
func tableName(stmt *gorm.Statement) string {
	schemaName, table := tableOf(stmt)
	return strings.TrimPrefix(schemaName+"."+table, ".")
}
