package gormtype

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"gorm.io/gorm"
	"gorm.io/gorm/schema"

	"github.com/sortid/sortid/idtype"
)

// TagAuto is the struct tag that marks a non-key field for auto-fill:
// sortid:"auto". The tag sortid:"-" keeps a primary key from being filled.
const TagAuto = "sortid"

// notNullTypes are the ID types that never store NULL, nor their zero value.
var notNullTypes = []reflect.Type{reflect.TypeFor[HUID](), reflect.TypeFor[SCRU128](), reflect.TypeFor[SCRU128Bytes]()}

// idTypes are the field types AutoID fills, also behind a pointer.
var idTypes = append(slices.Clone(notNullTypes),
	reflect.TypeFor[NullHUID](), reflect.TypeFor[NullSCRU128](), reflect.TypeFor[NullSCRU128Bytes]())

// coreTypes are idtype's ID types, which GORM cannot store as IDs: it
// makes an idtype.HUID key auto-increment and an idtype.SCRU128 text.
var coreTypes = map[reflect.Type]string{
	reflect.TypeFor[idtype.HUID](): "HUID", reflect.TypeFor[idtype.NullHUID](): "NullHUID",
	reflect.TypeFor[idtype.SCRU128](): "SCRU128", reflect.TypeFor[idtype.NullSCRU128](): "NullSCRU128",
	reflect.TypeFor[idtype.SCRU128Bytes](): "SCRU128Bytes", reflect.TypeFor[idtype.NullSCRU128Bytes](): "NullSCRU128Bytes",
}

func indirect(t reflect.Type) reflect.Type {
	if t.Kind() == reflect.Pointer {
		return t.Elem()
	}
	return t
}

// isIDType reports whether t is a gormtype ID type or a pointer to one.
func isIDType(t reflect.Type) bool { return slices.Contains(idTypes, indirect(t)) }

// isAutoField reports whether AutoID fills f when it is zero.
func isAutoField(f *schema.Field) bool {
	if !isIDType(f.FieldType) || !f.Creatable || f.DBName == "" {
		return false
	}
	if f.HasDefaultValue && f.DefaultValueInterface == nil {
		return false // the database makes it
	}
	switch f.Tag.Get(TagAuto) {
	case "auto":
		return true
	case "-":
		return false
	}
	return f.PrimaryKey
}

// autoFields returns the fields of s that AutoID fills. It returns
// [ErrSetup] (wrapped, naming the field and the fix) for a field of an
// idtype type and for sortid:"auto" on a field of another type.
func autoFields(s *schema.Schema) ([]*schema.Field, error) {
	var fields []*schema.Field
	for _, f := range s.Fields {
		if name, ok := coreTypes[indirect(f.FieldType)]; ok {
			return nil, fmt.Errorf("%w: %s.%s is an idtype.%s, which GORM does not store as an ID; use gormtype.%s in models", ErrSetup, s.Name, f.Name, name, name)
		}
		if f.Tag.Get(TagAuto) == "auto" && !isIDType(f.FieldType) {
			return nil, fmt.Errorf("%w: %s.%s is tagged sortid:\"auto\" but is a %s; AutoID fills gormtype's ID types only", ErrSetup, s.Name, f.Name, f.FieldType)
		}
		if isAutoField(f) {
			fields = append(fields, f)
		}
	}
	return fields, nil
}

// checkMapRows returns [ErrRefused] when a Create from maps leaves an auto
// field unset: AutoID fills structs only.
func checkMapRows(stmt *gorm.Statement, fields []*schema.Field) error {
	rv := reflect.Indirect(stmt.ReflectValue)
	var maps []reflect.Value
	switch {
	case rv.Kind() == reflect.Map:
		maps = []reflect.Value{rv}
	case (rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array) && rv.Type().Elem().Kind() == reflect.Map:
		for i := range rv.Len() {
			maps = append(maps, rv.Index(i))
		}
	}
	for _, m := range maps {
		for _, f := range fields {
			v := m.MapIndex(reflect.ValueOf(f.DBName))
			if !v.IsValid() {
				v = m.MapIndex(reflect.ValueOf(f.Name))
			}
			if !v.IsValid() || v.IsZero() || (v.Kind() == reflect.Interface && v.Elem().IsZero()) {
				return fmt.Errorf("%w: a Create into %s from a map leaves %q unset, and AutoID fills structs only; set it in the map, or create from a struct", ErrRefused, tableName(stmt), f.DBName)
			}
		}
	}
	return nil
}

