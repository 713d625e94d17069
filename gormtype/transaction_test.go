package gormtype_test

// Guarantee 2 in every transaction shape: a plain Create whose fresh key
// is taken fails with ErrKeyTaken (OnCollision once) in GORM's default
// transaction, the caller's, and without any; gormtype.Transaction runs
// its function again in a fresh transaction (a savepoint inside the
// caller's), so the rows a hook wrote in a failed attempt are undone.

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"gorm.io/gorm"

	"github.com/sortid/sortid/gormtype"
)

// txShape runs fn the way a caller does, and reports its error.
type txShape struct {
	name string
	skip bool // gorm.Config.SkipDefaultTransaction
	run  func(db *gorm.DB, fn func(*gorm.DB) error) error
}

var txShapes = []txShape{
	{"no caller transaction", false, func(db *gorm.DB, fn func(*gorm.DB) error) error { return fn(db) }},
	{"caller's Transaction", false, func(db *gorm.DB, fn func(*gorm.DB) error) error { return db.Transaction(fn) }},
	{"nested Transaction", false, func(db *gorm.DB, fn func(*gorm.DB) error) error {
		return db.Transaction(func(tx *gorm.DB) error { return tx.Transaction(fn) })
	}},
	{"Begin and Commit", false, func(db *gorm.DB, fn func(*gorm.DB) error) error {
		tx := db.Begin()
		if err := fn(tx); err != nil {
			tx.Rollback()
			return err
		}
		return tx.Commit().Error
	}},
	{"SkipDefaultTransaction", true, func(db *gorm.DB, fn func(*gorm.DB) error) error { return fn(db) }},
}

// TestTransactionRetriesInEveryShape: a Create and a CreateInBatches whose
// keys collide once succeed in gormtype.Transaction run in every shape;
// the taken rows are untouched and each new row is stored once under a
// fresh key.
func TestTransactionRetriesInEveryShape(t *testing.T) {
	t.Parallel()
	for _, shape := range txShapes {
		for _, batches := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/batches=%v", shape.name, batches), func(t *testing.T) {
				t.Parallel()
				src := &keySource{}
				db := openDB(t, &gorm.Config{SkipDefaultTransaction: shape.skip}, src.plugin(0), &Account{})
				t1, t2 := seedAccount(t, db, "t1@x"), seedAccount(t, db, "t2@x")
				rows := []Account{{Email: "a@x"}, {Email: "b@x"}, {Email: "c@x"}}
				want := 1
				create := func(tx *gorm.DB) error { return tx.Create(&rows).Error }
				if batches {
					// The second batch draws t2's key: the whole function runs again.
					src.next(t1.ID, 0, 0, 0, t2.ID)
					create = func(tx *gorm.DB) error { return tx.CreateInBatches(&rows, 2).Error }
					want = 2
				} else {
					src.next(t1.ID)
				}
				err := shape.run(db, func(tx *gorm.DB) error { return retried(tx, create) })
				if err != nil {
					t.Fatalf("Create with a taken key: %v", err)
				}
				src.checkDrawn(t, "accounts", want)
				for _, r := range rows {
					checkFresh(t, db, r, t1, t2)
				}
				checkAccount(t, db, t1)
				checkAccount(t, db, t2)
				checkCount(t, db, 5, "accounts", "1 = 1")
			})
		}
	}
}

// TestKeyTakenInEveryShape: a plain Create whose fresh key is taken fails
// with ErrKeyTaken, naming the table and wrapping gorm.ErrDuplicatedKey,
// after one draw per row and one OnCollision call, in every shape; its
// rows are not stored and their keys are zero again.
func TestKeyTakenInEveryShape(t *testing.T) {
	t.Parallel()
	for _, shape := range txShapes {
		t.Run(shape.name, func(t *testing.T) {
			t.Parallel()
			src := &keySource{}
			db := openDB(t, &gorm.Config{SkipDefaultTransaction: shape.skip}, src.plugin(0), &Account{})
			taken := seedAccount(t, db, "taken@x")
			rows := []Account{{Email: "a@x"}, {Email: "b@x"}}
			var createErr error
			_ = shape.run(db, func(tx *gorm.DB) error {
				src.next(taken.ID)
				createErr = tx.Create(&rows).Error
				return nil
			})
			checkRefused(t, createErr, gormtype.ErrKeyTaken, "accounts", "gormtype.Transaction")
			if !errors.Is(createErr, gorm.ErrDuplicatedKey) {
				t.Errorf("%v does not wrap gorm.ErrDuplicatedKey", createErr)
			}
			src.checkDrawn(t, "accounts", 1)
			if h, _ := src.draws(); h != 2 {
				t.Errorf("%d draws, want 2: no retry", h)
			}
			for _, r := range rows {
				if !r.ID.IsZero() {
					t.Errorf("row %s holds %s after ErrKeyTaken; want zero", r.Email, r.ID)
				}
			}
			checkAccount(t, db, taken)
			checkCount(t, db, 1, "accounts", "1 = 1")
		})
	}
}

