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
	table    string
	rows     int
	cols     []filledColumn
	inserted bool  // its INSERT succeeded
	raw      error // its INSERT's error, untranslated
}

type filledColumn struct {
	name              string
	scheme            *scheme
	fields, undo, ids []reflect.Value
}

// collect finds the unset auto fields of the statement's rows. It returns
// [ErrRefused] for a row passed by value, whose fields it cannot fill.
func collect(stmt *gorm.Statement, fields []*schema.Field) (*filled, error) {
	f := &filled{table: tableName(stmt), cols: make([]filledColumn, len(fields))}
	for i, field := range fields {
		f.cols[i] = filledColumn{name: field.DBName, scheme: schemeOf(field.FieldType)}
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

// reset unsets the fields f filled.
func (f *filled) reset() {
	for _, c := range f.cols {
		for _, fv := range c.undo {
			fv.SetZero()
		}
	}
}

// unit is what AutoID filled, and where rows were written, in work that
// one rollback undoes: a Transaction attempt, or a Create in the
// transaction GORM opened for it. It is safe for concurrent use.
type unit struct {
	mu      sync.Mutex
	list    []*filled
	written []string // the tables of the Creates that wrote rows
	kept    bool     // rows stay stored on a rollback: fields keep their IDs
	parent  *unit    // an enclosing unit, which gets everything too
}

// record adds a fill, a table written to or kept rows to u and its parents.
func (u *unit) record(f *filled, table string, kept bool) {
	for ; u != nil; u = u.parent {
		u.mu.Lock()
		if f != nil {
			u.list = append(u.list, f)
		}
		if table != "" {
			u.written = append(u.written, table)
		}
		u.kept = u.kept || kept
		u.mu.Unlock()
	}
}

// reset unsets every field filled in the unit, unless its rows stay.
func (u *unit) reset() {
	if u == nil {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, f := range u.list {
		if !u.kept {
			f.reset()
		}
	}
}

// tables returns the tables written to in the outermost unit.
func (u *unit) tables() []string {
	for u != nil && u.parent != nil {
		u = u.parent
	}
	if u == nil {
		return nil
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	return slices.Clone(u.written)
}

// units maps a transaction's connection to its unit: hooks and the
// Creates saving associations write on it too.
var units sync.Map

func connKey(pool gorm.ConnPool) gorm.ConnPool {
	if p, ok := pool.(*gorm.PreparedStmtTX); ok {
		return p.Tx
	}
	return pool
}

func unitOf(pool gorm.ConnPool) *unit {
	u, _ := units.Load(connKey(pool))
	v, _ := u.(*unit)
	return v
}

// enter starts a unit for the transaction on pool, inside the one there
// was (a savepoint's); leave restores that.
func enter(pool gorm.ConnPool) (u *unit, leave func()) {
	key, u := connKey(pool), &unit{}
	if prev, had := units.Swap(key, u); had {
		u.parent = prev.(*unit)
		return u, func() { units.Store(key, prev) }
	}
	return u, func() { units.Delete(key) }
}

// link is a statement's, handed on with GORM's settings to the Creates
// that save its associations, which see that it still runs (open).
type link struct {
	own   *filled // what AutoID filled in the statement
	unit  *unit   // where its fills and writes are recorded, if any
	leave func()  // ends the unit of the transaction GORM opened for it
	open  bool
}

const linkKey = "sortid:link"

func linkOf(db *gorm.DB) *link {
	v, _ := db.Get(linkKey)
	l, _ := v.(*link)
	return l
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