// checkSave returns [ErrZeroID] for an Update that writes a zero ID field
// of its row: Save and Select("*") write every field, and would store the
// zero ID over the stored one.
func checkSave(stmt *gorm.Statement) error {
	if len(stmt.Selects) == 0 {
		return nil // Updates skips zero fields
	}
	selected, _ := stmt.SelectAndOmitColumns(false, true)
	var err error
	eachRow(stmt.ReflectValue, func(row reflect.Value) {
		for _, f := range stmt.Schema.Fields {
			if !selected[f.DBName] || f.PrimaryKey || !slices.Contains(notNullTypes, f.FieldType) || err != nil {
				continue
			}
			if _, zero := f.ValueOf(stmt.Context, row); zero {
				err = fmt.Errorf("%w: db.Save of %s would write its zero %s over the stored one (Save and Select(\"*\") write every field); load the row first (db.First), or update the changed columns only (db.Model(&row).Updates); for a new row use db.Create, which fills it",
					ErrZeroID, stmt.Schema.Name, f.Name)
			}
		}
	})
	return err
}

// filledColumn is a column AutoID fills: pointers to the zero fields of
// the rows, in row order, all of one gormtype ID type.
type filledColumn struct {
	name string
	huid bool
	ptrs []any
}

// collect finds the zero auto fields of the statement's rows: the columns
// to fill and how many rows the statement writes. It returns [ErrRefused]
// for a row passed by value, whose zero fields it cannot fill.
func collect(stmt *gorm.Statement, fields []*schema.Field) (cols []filledColumn, rows int, err error) {
	cols = make([]filledColumn, len(fields))
	eachRow(stmt.ReflectValue, func(row reflect.Value) {
		rows++
		for i, f := range fields {
			if !row.CanAddr() {
				if _, zero := f.ValueOf(stmt.Context, row); zero {
					err = fmt.Errorf("%w: a Create into %s passes a row by value, so AutoID cannot fill its %s.%s; pass a pointer (Create(&row))", ErrRefused, tableName(stmt), stmt.Schema.Name, f.Name)
				}
			} else if p, ok := zeroField(stmt, f, row); ok {
				t := indirect(f.FieldType)
				cols[i].name, cols[i].huid = f.DBName, t == reflect.TypeFor[HUID]() || t == reflect.TypeFor[NullHUID]()
				cols[i].ptrs = append(cols[i].ptrs, p)
			}
		}
	})
	return slices.DeleteFunc(cols, func(c filledColumn) bool { return len(c.ptrs) == 0 }), rows, err
}

// zeroField returns a pointer to f's ID value in row when it is zero,
// allocating the ID of a nil pointer field.
func zeroField(stmt *gorm.Statement, f *schema.Field, row reflect.Value) (any, bool) {
	fv := f.ReflectValueOf(stmt.Context, row)
	if !fv.CanSet() {
		return nil, false
	}
	if fv.Kind() == reflect.Pointer {
		if fv.IsNil() {
			fv.Set(reflect.New(fv.Type().Elem()))
		}
		fv = fv.Elem()
	}
	if !fv.IsZero() {
		return nil, false
	}
	return fv.Addr().Interface(), true
}

// eachRow calls fn with every struct the statement writes.
func eachRow(rv reflect.Value, fn func(reflect.Value)) {
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		for i := range rv.Len() {
			if row := reflect.Indirect(rv.Index(i)); row.Kind() == reflect.Struct {
				fn(row)
			}
		}
	case reflect.Struct:
		fn(rv)
	}
}

// resetFields makes filled fields zero again, as before the Create.
func resetFields(cols []filledColumn) {
	for _, c := range cols {
		for _, p := range c.ptrs {
			reflect.ValueOf(p).Elem().SetZero()
		}
	}
}

// idSetter is implemented by pointers to gormtype's ID types: setID stores
// the HUID or the SCRU128, whichever the type holds, as a set value.
type idSetter interface {
	setID(idtype.HUID, idtype.SCRU128)
}

func (h *HUID) setID(v idtype.HUID, _ idtype.SCRU128)         { *h = HUID(v) }
func (id *SCRU128) setID(_ idtype.HUID, v idtype.SCRU128)     { *id = SCRU128(v) }
func (b *SCRU128Bytes) setID(_ idtype.HUID, v idtype.SCRU128) { *b = SCRU128Bytes(v) }
func (n *Null[T]) setID(h idtype.HUID, s idtype.SCRU128) {
	any(&n.V).(idSetter).setID(h, s)
	n.Valid = true
}

// tableOf returns the schema (MySQL: database; "" for the connection's
// own) and the name of the statement's table. GORM keeps a qualifier only
// in TableExpr.
func tableOf(stmt *gorm.Statement) (schemaName, table string) {
	name := stmt.Table
	if e := stmt.TableExpr; e != nil && len(e.Vars) == 0 && e.SQL != "" {
		name = strings.NewReplacer("`", "", `"`, "").Replace(strings.Fields(e.SQL)[0]) // "t AS a"
	}
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[:i], name[i+1:]
	}
	return "", name
}

// tableName is the statement's table for messages, schema included.
func tableName(stmt *gorm.Statement) string {
	schemaName, table := tableOf(stmt)
	return strings.TrimPrefix(schemaName+"."+table, ".")
}
