package gormtype_test

// Guarantee 2 in every transaction shape: GORM's default transaction, the
// caller's db.Transaction (AutoID undoes an attempt to a savepoint),
// nested transactions, CreateInBatches, and SkipDefaultTransaction without
// any transaction. Inside a transaction the rows a hook wrote in a failed
// attempt are undone; without one they stay.

import (
	"errors"
	"fmt"
	"testing"

	"gorm.io/gorm"

	"github.com/sortid/sortid/gormtype"
)

// txShape runs create the way a caller does, and reports its error.
type txShape struct {
	name string
	skip bool // gorm.Config.SkipDefaultTransaction
	run  func(db *gorm.DB, create func(*gorm.DB) error) error
}

var txShapes = []txShape{
	{"GORM's transaction", false, func(db *gorm.DB, create func(*gorm.DB) error) error { return create(db) }},
	{"caller's Transaction", false, func(db *gorm.DB, create func(*gorm.DB) error) error { return db.Transaction(create) }},
	{"nested Transaction", false, func(db *gorm.DB, create func(*gorm.DB) error) error {
		return db.Transaction(func(tx *gorm.DB) error { return tx.Transaction(create) })
	}},
	{"Begin and Commit", false, func(db *gorm.DB, create func(*gorm.DB) error) error {
		tx := db.Begin()
		if err := create(tx); err != nil {
			tx.Rollback()
			return err
		}
		return tx.Commit().Error
	}},
	{"caller's Transaction without default ones", true, func(db *gorm.DB, create func(*gorm.DB) error) error {
		return db.Transaction(create)
	}},
	{"no transaction", true, func(db *gorm.DB, create func(*gorm.DB) error) error { return create(db) }},
}