// audited writes an audit row in BeforeCreate, through the Create's own
// connection: in its transaction when there is one.
type audited struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string
}

type auditRow struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Note string
}

func (a *audited) BeforeCreate(tx *gorm.DB) error {
	return tx.Create(&auditRow{Note: "created " + a.Name}).Error
}

// TestTransactionUndoesHookRows: the audit row written by the hook of an
// attempt that collided is rolled back with it, in every shape; the
// audited row is stored once.
func TestTransactionUndoesHookRows(t *testing.T) {
	t.Parallel()
	for _, shape := range txShapes {
		t.Run(shape.name, func(t *testing.T) {
			t.Parallel()
			src := &keySource{}
			db := openDB(t, &gorm.Config{SkipDefaultTransaction: shape.skip}, src.plugin(0), &audited{}, &auditRow{})
			other := audited{ID: gormtype.NewHUID(), Name: "other"}
			if err := db.Session(&gorm.Session{SkipHooks: true}).Create(&other).Error; err != nil {
				t.Fatal(err)
			}
			src.next(other.ID) // the audited row's key, drawn before its hook
			mine := audited{Name: "mine"}
			err := shape.run(db, func(tx *gorm.DB) error {
				return retried(tx, func(tx *gorm.DB) error { return tx.Create(&mine).Error })
			})
			if err != nil {
				t.Fatalf("Create: %v", err)
			}
			src.checkDrawn(t, "auditeds", 1)
			checkCount(t, db, 1, "auditeds", "id = ? AND name = 'mine'", mine.ID)
			checkCount(t, db, 1, "auditeds", "id = ? AND name = 'other'", other.ID)
			checkCount(t, db, 1, "audit_rows", "note = 'created mine'")
		})
	}
}

// TestTransactionResetsEveryFill: when every attempt collides, Transaction
// returns ErrKeyTaken after Retries reruns, stores nothing of its
// function, and leaves every field AutoID filled in it zero, of the
// statements that succeeded too (the belongs-to buyer, a row created
// before).
func TestTransactionResetsEveryFill(t *testing.T) {
	t.Parallel()
	type mark struct{}
	for _, derived := range []bool{false, true} {
		t.Run(fmt.Sprintf("derived-context=%v", derived), func(t *testing.T) {
			t.Parallel()
			src := &keySource{}
			db := openDB(t, nil, src.plugin(1), purchaseModels...)
			other := Purchase{Name: "other"}
			mustCreate(t, db, &other)
			src.next(0, other.ID, 0, 0, other.ID) // attempt: before@x, purchase, buyer
			before := Account{Email: "before@x"}
			p := Purchase{Name: "p", Buyer: &Account{Email: "buyer@x"}, Lines: []Line{{Item: "l"}}}
			attempts := 0
			err := retried(db, func(tx *gorm.DB) error {
				attempts++
				w := tx
				if derived { // a session with a context derived from tx's
					w = tx.WithContext(context.WithValue(tx.Statement.Context, mark{}, attempts))
				}
				if err := w.Create(&before).Error; err != nil {
					return err
				}
				return tx.Create(&p).Error
			})
			checkRefused(t, err, gormtype.ErrKeyTaken, "purchases", "attempt 2 of 2")
			src.checkDrawn(t, "purchases", 2)
			if attempts != 2 {
				t.Errorf("%d attempts, want 2 (Retries 1)", attempts)
			}
			if !before.ID.IsZero() || !p.ID.IsZero() || !p.Buyer.ID.IsZero() || !p.Lines[0].ID.IsZero() {
				t.Errorf("after ErrKeyTaken: before %s, purchase %s, buyer %s, line %s; want all zero", before.ID, p.ID, p.Buyer.ID, p.Lines[0].ID)
			}
			checkCount(t, db, 0, "accounts", "1 = 1")
			checkCount(t, db, 1, "purchases", "1 = 1")
		})
	}
}

