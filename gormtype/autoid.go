package gormtype

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/schema"

	"github.com/sortid/sortid/idtype"
)

// DefaultRetries is how often [AutoID] retries an insert whose auto-filled
// IDs collided, when AutoID.Retries is zero.
const DefaultRetries = 3

// TagAuto is the struct tag that marks a non-key field for auto-fill:
// sortid:"auto". The tag sortid:"-" keeps a primary key from being filled.
const TagAuto = "sortid"

const (
	callbackFill  = "sortid:fill_ids"
	settingFilled = "sortid:filled_ids"
	savepointName = "sortid_autoid"
)

// AutoID is the GORM plugin that fills IDs: db.Use(gormtype.AutoID{}).
//
// Before the BeforeCreate hooks of every Create, CreateInBatches batch, Save
// of a new row and nested create of associated records, it sets every field
// of a gormtype ID type that is zero and is a primary key (or is tagged
// sortid:"auto") to a fresh ID. A non-zero field, a field tagged sortid:"-"
// and a field with a database default (gorm:"default:huid_generate()") are
// left alone. When every row's primary key was filled, an ON CONFLICT on
// the primary key (GORM adds one when it saves associations) is dropped: a
// fresh key can only conflict by collision, which must not update or skip
// another row.
//
// When the insert fails with a unique violation (the dialect's
// gorm.ErrDuplicatedKey) and a row with one of the filled IDs exists, the
// IDs are drawn again and the insert is retried, up to Retries times. On
// PostgreSQL inside a transaction (GORM's default for Create) each attempt
// runs under a SAVEPOINT, since a failed statement aborts the transaction.
// A conflict that an ON CONFLICT DO NOTHING without a target swallows
// (GORM's default for many2many records) cannot be seen and is not retried.
type AutoID struct {
	// Retries bounds the retries after a collision: 0 means
	// DefaultRetries, a negative value disables retrying (and savepoints).
	Retries int
	// NewHUID makes HUIDs; nil means idtype.GenerateHUID.
	NewHUID func() (idtype.HUID, error)
	// NewSCRU128 makes SCRU128s; nil means idtype.GenerateSCRU128.
	NewSCRU128 func() (idtype.SCRU128, error)
}

// Name implements gorm.Plugin.
func (AutoID) Name() string { return "sortid:autoid" }

// Initialize implements gorm.Plugin: it registers the fill callback before
// gorm:before_create and wraps gorm:create with the retry.
func (a AutoID) Initialize(db *gorm.DB) error {
	create := db.Callback().Create()
	insert := create.Get("gorm:create")
	if insert == nil {
		return fmt.Errorf("%w: AutoID wraps it to retry collisions", ErrNoCreateCallback)
	}
	if err := create.Before("gorm:before_create").Register(callbackFill, a.fill); err != nil {
		return fmt.Errorf("gormtype: register %s: %w", callbackFill, err)
	}
	if err := create.Replace("gorm:create", a.insert(insert)); err != nil {
		return fmt.Errorf("gormtype: wrap gorm:create: %w", err)
	}
	return nil
}

// filledID is a field AutoID set: a pointer to it and its column.
type filledID struct {
	ptr    any
	column string
}

// value returns the field's current value.
func (f filledID) value() any { return reflect.ValueOf(f.ptr).Elem().Interface() }

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
	var filled []filledID
	rows, keysFilled := 0, 0
	fillRow := func(row reflect.Value) error {
		rows++
		for _, f := range fields {
			fv := f.ReflectValueOf(stmt.Context, row)
			if !fv.IsZero() || !fv.CanAddr() {
				continue
			}
			p := fv.Addr().Interface()
			if err := a.set(p); err != nil {
				return fmt.Errorf("%w for %s.%s: %w", ErrGenerate, stmt.Schema.Name, f.Name, err)
			}
			filled = append(filled, filledID{ptr: p, column: f.DBName})
			if f.PrimaryKey {
				keysFilled++
			}
		}
		return nil
	}
	if err := eachRow(stmt.ReflectValue, fillRow); err != nil {
		db.AddError(err)
		return
	}
	if len(filled) == 0 {
		return
	}
	stmt.Settings.Store(settingFilled, filled)
	if keysFilled == rows*len(stmt.Schema.PrimaryFields) {
		dropKeyUpsert(stmt)
	}
}

// eachRow calls fn with every struct the statement writes.
func eachRow(rv reflect.Value, fn func(reflect.Value) error) error {
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		for i := range rv.Len() {
			row := reflect.Indirect(rv.Index(i))
			if row.Kind() != reflect.Struct {
				continue
			}
			if err := fn(row); err != nil {
				return err
			}
		}
	case reflect.Struct:
		return fn(rv)
	}
	return nil
}

// set stores a fresh ID in the field p points to.
func (a AutoID) set(p any) error {
	switch p := p.(type) {
	case *HUID:
		h, err := a.huid()
		*p = HUID(h)
		return err
	case *NullHUID:
		h, err := a.huid()
		*p = NullHUID{HUID(h), err == nil}
		return err
	case *SCRU128:
		id, err := a.scru128()
		*p = SCRU128(id)
		return err
	case *NullSCRU128:
		id, err := a.scru128()
		*p = NullSCRU128{SCRU128(id), err == nil}
		return err
	case *SCRU128Bytes:
		id, err := a.scru128()
		*p = SCRU128Bytes(id)
		return err
	case *NullSCRU128Bytes:
		id, err := a.scru128()
		*p = NullSCRU128Bytes{SCRU128Bytes(id), err == nil}
		return err
	}
	return fmt.Errorf("%T is not a gormtype ID", p)
}

