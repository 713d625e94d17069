package gormtype

import (
	"database/sql"
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

// isAutoField reports whether AutoID fills f when it is zero.
func isAutoField(f *schema.Field) bool {
	if schemeOf(f.FieldType) == nil || !f.Creatable || f.DBName == "" || f.HasDefaultValue && f.DefaultValueInterface == nil {
		return false // the database makes a default
	}
	tag := f.Tag.Get(TagAuto)
	return tag == "auto" || tag != "-" && f.PrimaryKey
}

// autoFieldsOf caches autoFields by schema.
var autoFieldsOf sync.Map

// autoFields returns the fields of s that AutoID fills.
func autoFields(s *schema.Schema) (fields []*schema.Field, err error) {
	if v, ok := autoFieldsOf.Load(s); ok {
		return v.([]*schema.Field), nil
	}
	defer func() {
		if err == nil {
			autoFieldsOf.Store(s, fields)
		}
	}()
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
	return fields, nil
}

// filled is what AutoID filled in one statement.
type filled struct {
	table    string
	rows     int
	cols     []filledColumn
	inserted bool  // its INSERT succeeded
	raw      error // its INSERT's error, untranslated
}

// filledColumn holds a column's zero fields in row order: as found, what
// to zero to undo the fill (a nil pointer, not its ID), and the IDs drawn.
type filledColumn struct {
	name              string
	scheme            *scheme
	fields, undo, ids []reflect.Value
}

// collect finds the zero auto fields of the statement's rows. It returns
// [ErrRefused] for a row passed by value, whose zero fields it cannot fill.
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

// isZeroID reports whether an ID field is unset: zero or a nil pointer.
func isZeroID(fv reflect.Value) bool {
	return fv.Kind() == reflect.Pointer && (fv.IsNil() || fv.Elem().IsZero()) || fv.Kind() != reflect.Pointer && fv.IsZero()
}

// draw gives the collected fields fresh IDs, allocating nil pointers.
func (f *filled) draw(g generators) error {
	for i := range f.cols {
		c := &f.cols[i]
		c.ids = make([]reflect.Value, len(c.fields))
		for j, fv := range c.fields {
			if fv.Kind() == reflect.Pointer {
				if fv.IsNil() {
					fv.Set(reflect.New(fv.Type().Elem()))
				}
				fv = fv.Elem()
			}
			if fv.Type() != c.scheme.typ { // Null[T]{V, Valid}
				fv.Field(1).SetBool(true)
				fv = fv.Field(0)
			}
			c.ids[j] = fv
		}
		if err := c.scheme.fresh(g, c.ids); err != nil {
			return fmt.Errorf("%w for %s.%s: %w", ErrGenerate, f.table, c.name, err)
		}
	}
	return nil
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

// reset makes the fields f filled zero again, pointers found nil nil.
func (f *filled) reset() {
	for _, c := range f.cols {
		for _, fv := range c.undo {
			fv.SetZero()
		}
	}
}

// asID returns v, given for the ID field f in a map or inline, as f's type
// (GORM binds such values as they are: a SCRU128's UUID text as text). It
// returns [ErrZeroID] for 0, "" and, unless f is a Null type, nil.
func asID(f *schema.Field, v any) (any, error) {
	t, rv := indirect(f.FieldType), reflect.ValueOf(v)
	null := t == schemeOf(t).null
	if v == nil || rv.Kind() == reflect.Pointer && rv.IsNil() {
		rv = reflect.Zero(t)
	} else if rv.Type() == t || rv.Type() == reflect.PointerTo(t) {
		rv = reflect.Indirect(rv)
	} else if v != "" {
		if rv.CanInt() {
			v = rv.Int()
		} else if rv.CanUint() {
			v = rv.Uint()
		}
		rv = reflect.New(t)
		if err := rv.Interface().(sql.Scanner).Scan(v); err != nil {
			return nil, fmt.Errorf("gormtype: the value for %s.%s: %w", f.Schema.Name, f.Name, err)
		}
		rv = rv.Elem()
	}
	if v == "" || !null && rv.IsZero() || null && rv.Field(1).Bool() && rv.Field(0).IsZero() {
		return nil, fmt.Errorf("%w: the value %#v for %s.%s; set a gormtype.%s, or for a new row leave it to AutoID",
			ErrZeroID, v, f.Schema.Name, f.Name, schemeOf(t).name)
	}
	return rv.Interface(), nil
}

// checkMaps makes the ID values of maps their fields' types (see [asID]);
// it returns [ErrRefused] for a map Create leaving an auto field unset.
func checkMaps(stmt *gorm.Statement, auto []*schema.Field, create bool) error {
	rv := reflect.Indirect(reflect.ValueOf(stmt.Dest))
	maps := []reflect.Value{rv}
	if rv.Kind() == reflect.Slice {
		maps = maps[:0]
		for i := range rv.Len() {
			maps = append(maps, rv.Index(i))
		}
	}
	for _, m := range maps {
		if m.Kind() != reflect.Map || m.Type().Key().Kind() != reflect.String || m.Type().Elem().Kind() != reflect.Interface {
			continue
		}
		for _, f := range stmt.Schema.Fields {
			key := reflect.ValueOf(f.DBName).Convert(m.Type().Key())
			if v := m.MapIndex(key); !v.IsValid() {
				key = reflect.ValueOf(f.Name).Convert(m.Type().Key())
			}
			v := m.MapIndex(key)
			if create && slices.Contains(auto, f) && (!v.IsValid() || v.IsZero() || v.Elem().IsZero()) {
				return fmt.Errorf("%w: a Create into %s from a map leaves %q unset, and AutoID fills structs only; set it in the map, or create from a struct", ErrRefused, tableName(stmt), f.DBName)
			}
			if !v.IsValid() || schemeOf(f.FieldType) == nil {
				continue
			} else if _, expr := v.Interface().(clause.Expression); expr {
				continue
			}
			id, err := asID(f, v.Interface())
			if err != nil {
				return err
			}
			m.SetMapIndex(key, reflect.ValueOf(&id).Elem())
		}
	}
	return nil
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
