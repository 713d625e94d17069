package gormtype

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"gorm.io/gorm"
)

// Transaction runs fn in a transaction of db (a savepoint, when db is in
// one) with ctx, and runs it again in a fresh one while it fails with
// [ErrKeyTaken]: a fresh value that [AutoID] filled in one of its Creates
// was taken. Before each rerun every field AutoID filled in the attempt,
// in every statement of fn, is unset again, so fn's hooks and Creates run
// with new keys. It tries up to AutoID.Retries reruns (0: DefaultRetries);
// then it returns the last error, which wraps ErrKeyTaken. When it returns
// an error, fn's work is rolled back and the fields AutoID filled in it
// are unset again; but for rows a table without transactions kept
// ([ErrRefused] says so).
//
// fn must make everything it writes with tx and may run more than once:
// what it does outside tx is not undone. db may be a hook's tx. Transaction
// returns [ErrSetup] for a db without AutoID, and any other error of fn or
// of the transaction as it is.
func Transaction(ctx context.Context, db *gorm.DB, fn func(tx *gorm.DB) error, opts ...*sql.TxOptions) error {
	a, ok := db.Config.Plugins[pluginName].(AutoID)
	if !ok {
		return fmt.Errorf("%w: gormtype.Transaction retries the Creates of AutoID; register it with db.Use(gormtype.AutoID{})", ErrSetup)
	}
	retries := a.Retries
	if retries == 0 {
		retries = DefaultRetries
	}
	for attempt := 1; ; attempt++ {
		u := &fills{}
		err := db.Transaction(func(tx *gorm.DB) error {
			key := unitKey(tx.Statement.ConnPool)
			if prev, had := units.Swap(key, u); had {
				u.parent = prev.(*fills)
				defer units.Store(key, prev)
			} else {
				defer units.Delete(key)
			}
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
		}
		if attempt > retries {
			return fmt.Errorf("gormtype: Transaction ran %d times: %w", attempt, err)
		}
	}
}
