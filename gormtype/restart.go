package gormtype

import (
	"context"
	"database/sql"
	"fmt"

	"gorm.io/gorm"
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
// associations) and other plugins' callbacks go through it.
type watchedTx struct {
	tx   gorm.ConnPool // a *sql.Tx, or a *gorm.PreparedStmtTX over one
	used bool
}

var (
	_ gorm.ConnPool    = (*watchedTx)(nil)
	_ gorm.TxCommitter = (*watchedTx)(nil)
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

// Commit and Rollback end the transaction when a callback before the
// INSERT fails.
func (w *watchedTx) Commit() error   { return w.tx.(gorm.TxCommitter).Commit() }
func (w *watchedTx) Rollback() error { return w.tx.(gorm.TxCommitter).Rollback() }

// begin wraps gorm:begin_transaction: it watches a transaction begun for a
// Create whose IDs AutoID may have to retry.
func (a AutoID) begin(begin func(*gorm.DB)) func(*gorm.DB) {
	return func(db *gorm.DB) {
		begin(db)
		if a.retries() >= 0 && beganForThisCreate(db) && restartable(db) {
			db.Statement.ConnPool = &watchedTx{tx: db.Statement.ConnPool}
		}
	}
}

// restartable reports whether ROLLBACK; BEGIN gives the statement a
// transaction like the one GORM began: PostgreSQL, a plain *sql.DB (a
// custom pool may run statements of its own when it begins, such as
// SET LOCAL), and a model that AutoID fills and whose BeforeSave and
// BeforeCreate hooks, which would see the watcher, are absent.
func restartable(db *gorm.DB) bool {
	stmt := db.Statement
	if db.Dialector.Name() != dialectPostgres || stmt.Schema == nil ||
		stmt.Schema.BeforeSave || stmt.Schema.BeforeCreate || len(autoFields(stmt.Schema)) == 0 {
		return false
	}
	if _, ok := plainTx(stmt.ConnPool); !ok {
		return false
	}
	switch pool := db.Config.ConnPool.(type) {
	case *sql.DB:
		return true
	case *gorm.PreparedStmtDB:
		_, ok := pool.ConnPool.(*sql.DB)
		return ok
	}
	return false
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
	const sql = "ROLLBACK; BEGIN"
	if _, err := tx.ExecContext(db.Statement.Context, sql); err != nil {
		return fmt.Errorf("gormtype: %s: %w", sql, err)
	}
	return nil
}