func (a AutoID) huid() (idtype.HUID, error) {
	if a.NewHUID != nil {
		return a.NewHUID()
	}
	return idtype.GenerateHUID()
}

func (a AutoID) scru128() (idtype.SCRU128, error) {
	if a.NewSCRU128 != nil {
		return a.NewSCRU128()
	}
	return idtype.GenerateSCRU128()
}

// idTypes are the field types AutoID fills.
var idTypes = []reflect.Type{
	reflect.TypeFor[HUID](), reflect.TypeFor[NullHUID](),
	reflect.TypeFor[SCRU128](), reflect.TypeFor[NullSCRU128](),
	reflect.TypeFor[SCRU128Bytes](), reflect.TypeFor[NullSCRU128Bytes](),
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
	if !slices.Contains(idTypes, f.FieldType) || !f.Creatable || f.DBName == "" {
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

// dropKeyUpsert removes an ON CONFLICT on the primary key from a statement
// whose keys are all fresh.
func dropKeyUpsert(stmt *gorm.Statement) {
	c, ok := stmt.Clauses["ON CONFLICT"]
	if !ok {
		return
	}
	oc, ok := c.Expression.(clause.OnConflict)
	if !ok || oc.OnConstraint != "" || oc.Where.Exprs != nil || oc.TargetWhere.Exprs != nil {
		return
	}
	onKey := len(oc.Columns) == 0 && oc.UpdateAll
	if len(oc.Columns) > 0 && len(oc.Columns) == len(stmt.Schema.PrimaryFieldDBNames) {
		onKey = true
		for _, col := range oc.Columns {
			if !slices.Contains(stmt.Schema.PrimaryFieldDBNames, col.Name) {
				onKey = false
			}
		}
	}
	if onKey {
		delete(stmt.Clauses, "ON CONFLICT")
	}
}

// insert wraps gorm:create with the collision retry.
func (a AutoID) insert(create func(*gorm.DB)) func(*gorm.DB) {
	return func(db *gorm.DB) {
		v, _ := db.Statement.Settings.Load(settingFilled)
		filled, _ := v.([]filledID)
		retries := a.Retries
		if retries == 0 {
			retries = DefaultRetries
		}
		if db.Error != nil || len(filled) == 0 || retries < 0 || db.DryRun {
			create(db)
			return
		}
		a.insertRetrying(db, create, filled, retries)
	}
}

func (a AutoID) insertRetrying(db *gorm.DB, create func(*gorm.DB), filled []filledID, retries int) {
	sp := needsSavepoint(db)
	for attempt := 0; ; attempt++ {
		if sp && db.AddError(execSQL(db, "SAVEPOINT "+savepointName)) != nil {
			return
		}
		create(db)
		err := db.Error
		if err == nil {
			if sp {
				db.AddError(execSQL(db, "RELEASE SAVEPOINT "+savepointName))
			}
			return
		}
		if attempt == retries || !isDuplicate(db, err) {
			return
		}
		if sp && execSQL(db, "ROLLBACK TO SAVEPOINT "+savepointName) != nil {
			return
		}
		db.Error = nil
		collided, cerr := collision(db, filled)
		if cerr != nil || !collided {
			db.Error = err
			return
		}
		if rerr := a.redraw(filled); rerr != nil {
			db.Error = nil
			db.AddError(fmt.Errorf("%w for %s: %w", ErrGenerate, db.Statement.Schema.Name, rerr))
			return
		}
		db.Statement.SQL.Reset()
		db.Statement.Vars = nil
		db.RowsAffected = 0
	}
}

// needsSavepoint reports whether a failed insert would abort the
// transaction it runs in: on PostgreSQL, inside a transaction.
func needsSavepoint(db *gorm.DB) bool {
	_, inTx := db.Statement.ConnPool.(gorm.TxCommitter)
	return inTx && db.Dialector.Name() == dialectPostgres
}

func execSQL(db *gorm.DB, sql string) error {
	if _, err := db.Statement.ConnPool.ExecContext(db.Statement.Context, sql); err != nil {
		return fmt.Errorf("gormtype: %s: %w", sql, err)
	}
	return nil
}

// isDuplicate reports whether err is a unique violation in db's dialect.
func isDuplicate(db *gorm.DB, err error) bool {
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return true
	}
	t, ok := db.Dialector.(gorm.ErrorTranslator)
	return ok && errors.Is(t.Translate(err), gorm.ErrDuplicatedKey)
}

// collision reports whether a row already holds one of the filled IDs.
func collision(db *gorm.DB, filled []filledID) (bool, error) {
	byColumn := map[string][]any{}
	var columns []string
	for _, f := range filled {
		if _, ok := byColumn[f.column]; !ok {
			columns = append(columns, f.column)
		}
		byColumn[f.column] = append(byColumn[f.column], f.value())
	}
	exprs := make([]clause.Expression, 0, len(columns))
	for _, col := range columns {
		exprs = append(exprs, clause.IN{Column: clause.Column{Name: col}, Values: byColumn[col]})
	}
	var n int64
	err := db.Session(&gorm.Session{NewDB: true, SkipHooks: true}).
		Table(db.Statement.Table).Where(clause.Or(exprs...)).Count(&n).Error
	return n > 0, err
}

// redraw gives every filled field a fresh ID.
func (a AutoID) redraw(filled []filledID) error {
	for _, f := range filled {
		if err := a.set(f.ptr); err != nil {
			return err
		}
	}
	return nil
}
