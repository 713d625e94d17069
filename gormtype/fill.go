package gormtype

import (
	"fmt"
	"reflect"
	"slices"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/schema"

	"github.com/sortid/sortid/idtype"
)

// idTypes are the field types AutoID fills, also behind a pointer.
var idTypes = []reflect.Type{
	reflect.TypeFor[HUID](), reflect.TypeFor[NullHUID](),
	reflect.TypeFor[SCRU128](), reflect.TypeFor[NullSCRU128](),
	reflect.TypeFor[SCRU128Bytes](), reflect.TypeFor[NullSCRU128Bytes](),
}

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

// checkPlugin makes a Create fail with [ErrSetup] when it leaves a field
// that [AutoID] would fill zero and the plugin is not registered: the
// database would store the zero key.
func checkPlugin(f *schema.Field) []clause.Interface { return []clause.Interface{pluginCheck{f}} }

type pluginCheck struct{ field *schema.Field }

func (pluginCheck) Name() string               { return "" }
func (pluginCheck) Build(clause.Builder)       {}
func (pluginCheck) MergeClause(*clause.Clause) {}

// ModifyStatement implements gorm.StatementModifier: GORM calls it when it
// adds the clause to a Create.
func (c pluginCheck) ModifyStatement(stmt *gorm.Statement) {
	if _, ok := stmt.DB.Config.Plugins[pluginName]; ok || !isAutoField(c.field) {
		return
	}
	if cols, _, err := collect(stmt, []*schema.Field{c.field}); len(cols) > 0 || err != nil {
		stmt.AddError(fmt.Errorf("%w: %s.%s is zero and no AutoID plugin fills it; register it with db.Use(gormtype.AutoID{}), or set the field", ErrSetup, stmt.Schema.Name, c.field.Name))
	}
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
				return fmt.Errorf("%w: a Create of %s from a map leaves %q unset, and AutoID fills structs only; set it in the map, or create from a struct", ErrRefused, stmt.Schema.Name, f.DBName)
			}
		}
	}
	return nil
}

// filledColumn is a column AutoID fills: pointers to the zero fields of
// the rows, in row order, all of one gormtype ID type.
type filledColumn struct {
	name string
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
					err = fmt.Errorf("%w: a Create of %s passes a row by value, so AutoID cannot fill its %s; pass a pointer (Create(&row))", ErrRefused, stmt.Schema.Name, f.Name)
				}
			} else if p, ok := zeroField(stmt, f, row); ok {
				cols[i].name = f.DBName
				cols[i].ptrs = append(cols[i].ptrs, p)
			}
		}
	})
	return slices.DeleteFunc(cols, func(c filledColumn) bool { return len(c.ptrs) == 0 }), rows, err
}

// countNew counts the rows GORM takes for new records.
func countNew(stmt *gorm.Statement) (n int) {
	eachRow(stmt.ReflectValue, func(row reflect.Value) {
		if isNew(stmt, row) {
			n++
		}
	})
	return n
}

// isNew reports whether GORM takes row for a new record: a primary-key
// field is zero.
func isNew(stmt *gorm.Statement, row reflect.Value) bool {
	return slices.ContainsFunc(stmt.Schema.PrimaryFields, func(f *schema.Field) bool {
		_, zero := f.ValueOf(stmt.Context, row)
		return zero
	})
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

// useRows makes the statement write the rows GORM takes for existing
// records, and returns the new ones as a slice of pointers for a Create of
// their own.
func useRows(stmt *gorm.Statement) any {
	var kept, apart reflect.Value
	eachRow(stmt.ReflectValue, func(row reflect.Value) {
		if !kept.IsValid() {
			kept = reflect.MakeSlice(reflect.SliceOf(row.Addr().Type()), 0, 1)
			apart = reflect.MakeSlice(kept.Type(), 0, 1)
		}
		if isNew(stmt, row) {
			apart = reflect.Append(apart, row.Addr())
		} else {
			kept = reflect.Append(kept, row.Addr())
		}
	})
	stmt.ReflectValue = kept
	return apart.Interface()
}

// resetFields makes filled fields zero again, so that the next attempt
// fills them anew.
func resetFields(filled ...[]filledColumn) {
	for _, cols := range filled {
		for _, c := range cols {
			for _, p := range c.ptrs {
				reflect.ValueOf(p).Elem().SetZero()
			}
		}
	}
}

// draw gives the columns' fields fresh IDs. A column's HUIDs ascend with
// its rows (see [idtype.HUIDGenerator.Fill]): a batch appends at the right
// edge of the primary-key index, in the order of the caller's slice.
func (p *plugin) draw(cols []filledColumn) error {
	for _, c := range cols {
		if err := p.drawColumn(c); err != nil {
			return fmt.Errorf("column %s: %w", c.name, err)
		}
	}
	return nil
}

func (p *plugin) drawColumn(c filledColumn) error {
	if _, isHUID := c.ptrs[0].(interface{ huidField() }); !isHUID {
		generate := p.GenerateSCRU128
		if generate == nil {
			generate = idtype.GenerateSCRU128
		}
		for _, ptr := range c.ptrs {
			id, err := generate()
			if err != nil {
				return err
			}
			ptr.(idSetter).setID(0, id)
		}
		return nil
	}
	huids := make([]idtype.HUID, len(c.ptrs))
	if p.GenerateHUID == nil {
		if err := idtype.FillHUIDs(huids); err != nil {
			return err
		}
	} else {
		for i := range huids {
			var err error
			if huids[i], err = p.GenerateHUID(); err != nil {
				return err
			}
		}
		slices.Sort(huids)
	}
	for i, ptr := range c.ptrs {
		ptr.(idSetter).setID(huids[i], idtype.SCRU128{})
	}
	return nil
}

// idSetter is implemented by pointers to gormtype's ID types: setID stores
// the HUID or the SCRU128, whichever the type holds, as a set value.
type idSetter interface {
	setID(idtype.HUID, idtype.SCRU128)
}

func (h *HUID) setID(v idtype.HUID, _ idtype.SCRU128)         { *h = HUID(v) }
func (n *NullHUID) setID(v idtype.HUID, _ idtype.SCRU128)     { *n = NullHUID{HUID(v), true} }
func (id *SCRU128) setID(_ idtype.HUID, v idtype.SCRU128)     { *id = SCRU128(v) }
func (n *NullSCRU128) setID(_ idtype.HUID, v idtype.SCRU128)  { *n = NullSCRU128{SCRU128(v), true} }
func (b *SCRU128Bytes) setID(_ idtype.HUID, v idtype.SCRU128) { *b = SCRU128Bytes(v) }
func (n *NullSCRU128Bytes) setID(_ idtype.HUID, v idtype.SCRU128) {
	*n = NullSCRU128Bytes{SCRU128Bytes(v), true}
}
func (*HUID) huidField()     {}
func (*NullHUID) huidField() {}
