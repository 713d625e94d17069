package gormtype

import (
	"fmt"
	"reflect"
	"slices"
	"sync"

	"gorm.io/gorm"
	"gorm.io/gorm/schema"

	"github.com/sortid/sortid/idtype"
)

// DefaultRetries is how often [AutoID] retries an insert whose fresh keys
// collided, when AutoID.Retries is zero.
const DefaultRetries = 3

// TagAuto is the struct tag that marks a non-key field for auto-fill:
// sortid:"auto". The tag sortid:"-" keeps a primary key from being filled.
const TagAuto = "sortid"

const (
	callbackNoteTx = "sortid:note_transaction"
	callbackFill   = "sortid:fill_ids"
)

// AutoID is the GORM plugin that fills IDs: db.Use(gormtype.AutoID{}).
//
// Every Create, CreateInBatches, Save or FirstOrCreate of a new row, and
// every record GORM creates with its parent (associations), gets a fresh ID
// in each field of a gormtype ID type (or a pointer to one) that is zero and
// is a primary key or is tagged sortid:"auto". A field the caller set, a
// field tagged sortid:"-" and a field with a database default
// (gorm:"default:huid_generate()") are left alone. The HUIDs one statement
// fills into a column ascend with the rows, in the order of the caller's
// slice, so a batch appends at the right edge of the primary-key index.
//
// A fresh value never touches another row:
//
//   - When a row's fresh value is already taken in a unique key (another
//     process drew the same HUID for the primary key, or for a unique
//     sortid:"auto" column), the row is inserted again with new values, up
//     to Retries times, and the BeforeSave and BeforeCreate hooks run again
//     for it, so values they derive from the key match the stored key.
//   - An upsert clause, ON CONFLICT (on MySQL, ON DUPLICATE KEY UPDATE) or
//     an INSERT modifier such as IGNORE or OR REPLACE, never applies to a
//     row because of a fresh value: rows with fresh values are inserted
//     without it, and the clause applies to such a row only when a unique
//     key without fresh values (email, say) conflicts. Rows whose IDs the
//     caller set keep the clause as written.
//   - After an upsert on PostgreSQL or SQLite that updated an existing
//     row, the struct holds that row's key; MySQL cannot return it, so
//     there the struct keeps the fresh key that was not stored. A row that
//     DO NOTHING or IGNORE skipped keeps its fresh key on every dialect.
//   - A unique violation on a key without fresh values is not retried: the
//     caller gets the database's error (translated when
//     gorm.Config.TranslateError is set).
//
// AutoID reads which key a violation hit from the errors of pgx (which
// gorm.io/driver/postgres uses), go-sql-driver/mysql and SQLite; a
// violation it cannot read is returned without a retry. Rows written
// earlier in the same transaction are kept through a retry. One case ends
// in an error instead: in the transaction GORM opens for a single-row
// Create on PostgreSQL under REPEATABLE READ or SERIALIZABLE, when the row
// that took the key was committed after that transaction's first statement
// (a belongs-to record's insert or a hook's query came before the row's),
// the Create fails with a serialization error (SQLSTATE 40001), which such
// transactions retry anyway. When every key drawn for such a row is taken,
// the error is [ErrKeyTaken].
//
// AutoID fills structs: a Create from a map that leaves a field it would
// fill unset fails with [ErrMapRow]. GORM inserts many2many join rows with
// ON CONFLICT DO NOTHING; they hold no fresh values of their own, and the
// associated records they join are inserted as above before them.
type AutoID struct {
	// Retries bounds the retries after a collision: 0 means
	// DefaultRetries, a negative value disables retrying.
	Retries int
	// GenerateHUID makes HUIDs; nil means idtype.FillHUIDs. A statement's
	// HUIDs ascend with its rows either way.
	GenerateHUID func() (idtype.HUID, error)
	// GenerateSCRU128 makes SCRU128s; nil means idtype.GenerateSCRU128.
	GenerateSCRU128 func() (idtype.SCRU128, error)
}

// Name implements gorm.Plugin.
func (AutoID) Name() string { return "sortid:autoid" }

