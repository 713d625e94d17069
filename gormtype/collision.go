package gormtype

import (
	"errors"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"
)

// isDuplicate reports whether err is a unique violation in db's dialect.
func isDuplicate(db *gorm.DB, err error) bool {
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return true
	}
	t, ok := db.Dialector.(gorm.ErrorTranslator)
	return ok && errors.Is(t.Translate(err), gorm.ErrDuplicatedKey)
}

// classify tells whether err is a collision of fresh values: a unique
// violation on a key that includes a column AutoID filled in the current
// rows. The error names the key, so this holds under every isolation level
// and never takes a violation of another key for a collision. known is
// false when err is no unique violation or does not say which key.
func (ins *inserter) classify(err error) (fresh, known bool) {
	if errors.Is(err, ErrKeyTaken) {
		return true, true
	}
	if !isDuplicate(ins.db, err) {
		return false, false
	}
	cols, ok := violatedColumns(ins.db, err)
	if !ok {
		return false, false
	}
	for _, c := range cols {
		for _, f := range ins.filled {
			if strings.EqualFold(c, f) {
				return true, true
			}
		}
	}
	return false, true
}

// violatedColumns returns the columns of the unique key a driver's error
// names: pgx's *pgconn.PgError (gorm.io/driver/postgres), go-sql-driver's
// "Duplicate entry … for key 'name'", SQLite's "UNIQUE constraint failed:
// t.a, t.b".
func violatedColumns(db *gorm.DB, err error) ([]string, bool) {
	switch db.Dialector.Name() {
	case dialectPostgres:
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.ConstraintName == "" {
			return nil, false
		}
		return keyColumnsFromCatalog(db, indexName{databaseOf(db), dialectPostgres, pgErr.SchemaName, pgErr.ConstraintName}, `
			SELECT a.attname FROM pg_catalog.pg_class c
			JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
			JOIN pg_catalog.pg_index i ON i.indexrelid = c.oid
			JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
			WHERE n.nspname = ? AND c.relname = ?`)
	case dialectMySQL:
		msg := err.Error()
		i := strings.LastIndex(msg, " for key '")
		if i < 0 || !strings.HasSuffix(msg, "'") {
			return nil, false
		}
		name := msg[i+len(" for key '") : len(msg)-1]
		name = name[strings.LastIndexByte(name, '.')+1:] // MySQL 8 writes table.key
		return keyColumnsFromCatalog(db, indexName{databaseOf(db), dialectMySQL, db.Statement.Table, name}, `
			SELECT column_name FROM information_schema.statistics
			WHERE table_schema = DATABASE() AND table_name = ? AND index_name = ?`)
	case dialectSQLite:
		const prefix = "UNIQUE constraint failed: "
		msg := err.Error()
		i := strings.Index(msg, prefix)
		if i < 0 {
			return nil, false
		}
		list, _, _ := strings.Cut(msg[i+len(prefix):], " (")
		var cols []string
		for _, c := range strings.Split(list, ", ") {
			cols = append(cols, c[strings.LastIndexByte(c, '.')+1:])
		}
		return cols, true
	}
	return nil, false
}

// indexName names a unique key of a database (gorm.Open): PostgreSQL's by
// schema and index, MySQL's by table and index.
type indexName struct {
	db                   any // databaseOf
	dialect, scope, name string
}

// indexColumns caches the columns of the unique keys AutoID has met.
var indexColumns sync.Map

// keyColumnsFromCatalog returns the columns of a unique key, asking the
// catalog with query (scope and name as its parameters) once per key.
func keyColumnsFromCatalog(db *gorm.DB, key indexName, query string) ([]string, bool) {
	if v, ok := indexColumns.Load(key); ok {
		return v.([]string), true
	}
	var cols []string
	err := db.Session(&gorm.Session{NewDB: true, SkipHooks: true}).Raw(query, key.scope, key.name).Scan(&cols).Error
	if err != nil || len(cols) == 0 {
		return nil, false
	}
	indexColumns.Store(key, cols)
	return cols, true
}