// TestRetryInEveryTransactionShape: a Create and a CreateInBatches whose
// keys collide once succeed in every shape; the taken rows are untouched
// and each new row is stored once under a fresh key.
func TestRetryInEveryTransactionShape(t *testing.T) {
	t.Parallel()
	for _, shape := range txShapes {
		for _, batches := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/batches=%v", shape.name, batches), func(t *testing.T) {
				t.Parallel()
				src := &keySource{}
				db := openDB(t, &gorm.Config{SkipDefaultTransaction: shape.skip}, src.plugin(0), &Account{})
				t1, t2 := seedAccount(t, db, "t1@x"), seedAccount(t, db, "t2@x")
				rows := []Account{{Email: "a@x"}, {Email: "b@x"}, {Email: "c@x"}}
				var err error
				if batches {
					// The second batch draws t2's key first.
					src.next(t1.ID, 0, t2.ID)
					err = shape.run(db, func(tx *gorm.DB) error { return tx.CreateInBatches(&rows, 2).Error })
				} else {
					src.next(t1.ID)
					err = shape.run(db, func(tx *gorm.DB) error { return tx.Create(&rows).Error })
				}
				if err != nil {
					t.Fatalf("Create with a taken key: %v", err)
				}
				want := 1
				if batches {
					want = 2
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

// TestKeyTakenInEveryTransactionShape: when every key drawn is taken, the
// Create fails with ErrKeyTaken in every shape and stores none of its
// rows; a caller's transaction goes on and commits what else it wrote.
func TestKeyTakenInEveryTransactionShape(t *testing.T) {
	t.Parallel()
	for _, shape := range txShapes {
		t.Run(shape.name, func(t *testing.T) {
			t.Parallel()
			src := &keySource{}
			db := openDB(t, &gorm.Config{SkipDefaultTransaction: shape.skip}, src.plugin(1), &Account{})
			taken := seedAccount(t, db, "taken@x")
			var createErr error
			err := shape.run(db, func(tx *gorm.DB) error {
				if err := tx.Create(&Account{Email: "before@x"}).Error; err != nil {
					return err
				}
				src.next(taken.ID, taken.ID, taken.ID, taken.ID)
				createErr = tx.Create(&[]Account{{Email: "a@x"}, {Email: "b@x"}}).Error
				src.mu.Lock()
				src.huids = nil
				src.mu.Unlock()
				if !errors.Is(createErr, gormtype.ErrKeyTaken) {
					return createErr
				}
				return tx.Create(&Account{Email: "after@x"}).Error
			})
			checkRefused(t, createErr, gormtype.ErrKeyTaken, "accounts")
			if err != nil {
				t.Fatalf("the caller's work after ErrKeyTaken: %v", err)
			}
			if h, _ := src.draws(); h != 4+1 {
				t.Errorf("%d draws, want 2 rows × 2 attempts + 1 for after@x", h)
			}
			checkAccount(t, db, taken)
			checkCount(t, db, 0, "accounts", "email IN ('a@x', 'b@x')")
			checkCount(t, db, 1, "accounts", "email = 'before@x'")
			checkCount(t, db, 1, "accounts", "email = 'after@x'")
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

// TestRetryUndoesHookRowsInTransactions: the audit row written by the hook
// of an attempt that collided is undone with it in a transaction; without
// one it stays. The audited row is stored once either way.
func TestRetryUndoesHookRowsInTransactions(t *testing.T) {
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
			// The first draw is the audited row's key, before its hook.
			src.next(other.ID)
			mine := audited{Name: "mine"}
			if err := shape.run(db, func(tx *gorm.DB) error { return tx.Create(&mine).Error }); err != nil {
				t.Fatalf("Create: %v", err)
			}
			src.checkDrawn(t, "auditeds", 1)
			checkCount(t, db, 1, "auditeds", "id = ? AND name = 'mine'", mine.ID)
			checkCount(t, db, 1, "auditeds", "id = ? AND name = 'other'", other.ID)
			want := int64(1)
			if shape.name == "no transaction" {
				want = 2 // the failed attempt's audit row stays
			}
			checkCount(t, db, want, "audit_rows", "note = 'created mine'")
		})
	}
}

// TestCallerRollbackUndoesRetriedCreate: a Create retried after a
// collision inside the caller's transaction is undone when the caller
// rolls back, in an outer transaction and in a nested one.
func TestCallerRollbackUndoesRetriedCreate(t *testing.T) {
	t.Parallel()
	src := &keySource{}
	db := openDB(t, nil, src.plugin(0), &Account{})
	taken := seedAccount(t, db, "taken@x")
	errRollback := errors.New("roll back")
	err := db.Transaction(func(tx *gorm.DB) error {
		src.next(taken.ID)
		if err := tx.Create(&Account{Email: "outer@x"}).Error; err != nil {
			return err
		}
		return errRollback
	})
	if err != errRollback {
		t.Fatalf("transaction: %v", err)
	}
	src.checkDrawn(t, "accounts", 1)
	checkCount(t, db, 0, "accounts", "email = 'outer@x'")

	err = db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(&Account{Email: "kept@x"}).Error; err != nil {
			return err
		}
		if err := tx.Transaction(func(inner *gorm.DB) error {
			src.next(taken.ID)
			if err := inner.Create(&Account{Email: "inner@x"}).Error; err != nil {
				return err
			}
			return errRollback
		}); err != errRollback {
			return fmt.Errorf("inner transaction: %w", err)
		}
		return tx.Create(&Account{Email: "after@x"}).Error
	})
	if err != nil {
		t.Fatalf("outer transaction: %v", err)
	}
	src.checkDrawn(t, "accounts", 1)
	checkCount(t, db, 0, "accounts", "email = 'inner@x'")
	checkCount(t, db, 1, "accounts", "email IN ('kept@x')")
	checkCount(t, db, 1, "accounts", "email IN ('after@x')")
	checkAccount(t, db, taken)
}

// TestCallerTransactionGoesOnAfterOtherKeyViolation: a violation of the
// email inside the caller's transaction is returned as is; the
// transaction goes on, and what it wrote before and after is committed.
func TestCallerTransactionGoesOnAfterOtherKeyViolation(t *testing.T) {
	t.Parallel()
	for _, retries := range []int{0, -1} {
		t.Run(fmt.Sprint("Retries=", retries), func(t *testing.T) {
			t.Parallel()
			db := openDB(t, nil, gormtype.AutoID{Retries: retries}, &Account{})
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
		})
	}
}

// TestNoTransactionStoresEveryRowOnce: without any transaction, a batch
// of CreateInBatches that collides after earlier batches were stored, and
// an order whose key collides after its belongs-to buyer was stored, are
// retried without storing a row twice; the order points at its buyer.
func TestNoTransactionStoresEveryRowOnce(t *testing.T) {
	t.Parallel()
	src := &keySource{}
	db := openDB(t, &gorm.Config{SkipDefaultTransaction: true}, src.plugin(0), purchaseModels...)
	taken := seedAccount(t, db, "taken@x")
	rows := make([]Account, 5)
	for i := range rows {
		rows[i].Email = fmt.Sprintf("%c@x", 'a'+i)
	}
	src.next(0, 0, taken.ID)
	if err := db.CreateInBatches(&rows, 2).Error; err != nil {
		t.Fatalf("CreateInBatches: %v", err)
	}
	src.checkDrawn(t, "accounts", 1)
	for _, r := range rows {
		checkFresh(t, db, r, taken)
	}
	other := Purchase{Name: "other"}
	mustCreate(t, db, &other)
	// The purchase's key, drawn first, is taken; its buyer is stored before
	// the purchase's INSERT fails.
	src.next(other.ID)
	p := Purchase{Name: "mine", Buyer: &Account{Email: "buyer@x"}, Lines: []Line{{Item: "l"}}}
	if err := db.Create(&p).Error; err != nil {
		t.Fatalf("Create: %v", err)
	}
	src.checkDrawn(t, "purchases", 1)
	checkCount(t, db, 1, "accounts", "email = 'buyer@x'")
	checkFresh(t, db, *p.Buyer)
	var stored Purchase
	if err := db.First(&stored, "id = ?", p.ID).Error; err != nil || stored.BuyerID != nullHUID(p.Buyer.ID) || p.BuyerID != stored.BuyerID {
		t.Errorf("stored purchase %+v (%v); want it to point at buyer %s", stored, err, p.Buyer.ID)
	}
	if p.ID == other.ID {
		t.Errorf("purchase kept the taken key")
	}
	checkCount(t, db, 1, "lines", "purchase_id = ? AND id = ?", p.ID, p.Lines[0].ID)
	checkCount(t, db, 1, "purchases", "id = ? AND name = 'other'", other.ID)
}
