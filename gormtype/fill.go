package gormtype

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"gorm.io/gorm"
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

// filled is what AutoID filled in one Create: per column, the unset
// fields in row order, what to zero to unset them again, and the IDs.
type filled struct {
	table     string
	rows      int
	cols      []filledColumn
	returning bool  // an upsert's RETURNING replaces the IDs drawn
	inserted  bool  // its INSERT succeeded
	raw       error // its INSERT's error, untranslated
}

type filledColumn struct {
	name        string
	scheme      *scheme
	fields, ids []reflect.Value
	was         []reflect.Value // pointers and Nulls: the values before
	drawn       any             // the IDs drawn for ids, in a slice
}

// holds reports whether the j-th field still holds the ID drawn for it:
// a hook may have put another there.
func (c *filledColumn) holds(j int) bool {
	if c.drawn == nil { // the draw failed: unset what it readied
		return true
	}
	id, drawn := idIn(c.fields[j]), reflect.ValueOf(c.drawn).Index(j)
	return id.IsValid() && id.Equal(drawn.Convert(id.Type()))
}

// readBack takes the IDs an upsert read back for the drawn ones, which a
// rollback undoes as well: the row it updated may be this unit's.
func (f *filled) readBack() {
	for _, c := range f.cols {
		drawn := reflect.ValueOf(c.drawn)
		for j, fv := range c.fields {
			if id := idIn(fv); id.IsValid() {
				drawn.Index(j).Set(id.Convert(drawn.Type().Elem()))
			}
		}
	}
}

// idIn returns the ID in an ID field, or an invalid Value for a nil pointer.
func idIn(fv reflect.Value) reflect.Value {
	id := reflect.Indirect(fv)
	if id.Kind() == reflect.Struct { // Null[T]{V, Valid}
		id = id.Field(0)
	}
	return id
}

// collect finds the unset auto fields of the statement's rows. It returns
// [ErrRefused] for a row passed by value, whose fields it cannot fill.
func collect(stmt *gorm.Statement, fields []*schema.Field) (*filled, error) {
	f := &filled{table: tableName(stmt), cols: make([]filledColumn, len(fields))}
	rows := 1
	if k := stmt.ReflectValue.Kind(); k == reflect.Slice || k == reflect.Array {
		rows = stmt.ReflectValue.Len()
	}
	for i, field := range fields {
		f.cols[i] = filledColumn{name: field.DBName, scheme: schemeOf(field.FieldType), fields: make([]reflect.Value, 0, rows)}
	}
	var err error
	eachRow(stmt.ReflectValue, func(row reflect.Value) {
		f.rows++
		for i, field := range fields {
			if fv := field.ReflectValueOf(stmt.Context, row); !isZeroID(fv) {
				continue
			} else if !row.CanAddr() {
				err = fmt.Errorf("%w: a Create into %s passes a row by value, so AutoID cannot fill its %s.%s; pass a pointer (Create(&row))", ErrRefused, f.table, stmt.Schema.Name, field.Name)
			} else {
				f.cols[i].fields = append(f.cols[i].fields, fv)
			}
		}
	})
	f.cols = slices.DeleteFunc(f.cols, func(c filledColumn) bool { return len(c.fields) == 0 })
	return f, err
}

// intact reports whether every field of c holds the ID drawn for it.
func (c *filledColumn) intact() bool {
	for j := range c.fields {
		if !c.holds(j) {
			return false
		}
	}
	return true
}

// reset unsets the fields f readied for IDs that still hold them.
func (f *filled) reset() {
	for _, c := range f.cols {
		for j := range c.ids {
			if !c.holds(j) {
				continue
			} else if c.was != nil {
				c.fields[j].Set(c.was[j])
			} else {
				c.fields[j].SetZero()
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
