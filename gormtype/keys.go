package gormtype

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"gorm.io/gorm"

	"github.com/sortid/sortid/pgretry"
)

// draw gives the collected fields fresh IDs.
func (f *filled) draw(g generators) error {
	for i := range f.cols {
		c := &f.cols[i]
		c.ids = c.fields
		if c.fields[0].Type() != c.scheme.typ { // pointers or Nulls
			c.was, c.ids = make([]reflect.Value, len(c.fields)), make([]reflect.Value, len(c.fields))
			for j, fv := range c.fields {
				c.was[j], c.ids[j] = slot(fv)
			}
		}
		var err error
		if c.drawn, err = c.scheme.fresh(g, c.ids); err != nil {
			return fmt.Errorf("gormtype: generate an ID for %s.%s: %w", f.table, c.name, err)
		}
	}
	return nil
}

// slot readies an unset pointer or Null field for an ID: a pointer gets a
// target of its own (the caller's stays as it was), a Null is made Valid.
// It returns the field's value before, which unsets it again, and the ID.
func slot(fv reflect.Value) (was, id reflect.Value) {
	was = reflect.New(fv.Type()).Elem()
	was.Set(fv)
	if fv.Kind() == reflect.Pointer {
		fv.Set(reflect.New(fv.Type().Elem()))
		if !was.IsNil() {
			fv.Elem().Set(was.Elem())
		}
		fv = fv.Elem()
	}
	if fv.Kind() == reflect.Struct { // Null[T]{V, Valid}
		fv.Field(1).SetBool(true)
		fv = fv.Field(0)
	}
	return was, fv
}

// takenKey returns the columns of the unique key err says is taken, and
// whether it includes a column filled in every row with the IDs drawn (in
// a statement mixing set and fresh values the error cannot say whose value
// was taken) and holds one of them: a trigger's INSERT may violate a key
// of another table.
func takenKey(db *gorm.DB, f *filled) ([]string, bool) {
	err := f.raw
	t, _ := db.Dialector.(gorm.ErrorTranslator)
	if err == nil || !errors.Is(err, gorm.ErrDuplicatedKey) && !(db.Dialector.Name() == "postgres" && pgretry.IsUniqueViolation(err)) &&
		!(t != nil && errors.Is(t.Translate(err), gorm.ErrDuplicatedKey)) {
		return nil, false
	}
	cols := violatedColumns(db, err)
	if c := notDrawn(db, f, cols); c != nil && (db.Dialector.Name() != "mysql" || holdsHUIDs(db, c.name)) {
		return cols, false
	}
	return cols, slices.ContainsFunc(f.cols, func(c filledColumn) bool {
		return len(c.fields) == f.rows && slices.ContainsFunc(cols, func(k string) bool { return strings.EqualFold(k, c.name) }) && c.intact()
	})
}

// violatedColumns returns the columns of the unique key a driver's error
// names (MySQL's from the database), or none for a key that SQLite names in
// another table than the statement's, which is no view: a trigger's INSERT
// violated it.
func violatedColumns(db *gorm.DB, err error) (cols []string) {
	schemaName, table := tableOf(db.Statement)
	switch msg := err.Error(); db.Dialector.Name() {
	case "postgres":
		for c := range strings.SplitSeq(pgretry.KeyColumns(err), ", ") {
			if unquoted, ok := strings.CutPrefix(c, `"`); ok {
				c = strings.ReplaceAll(strings.TrimSuffix(unquoted, `"`), `""`, `"`)
			}
			cols = append(cols, c)
		}
	case "sqlite":
		_, list, _ := strings.Cut(msg, "UNIQUE constraint failed: ")
		list, _, _ = strings.Cut(list, " (")
		elsewhere := false
		for c := range strings.SplitSeq(list, ", ") {
			t, col, _ := strings.Cut(c, ".")
			elsewhere = elsewhere || !strings.EqualFold(t, table)
			cols = append(cols, col)
		}
		if elsewhere && !isView(db, table) {
			return nil
		}
	case "mysql":
		i := strings.LastIndex(msg, " for key '")
		if i < 0 || !strings.HasSuffix(msg, "'") {
			return nil
		}
		index := msg[i+len(" for key '") : len(msg)-1]
		if t, key, ok := strings.Cut(index, "."); ok && strings.EqualFold(t, table) {
			index = key // MySQL 8 writes table.key
		}
		aside(db).Raw(`SELECT column_name FROM information_schema.statistics
			WHERE table_schema = COALESCE(NULLIF(?, ''), DATABASE()) AND table_name = ? AND index_name = ? ORDER BY seq_in_index`,
			schemaName, table, index).Scan(&cols)
	}
	return cols
}