// TestTransactionNeedsAutoID: without the plugin Transaction is ErrSetup.
func TestTransactionNeedsAutoID(t *testing.T) {
	t.Parallel()
	db := openDB(t, nil, nil, &Account{})
	err := gormtype.Transaction(context.Background(), db, func(*gorm.DB) error { return nil })
	checkRefused(t, err, gormtype.ErrSetup, "AutoID")
}

// TestCallerRollbackUndoesRetriedCreate: a Create retried by Transaction
// inside the caller's transaction is undone when the caller rolls back.
func TestCallerRollbackUndoesRetriedCreate(t *testing.T) {
	t.Parallel()
	src := &keySource{}
	db := openDB(t, nil, src.plugin(0), &Account{})
	taken := seedAccount(t, db, "taken@x")
	errRollback := errors.New("roll back")
	err := db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(&Account{Email: "kept@x"}).Error; err != nil {
			return err
		}
		src.next(taken.ID)
		if err := retried(tx, func(tx *gorm.DB) error { return tx.Create(&Account{Email: "inner@x"}).Error }); err != nil {
			return err
		}
		return errRollback
	})
	if err != errRollback {
		t.Fatalf("transaction: %v", err)
	}
	src.checkDrawn(t, "accounts", 1)
	checkCount(t, db, 0, "accounts", "email IN ('inner@x', 'kept@x')")
	checkAccount(t, db, taken)
}

// TestCallerTransactionGoesOnAfterOtherKeyViolation: a violation of the
// email inside the caller's transaction is returned as is; the
// transaction goes on, and what it wrote before and after is committed.
func TestCallerTransactionGoesOnAfterOtherKeyViolation(t *testing.T) {
	t.Parallel()
	db := openDB(t, nil, gormtype.AutoID{}, &Account{})
	taken := seedAccount(t, db, "taken@x")
	err := db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(&Account{Email: "before@x"}).Error; err != nil {
			return err
		}
		if err := tx.Create(&Account{Email: "taken@x"}).Error; err == nil || errors.Is(err, gormtype.ErrKeyTaken) {
			t.Errorf("Create with a taken email: %v; want the driver's violation", err)
		}
		return tx.Create(&Account{Email: "after@x"}).Error
	})
	if err != nil {
		t.Fatalf("transaction: %v", err)
	}
	checkAccount(t, db, taken)
	checkCount(t, db, 3, "accounts", "1 = 1")
}

// TestNoTransactionKeepsStoredRows: without any transaction a Create whose
// key collides after its belongs-to buyer was stored fails with
// ErrKeyTaken; the buyer stays stored and keeps its key, the purchase's
// key is zero again.
func TestNoTransactionKeepsStoredRows(t *testing.T) {
	t.Parallel()
	src := &keySource{}
	db := openDB(t, &gorm.Config{SkipDefaultTransaction: true}, src.plugin(0), purchaseModels...)
	other := Purchase{Name: "other"}
	mustCreate(t, db, &other)
	src.next(other.ID) // the purchase's key, drawn first
	p := Purchase{Name: "mine", Buyer: &Account{Email: "buyer@x"}, Lines: []Line{{Item: "l"}}}
	checkRefused(t, db.Create(&p).Error, gormtype.ErrKeyTaken, "purchases")
	src.checkDrawn(t, "purchases", 1)
	if !p.ID.IsZero() || p.Buyer.ID.IsZero() {
		t.Errorf("purchase %s, buyer %s; want zero and the stored buyer's key", p.ID, p.Buyer.ID)
	}
	checkCount(t, db, 1, "accounts", "id = ? AND email = 'buyer@x'", p.Buyer.ID)
	checkCount(t, db, 1, "purchases", "1 = 1")
}
