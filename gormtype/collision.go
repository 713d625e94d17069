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
	if errors.Is(err, gorm.ErrDuplicatedKey) || errors.Is(err, ErrKeyTaken) {
		return true
	}
	t, ok := db.Dialector.(gorm.ErrorTranslator)
	return ok && errors.Is(t.Translate(err), gorm.ErrDuplicatedKey)
}

// keyCollision reports whether err says that a row with the statement's
// primary key exists: the error names the primary key, so it holds under
// every isolation level, and a violation of another unique key is never
// taken for one.
func keyCollision(db *gorm.DB, err error) bool {
	if errors.Is(err, ErrKeyTaken) {
		return true
	}
	if !isDuplicate(db, err) {
		return false
	}
	switch db.Dialector.Name() {
	case dialectPostgres:
		var pgErr *pgconn.PgError
		return errors.As(err, &pgErr) && isPrimaryKeyConstraint(db, pgErr.SchemaName, pgErr.TableName, pgErr.ConstraintName)
	case dialectMySQL:
		// MariaDB: "Duplicate entry '…' for key 'PRIMARY'"; MySQL 8:
		// "… for key 'table.PRIMARY'". The key name comes last.
		msg := err.Error()
		return strings.HasSuffix(msg, " for key 'PRIMARY'") || strings.HasSuffix(msg, ".PRIMARY'")
	case dialectSQLite:
		msg, want := err.Error(), sqliteKeyViolation(db)
		return strings.HasSuffix(msg, want) || strings.Contains(msg, want+" (")
	}
	return false
}

// sqliteKeyViolation is SQLite's message for a duplicate primary key of the
// statement's table, "UNIQUE constraint failed: t.a, t.b", which drivers
// wrap (glebarez: "constraint failed: … (1555)").
func sqliteKeyViolation(db *gorm.DB) string {
	cols := make([]string, len(db.Statement.Schema.PrimaryFieldDBNames))
	for i, c := range db.Statement.Schema.PrimaryFieldDBNames {
		cols[i] = db.Statement.Table + "." + c
	}
	return "UNIQUE constraint failed: " + strings.Join(cols, ", ")
}

type constraintName struct{ schema, table, name string }

// primaryKeys caches which PostgreSQL constraints are primary keys.
var primaryKeys sync.Map

// isPrimaryKeyConstraint reports whether the named constraint is its
// table's primary key, asking the catalog once per constraint.
func isPrimaryKeyConstraint(db *gorm.DB, schema, table, name string) bool {
	key := constraintName{schema, table, name}
	if v, ok := primaryKeys.Load(key); ok {
		return v.(bool)
	}
	var isKey bool
	err := db.Session(&gorm.Session{NewDB: true, SkipHooks: true}).Raw(`SELECT EXISTS (
		SELECT FROM pg_catalog.pg_constraint c
		JOIN pg_catalog.pg_class t ON t.oid = c.conrelid
		JOIN pg_catalog.pg_namespace n ON n.oid = t.relnamespace
		WHERE n.nspname = ? AND t.relname = ? AND c.conname = ? AND c.contype = 'p')`,
		schema, table, name).Scan(&isKey).Error
	if err != nil {
		return false
	}
	primaryKeys.Store(key, isKey)
	return isKey
}
