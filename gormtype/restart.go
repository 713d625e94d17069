package gormtype

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"

	"gorm.io/gorm"
	"gorm.io/gorm/callbacks"
)

// A retry inside a transaction needs the transaction to survive the failed
// INSERT, which on PostgreSQL takes a SAVEPOINT: one more statement per
// Create. In the transaction GORM opens for a Create, nothing needs to
// survive when the INSERT is the first statement in it; then AutoID takes
// no savepoint, and after a collision it replaces the aborted transaction
// with a fresh one (ROLLBACK; BEGIN on the same connection) before the
// retry. To know that the INSERT is first, AutoID watches the transaction
// from gorm:begin_transaction to its INSERT.

// watchedTx is the transaction GORM began for a Create, from
// gorm:begin_transaction until AutoID's INSERT: it records whether any
// statement ran on it. Statements of GORM's own callbacks (belongs-to
// associations and their hooks) and other plugins' callbacks go through it.
// It is a gorm.Tx and a gorm.GetDBConnector like the transaction it wraps,
// so GORM's APIs (sessions, prepared statements, DB()) work on it; only a
// type assertion to *sql.Tx sees the difference.
type watchedTx struct {
	tx   gorm.Tx // a *sql.Tx, or a *gorm.PreparedStmtTX over one
	db   *sql.DB // the pool it was begun from
	used bool
}

var (
	_ gorm.Tx             = (*watchedTx)(nil)
	_ gorm.GetDBConnector = (*watchedTx)(nil)
)

func (w *watchedTx) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	w.used = true
	return w.tx.PrepareContext(ctx, query)
}

func (w *watchedTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	w.used = true
	return w.tx.ExecContext(ctx, query, args...)
}

func (w *watchedTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	w.used = true
	return w.tx.QueryContext(ctx, query, args...)
}

func (w *watchedTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	w.used = true
	return w.tx.QueryRowContext(ctx, query, args...)
}

// StmtContext serves prepared statements (gorm.Session{PrepareStmt: true}).
func (w *watchedTx) StmtContext(ctx context.Context, stmt *sql.Stmt) *sql.Stmt {
	w.used = true
	return w.tx.StmtContext(ctx, stmt)
}

func (w *watchedTx) GetDBConn() (*sql.DB, error) { return w.db, nil }

// Commit and Rollback end the transaction if a plugin has taken AutoID's
// gorm:create away; AutoID unwraps the transaction there otherwise.
func (w *watchedTx) Commit() error   { return w.tx.Commit() }
func (w *watchedTx) Rollback() error { return w.tx.Rollback() }

// begin wraps gorm:begin_transaction: it watches a transaction begun for a
// Create whose IDs AutoID may have to retry. Only GORM's own
// BeginTransaction is watched: a plugin that wraps it may run statements of
// its own right after BEGIN, out of the watcher's sight.
func (a AutoID) begin(begin func(*gorm.DB)) func(*gorm.DB) {
	gormsOwn := reflect.ValueOf(begin).Pointer() == reflect.ValueOf(callbacks.BeginTransaction).Pointer()
	return func(db *gorm.DB) {
		pool := db.Statement.ConnPool
		begin(db)
		if !gormsOwn || a.retries() < 0 || !beganForThisCreate(db) {
			return
		}
		if sqlDB, ok := restartable(db, pool); ok {
			db.Statement.ConnPool = &watchedTx{tx: db.Statement.ConnPool.(gorm.Tx), db: sqlDB}
		}
	}
}

// restartable reports whether ROLLBACK; BEGIN gives the statement a
// transaction like the one GORM began from pool, and returns the *sql.DB:
// PostgreSQL; a plain *sql.DB pool (a custom pool may run statements of its
// own when it begins, such as SET LOCAL, and a *sql.Conn may already be in a
// transaction the caller began); a model that AutoID fills and whose
// BeforeSave and BeforeCreate hooks, which would see the watcher, are absent.
func restartable(db *gorm.DB, pool gorm.ConnPool) (*sql.DB, bool) {
	stmt := db.Statement
	if db.Dialector.Name() != dialectPostgres || stmt.Schema == nil ||
		stmt.Schema.BeforeSave || stmt.Schema.BeforeCreate || len(autoFields(stmt.Schema)) == 0 {
		return nil, false
	}
	if _, ok := plainTx(stmt.ConnPool); !ok {
		return nil, false
	}
	if p, ok := pool.(*gorm.PreparedStmtDB); ok {
		pool = p.ConnPool
	}
	sqlDB, ok := pool.(*sql.DB)
	return sqlDB, ok
}

// plainTx returns the *sql.Tx under a statement's connection.
func plainTx(pool gorm.ConnPool) (*sql.Tx, bool) {
	if p, ok := pool.(*gorm.PreparedStmtTX); ok {
		pool = p.Tx
	}
	tx, ok := pool.(*sql.Tx)
	return tx, ok
}

// unwatch gives the Create that began the transaction back its
// transaction and reports whether its INSERT is the first statement in it.
// Nested creates (belongs-to associations) keep the watcher, so their
// statements count.
func unwatch(db *gorm.DB) (first bool) {
	w, ok := db.Statement.ConnPool.(*watchedTx)
	if !ok || !beganForThisCreate(db) {
		return false
	}
	db.Statement.ConnPool = w.tx
	return !w.used
}

// restart replaces the statement's aborted transaction with a fresh one on
// the same connection.
func restart(db *gorm.DB) error {
	tx, ok := plainTx(db.Statement.ConnPool)
	if !ok {
		return fmt.Errorf("gormtype: cannot begin a fresh transaction on a %T", db.Statement.ConnPool)
	}
	return execOn(db, tx, "ROLLBACK; BEGIN")
}