// Initialize implements gorm.Plugin: it notes whether a Create runs in a
// transaction of the caller's, fills IDs before gorm:before_create, and
// wraps gorm:create with the insert that keeps fresh keys apart.
//
// It returns [ErrNoCreateCallback] (wrapped) when db has no gorm:create.
func (a AutoID) Initialize(db *gorm.DB) error {
	create := db.Callback().Create()
	insert := create.Get("gorm:create")
	if insert == nil {
		return fmt.Errorf("%w: AutoID wraps it to keep fresh keys apart", ErrNoCreateCallback)
	}
	if err := create.Before("gorm:begin_transaction").Register(callbackNoteTx, noteTransaction); err != nil {
		return fmt.Errorf("gormtype: register %s: %w", callbackNoteTx, err)
	}
	if err := create.Before("gorm:before_create").Register(callbackFill, a.fill); err != nil {
		return fmt.Errorf("gormtype: register %s: %w", callbackFill, err)
	}
	if err := create.Replace("gorm:create", a.insert(insert)); err != nil {
		return fmt.Errorf("gormtype: wrap gorm:create: %w", err)
	}
	return nil
}

// retries is how often a collision is retried; negative means never.
func (a AutoID) retries() int {
	if a.Retries == 0 {
		return DefaultRetries
	}
	return a.Retries
}

// stateKey keys a statement's fill state in its Settings. GORM copies a
// statement's Settings into the statements of the associations it saves;
// keying by the statement keeps a parent's state from reaching them.
type stateKey struct{ stmt *gorm.Statement }

// fillState is what AutoID knows of one Create statement.
type fillState struct {
	callerTx bool           // the statement ran in a transaction before gorm:begin_transaction
	columns  []filledColumn // fresh values by column
	groups   []rowGroup
}

// rowGroup is the rows of a statement in which AutoID filled the same
// columns (none, for rows whose IDs the caller set).
type rowGroup struct {
	filled []string
	rows   []reflect.Value
}

func loadState(stmt *gorm.Statement) *fillState {
	v, ok := stmt.Settings.Load(stateKey{stmt})
	if !ok {
		return nil
	}
	return v.(*fillState)
}

// noteTransaction records, before gorm:begin_transaction, whether the
// statement already runs in a transaction.
func noteTransaction(db *gorm.DB) {
	_, inTx := db.Statement.ConnPool.(gorm.TxCommitter)
	db.Statement.Settings.Store(stateKey{db.Statement}, &fillState{callerTx: inTx})
}

// filledColumn is a column AutoID fills: pointers to the zero fields of the
// rows, in row order, all of one gormtype ID type.
type filledColumn struct {
	name string
	rows []uintptr // the address of each field's row
	ptrs []any
}

// fill sets the zero auto fields of the statement's rows.
func (a AutoID) fill(db *gorm.DB) {
	stmt := db.Statement
	if db.Error != nil || stmt.Schema == nil {
		return
	}
	fields := autoFields(stmt.Schema)
	if len(fields) == 0 {
		return
	}
	if err := checkMapRows(stmt, fields); err != nil {
		db.AddError(err)
		return
	}
	st := loadState(stmt)
	if st == nil { // gorm:begin_transaction is gone: assume the caller's
		st = &fillState{callerTx: true}
		stmt.Settings.Store(stateKey{stmt}, st)
	}
	columns := make([]filledColumn, len(fields))
	groupOf := map[string]int{} // by the set of filled fields, one byte each
	set := make([]byte, len(fields))
	eachRow(stmt.ReflectValue, func(row reflect.Value) {
		clear(set)
		for i, f := range fields {
			p, ok := zeroField(stmt, f, row)
			if !ok {
				continue
			}
			columns[i].name = f.DBName
			columns[i].rows = append(columns[i].rows, row.Addr().Pointer())
			columns[i].ptrs = append(columns[i].ptrs, p)
			set[i] = 1
		}
		g, ok := groupOf[string(set)]
		if !ok {
			g = len(st.groups)
			groupOf[string(set)] = g
			st.groups = append(st.groups, rowGroup{filled: filledNames(fields, set)})
		}
		st.groups[g].rows = append(st.groups[g].rows, row)
	})
	st.columns = slices.DeleteFunc(columns, func(c filledColumn) bool { return len(c.ptrs) == 0 })
	if err := a.draw(st.columns, nil); err != nil {
		db.AddError(fmt.Errorf("%w for %s: %w", ErrGenerate, stmt.Schema.Name, err))
	}
}

// filledNames returns the columns of the fields in set.
func filledNames(fields []*schema.Field, set []byte) []string {
	var names []string
	for i, f := range fields {
		if set[i] != 0 {
			names = append(names, f.DBName)
		}
	}
	return names
}

// filledAny reports whether AutoID filled a field of the statement.
func (st *fillState) filledAny() bool { return len(st.columns) > 0 }

