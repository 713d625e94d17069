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
// left alone. The HUIDs filled into a column by one statement ascend with
// the rows, in the order of the caller's slice, so a batch appends at the
// right edge of the primary-key index like sequential keys (see
// [idtype.HUIDGenerator.Fill]). When every row's primary key was filled, an
// ON CONFLICT on the primary key (GORM adds one when it saves associations)
// is dropped: a fresh key can only conflict by collision, which must not
// update or skip another row.
//
// When the insert fails with a unique violation (the dialect's
// gorm.ErrDuplicatedKey) and a row with one of the filled IDs exists, the
// IDs are drawn again and the insert is retried, up to Retries times. On
// PostgreSQL a failed statement aborts the transaction it runs in:
//
//   - In the transaction GORM opens for a Create, when the INSERT is the
//     first statement in it, AutoID sends nothing more; after a collision it
//     replaces the aborted transaction with a fresh one (ROLLBACK; BEGIN on
//     the same connection) and retries. To know the INSERT is first it
//     watches the transaction from gorm:begin_transaction on. It does so
//     only when that callback is GORM's own (a plugin wrapping it may write
//     right after BEGIN), the statement's pool is a plain *sql.DB (a custom
//     pool may set things up when it begins; a *sql.Conn may be in the
//     caller's transaction already) and the model has no BeforeSave or
//     BeforeCreate hook. Until the INSERT, callbacks and belongs-to records'
//     hooks see the watcher as the statement's connection: a gorm.Tx that
//     sessions, prepared statements and DB() work with, but not a *sql.Tx.
//   - Otherwise in that transaction (a belongs-to record or another
//     plugin's statement came first), the INSERT runs under a SAVEPOINT
//     that the COMMIT ends: one statement more.
//   - In a longer transaction, such as CreateInBatches' or the caller's,
//     each INSERT runs under a SAVEPOINT that is released after it: two
//     statements more per insert.
//
// Outside a transaction (GORM's SkipDefaultTransaction) and on other
// dialects retries cost nothing until a collision happens. A conflict that
// an ON CONFLICT DO NOTHING without a target swallows (GORM's default for
// many2many records) cannot be seen and is not retried.
type AutoID struct {
	// Retries bounds the retries after a collision: 0 means
	// DefaultRetries, a negative value disables retrying (and savepoints).
	Retries int
	// NewHUID makes HUIDs; nil means idtype.FillHUIDs. A statement's
	// HUIDs ascend with its rows either way.
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
	if begin := create.Get("gorm:begin_transaction"); begin != nil {
		if err := create.Replace("gorm:begin_transaction", a.begin(begin)); err != nil {
			return fmt.Errorf("gormtype: wrap gorm:begin_transaction: %w", err)
		}
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

// filledColumn is a column AutoID fills: pointers to the zero fields of
// the rows, in row order, all of one gormtype ID type.
type filledColumn struct {
	name string
	ptrs []any
}

// values returns the column's current values.
func (c filledColumn) values() []any {
	vs := make([]any, len(c.ptrs))
	for i, p := range c.ptrs {
		vs[i] = reflect.ValueOf(p).Elem().Interface()
	}
	return vs
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
	columns := make([]filledColumn, len(fields))
	rows, keysFilled := 0, 0
	fillRow := func(row reflect.Value) error {
		rows++
		for i, f := range fields {
			fv := f.ReflectValueOf(stmt.Context, row)
			if !fv.IsZero() || !fv.CanAddr() {
				continue
			}
			if columns[i].ptrs == nil {
				columns[i] = filledColumn{name: f.DBName, ptrs: make([]any, 0, rowCount(stmt.ReflectValue))}
			}
			columns[i].ptrs = append(columns[i].ptrs, fv.Addr().Interface())
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
	columns = slices.DeleteFunc(columns, func(c filledColumn) bool { return len(c.ptrs) == 0 })
	if len(columns) == 0 {
		return
	}
	if err := a.draw(columns); err != nil {
		db.AddError(fmt.Errorf("%w for %s: %w", ErrGenerate, stmt.Schema.Name, err))
		return
	}
	stmt.Settings.Store(settingFilled, columns)
	if keysFilled == rows*len(stmt.Schema.PrimaryFields) {
		dropKeyUpsert(stmt)
	}
}

// rowCount is how many rows a statement's reflect value holds at most.
func rowCount(rv reflect.Value) int {
	if rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array {
		return rv.Len()
	}
	return 1
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

// draw gives every field of the columns a fresh ID.
func (a AutoID) draw(columns []filledColumn) error {
	for _, c := range columns {
		if err := a.drawColumn(c); err != nil {
			return fmt.Errorf("column %s: %w", c.name, err)
		}
	}
	return nil
}

// drawColumn gives the fields of c fresh IDs. A column's HUIDs ascend with
// its rows (see [idtype.HUIDGenerator.Fill]): the keys of a batch append at
// the right edge of the primary-key index, as sequential keys do, and follow
// the order of the caller's slice. SCRU128s of one generator ascend anyway.
func (a AutoID) drawColumn(c filledColumn) error {
	switch c.ptrs[0].(type) {
	case *HUID, *NullHUID:
		huids := make([]idtype.HUID, len(c.ptrs))
		if err := a.huids(huids); err != nil {
			return err
		}
		for i, p := range c.ptrs {
			setHUID(p, huids[i])
		}
		return nil
	}
	for _, p := range c.ptrs {
		id, err := a.scru128()
		if err != nil {
			return err
		}
		if err := setSCRU128(p, id); err != nil {
			return err
		}
	}
	return nil
}

// huids fills dst with fresh HUIDs in ascending order.
func (a AutoID) huids(dst []idtype.HUID) error {
	if a.NewHUID == nil {
		return idtype.FillHUIDs(dst)
	}
	for i := range dst {
		h, err := a.NewHUID()
		if err != nil {
			return err
		}
		dst[i] = h
	}
	slices.Sort(dst)
	return nil
}

func setHUID(p any, h idtype.HUID) {
	switch p := p.(type) {
	case *HUID:
		*p = HUID(h)
	case *NullHUID:
		*p = NullHUID{HUID(h), true}
	}
}

func setSCRU128(p any, id idtype.SCRU128) error {
	switch p := p.(type) {
	case *SCRU128:
		*p = SCRU128(id)
	case *NullSCRU128:
		*p = NullSCRU128{SCRU128(id), true}
	case *SCRU128Bytes:
		*p = SCRU128Bytes(id)
	case *NullSCRU128Bytes:
		*p = NullSCRU128Bytes{SCRU128Bytes(id), true}
	default:
		return fmt.Errorf("%T is not a gormtype ID", p)
	}
	return nil
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
		first := unwatch(db)
		v, _ := db.Statement.Settings.Load(settingFilled)
		filled, _ := v.([]filledColumn)
		if db.Error != nil || len(filled) == 0 || a.retries() < 0 || db.DryRun {
			create(db)
			return
		}
		a.insertRetrying(db, create, filled, first)
	}
}

// insertRetrying runs create, and again with fresh IDs after a collision.
// A failed INSERT aborts a PostgreSQL transaction: when the INSERT is the
// first statement of the transaction GORM began for this Create, a fresh
// transaction replaces the aborted one (see restart.go); otherwise a
// savepoint keeps what ran before it.
func (a AutoID) insertRetrying(db *gorm.DB, create func(*gorm.DB), filled []filledColumn, first bool) {
	sp := needsSavepoint(db) && !first
	// In the transaction GORM began for this very Create, the COMMIT or
	// ROLLBACK that ends this Create also ends the savepoint: a RELEASE
	// would only add a round trip.
	release := sp && !beganForThisCreate(db)
	if sp && db.AddError(execSQL(db, "SAVEPOINT "+savepointName)) != nil {
		return
	}
	for attempt := 0; ; attempt++ {
		create(db)
		err := db.Error
		if err == nil {
			if release {
				db.AddError(execSQL(db, "RELEASE SAVEPOINT "+savepointName))
			}
			return
		}
		if attempt == a.retries() || !isDuplicate(db, err) {
			return
		}
		var recoverErr error
		switch {
		case sp:
			// ROLLBACK TO keeps the savepoint for the next attempt.
			recoverErr = execSQL(db, "ROLLBACK TO SAVEPOINT "+savepointName)
		case first:
			recoverErr = restart(db)
		}
		if recoverErr != nil {
			db.AddError(recoverErr)
			return
		}
		db.Error = nil
		collided, cerr := collision(db, filled)
		if cerr != nil || !collided {
			db.Error = err
			return
		}
		if rerr := a.draw(filled); rerr != nil {
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

// beganForThisCreate reports whether GORM's gorm:begin_transaction began
// the statement's transaction, which gorm:commit_or_rollback_transaction
// ends before Create returns.
func beganForThisCreate(db *gorm.DB) bool {
	_, ok := db.InstanceGet("gorm:started_transaction")
	return ok
}

func execSQL(db *gorm.DB, sql string) error { return execOn(db, db.Statement.ConnPool, sql) }

// execOn runs one statement of AutoID's on pool for db's statement.
func execOn(db *gorm.DB, pool gorm.ConnPool, sql string) error {
	if _, err := pool.ExecContext(db.Statement.Context, sql); err != nil {
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
func collision(db *gorm.DB, filled []filledColumn) (bool, error) {
	exprs := make([]clause.Expression, 0, len(filled))
	for _, c := range filled {
		exprs = append(exprs, clause.IN{Column: clause.Column{Name: c.name}, Values: c.values()})
	}
	var n int64
	err := db.Session(&gorm.Session{NewDB: true, SkipHooks: true}).
		Table(db.Statement.Table).Where(clause.Or(exprs...)).Count(&n).Error
	return n > 0, err
}
