package gormtype

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"gorm.io/gorm"
)

// Transaction runs fn in a transaction of db (a savepoint, when db is in
// one) with ctx, and reruns it in a fresh one while it fails with
// [ErrKeyTaken]: a fresh value that [AutoID] filled was taken. Before each
// rerun, every field AutoID filled in the attempt is unset again, so fn's
// hooks and Creates run with new keys; after AutoID.Retries reruns (0:
// DefaultRetries) it returns the last error. When it returns an error,
// fn's work is rolled back and the fields AutoID filled in it are unset.
//
// fn must write with tx (or a session of it) and may run more than once:
// what it does outside tx is not undone. db may be a hook's tx. Transaction
// returns [ErrSetup] for a db without AutoID, or in a transaction with
// DisableNestedTransaction (which GORM sets for the hooks of association
// rows), and any other error of fn or of the transaction
// as it is. When fn panics, the fields are unset and the panic goes on.
func Transaction(ctx context.Context, db *gorm.DB, fn func(tx *gorm.DB) error, opts ...*sql.TxOptions) error {
	a, ok := db.Config.Plugins[pluginName].(AutoID)
	if !ok {
		return fmt.Errorf("%w: gormtype.Transaction retries the Creates of AutoID; register it with db.Use(gormtype.AutoID{})", ErrSetup)
	}
	if _, inTx := db.Statement.ConnPool.(gorm.TxCommitter); inTx && db.DisableNestedTransaction {
		return fmt.Errorf("%w: in a transaction gormtype.Transaction reruns its function in a savepoint, which DisableNestedTransaction turns off: set in gorm.Config, or by GORM for the hooks of rows it saves as associations; there, write with the hook's tx, and run the outer Create in gormtype.Transaction, which reruns it all", ErrSetup)
	}
	retries := a.Retries
	if retries == 0 {
		retries = DefaultRetries
	}
	for attempt := 1; ; attempt++ {
		var u *unit
		err := db.Transaction(func(tx *gorm.DB) error {
			var leave func()
			u, leave = enter(tx.Statement.ConnPool)
			defer func() {
				leave()
				if p := recover(); p != nil { // GORM rolls back on the way out
					u.reset()
					panic(p)
				}
			}()
			if ctx != tx.Statement.Context {
				// A hook's tx holds the hooked statement (a Dest): GORM's
				// WithContext would carry it into fn's statements.
				tx = tx.Session(&gorm.Session{Context: ctx, NewDB: tx.Statement.Dest != nil})
			}
			return fn(tx)
		}, opts...)
		if err == nil {
			return nil
		}
		u.reset()
		if !errors.Is(err, ErrKeyTaken) {
			return err
		} else if attempt > retries {
			return fmt.Errorf("gormtype: Transaction's attempt %d of %d failed: %w", attempt, max(retries, 0)+1, err)
		}
	}
}