// checkMapRows returns [ErrMapRow] when a Create from maps leaves an auto
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
				return fmt.Errorf("%w: set %q of %s in the map, or create from a struct", ErrMapRow, f.DBName, stmt.Schema.Name)
			}
		}
	}
	return nil
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

// eachRow calls fn with every addressable struct the statement writes.
func eachRow(rv reflect.Value, fn func(reflect.Value)) {
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		for i := range rv.Len() {
			if row := reflect.Indirect(rv.Index(i)); row.Kind() == reflect.Struct && row.CanAddr() {
				fn(row)
			}
		}
	case reflect.Struct:
		if rv.CanAddr() {
			fn(rv)
		}
	}
}

// draw gives fresh IDs to the fields of the columns whose rows are in only
// (every row when only is nil).
func (a AutoID) draw(columns []filledColumn, only map[uintptr]bool) error {
	for _, c := range columns {
		ptrs := c.ptrs
		if only != nil {
			ptrs = nil
			for i, r := range c.rows {
				if only[r] {
					ptrs = append(ptrs, c.ptrs[i])
				}
			}
		}
		if len(ptrs) == 0 {
			continue
		}
		if err := a.drawColumn(ptrs); err != nil {
			return fmt.Errorf("column %s: %w", c.name, err)
		}
	}
	return nil
}

// drawColumn gives the fields fresh IDs. A column's HUIDs ascend with its
// rows (see [idtype.HUIDGenerator.Fill]): the keys of a batch append at the
// right edge of the primary-key index and follow the caller's slice.
// SCRU128s of one generator ascend anyway.
func (a AutoID) drawColumn(ptrs []any) error {
	switch ptrs[0].(type) {
	case *HUID, *NullHUID:
		huids := make([]idtype.HUID, len(ptrs))
		if err := a.huids(huids); err != nil {
			return err
		}
		for i, p := range ptrs {
			setHUID(p, huids[i])
		}
		return nil
	}
	for _, p := range ptrs {
		id, err := a.scru128()
		if err != nil {
			return err
		}
		setSCRU128(p, id)
	}
	return nil
}

// huids fills dst with fresh HUIDs in ascending order.
func (a AutoID) huids(dst []idtype.HUID) error {
	if a.GenerateHUID == nil {
		return idtype.FillHUIDs(dst)
	}
	for i := range dst {
		h, err := a.GenerateHUID()
		if err != nil {
			return err
		}
		dst[i] = h
	}
	slices.Sort(dst)
	return nil
}

func (a AutoID) scru128() (idtype.SCRU128, error) {
	if a.GenerateSCRU128 != nil {
		return a.GenerateSCRU128()
	}
	return idtype.GenerateSCRU128()
}

func setHUID(p any, h idtype.HUID) {
	switch p := p.(type) {
	case *HUID:
		*p = HUID(h)
	case *NullHUID:
		*p = NullHUID{HUID(h), true}
	}
}

func setSCRU128(p any, id idtype.SCRU128) {
	switch p := p.(type) {
	case *SCRU128:
		*p = SCRU128(id)
	case *NullSCRU128:
		*p = NullSCRU128{SCRU128(id), true}
	case *SCRU128Bytes:
		*p = SCRU128Bytes(id)
	case *NullSCRU128Bytes:
		*p = NullSCRU128Bytes{SCRU128Bytes(id), true}
	}
}

// idTypes are the field types AutoID fills, also behind a pointer.
var idTypes = []reflect.Type{
	reflect.TypeFor[HUID](), reflect.TypeFor[NullHUID](),
	reflect.TypeFor[SCRU128](), reflect.TypeFor[NullSCRU128](),
	reflect.TypeFor[SCRU128Bytes](), reflect.TypeFor[NullSCRU128Bytes](),
}

// isIDType reports whether t is a gormtype ID type or a pointer to one.
func isIDType(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return slices.Contains(idTypes, t)
}

// fieldCache maps a *schema.Schema to its []*schema.Field to fill.
var fieldCache sync.Map

// autoFields returns the fields of s that AutoID fills.
func autoFields(s *schema.Schema) []*schema.Field {
	if v, ok := fieldCache.Load(s); ok {
		return v.([]*schema.Field)
	}
	var fields []*schema.Field
	for _, f := range s.Fields {
		if isAutoField(f) {
			fields = append(fields, f)
		}
	}
	fieldCache.Store(s, fields)
	return fields
}

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