// notDrawn returns a filled column of the key cols none of whose IDs is in
// the key value the error reports (PostgreSQL's; MySQL's for HUIDs), or
// nil.
func notDrawn(db *gorm.DB, f *filled, cols []string) *filledColumn {
	mysql, value := db.Dialector.Name() == "mysql", pgretry.KeyValues(f.raw)
	if _, entry, ok := strings.Cut(f.raw.Error(), "Duplicate entry '"); mysql && ok {
		value, _, _ = strings.Cut(entry, "' for key '")
	}
	if value == "" || strings.HasSuffix(value, "...") { // MySQL cuts a long one
		return nil
	}
	for i, c := range f.cols {
		if c.drawn == nil || c.scheme.text == nil || mysql && c.scheme != &schemes[0] ||
			!slices.ContainsFunc(cols, func(k string) bool { return strings.EqualFold(k, c.name) }) {
			continue
		}
		drawn, found := reflect.ValueOf(c.drawn), false
		for j := 0; j < drawn.Len() && !found; j++ {
			found = strings.Contains(value, c.scheme.text(drawn.Index(j).Interface()))
		}
		if !found {
			return &f.cols[i]
		}
	}
	return nil
}

// holdsHUIDs reports whether the statement's MySQL column col holds every
// HUID as it is: not an integer narrower than BIGINT, a DECIMAL of fewer
// than 19 digits before the point, nor a FLOAT or DOUBLE.
func holdsHUIDs(db *gorm.DB, col string) bool {
	var narrow bool
	schemaName, table := tableOf(db.Statement)
	aside(db).Raw(`SELECT data_type IN ('tinyint', 'smallint', 'mediumint', 'int', 'float', 'double')
			OR data_type = 'decimal' AND numeric_precision - numeric_scale < 19
		FROM information_schema.columns
		WHERE table_schema = COALESCE(NULLIF(?, ''), DATABASE()) AND table_name = ? AND column_name = ?`,
		schemaName, table, col).Scan(&narrow)
	return !narrow
}

// isView reports whether SQLite's table is a view, whose INSTEAD OF
// trigger writes the rows into another table.
func isView(db *gorm.DB, table string) bool {
	var n int64
	aside(db).Raw("SELECT COUNT(*) FROM sqlite_master WHERE type = 'view' AND name = ? COLLATE NOCASE", table).Scan(&n)
	return n > 0
}

// checkStoredKey returns [ErrRefused] when MySQL reports a fresh HUID key
// taken with a number no row drew, in a column that does not hold HUIDs:
// it stores another number than it is given, so no draw can win.
func checkStoredKey(db *gorm.DB, f *filled, cols []string) error {
	c := notDrawn(db, f, cols)
	if c == nil {
		return nil
	}
	return fmt.Errorf("%w: a Create into %s drew %s %v, and the database reports another number taken: the column stores another number than the HUID it is given (an INT or DECIMAL clamps it without STRICT_TRANS_TABLES, a DOUBLE rounds it); make it BIGINT: %v",
		ErrRefused, f.table, c.name, c.ids[0], f.raw)
}

// checkEngines returns [ErrRefused] when a MySQL table among tables keeps
// rows on a rollback (MyISAM, Aria), or its engine cannot be read.
func checkEngines(db *gorm.DB, f *filled, tables []string) error {
	if db.Dialector.Name() != "mysql" || len(tables) == 0 {
		return nil
	}
	var current string // the names in the query leave the current database out
	aside(db).Raw("SELECT DATABASE()").Scan(&current)
	for i, t := range tables {
		tables[i] = strings.TrimPrefix(t, current+".")
	}
	tables = slices.Compact(slices.Sorted(slices.Values(tables)))
	var n int64
	if aside(db).Raw(`SELECT COUNT(*) FROM information_schema.tables t
		JOIN information_schema.engines e ON e.engine = t.engine AND e.transactions = 'YES'
		WHERE CONCAT(IF(t.table_schema = DATABASE(), '', CONCAT(t.table_schema, '.')), t.table_name) IN ?`, tables).Scan(&n).Error == nil && n == int64(len(tables)) {
		return nil
	}
	return fmt.Errorf("%w: a fresh key of a Create into %s was taken after rows were written to %s, whose engine keeps them on a rollback or cannot be read, so the Create cannot run again without the risk of storing them twice; the structs of earlier statements keep the keys AutoID drew, those of this Create's rows are unset, also of rows the table kept; use InnoDB tables: %v",
		ErrRefused, f.table, strings.Join(tables, ", "), f.raw)
}
