package integration_test

// The transactions suite: in a caller's transaction AutoID retries under a
// savepoint of its own, which it releases, so the transaction goes on and
// keeps the rows written before; a retry undoes what the failed attempt's
// hooks wrote; with retries off it sets no savepoint. A failed Create
// leaves the fields AutoID filled zero, but a transaction that rolls back
// after a Create succeeded leaves its keys in the structs.

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"gorm.io/gorm"

	"github.com/sortid/sortid/gormtype"
)

// txAccount has a unique email and no hooks.
type txAccount struct {
	ID    gormtype.HUID `gorm:"primaryKey"`
	Email string        `gorm:"size:100;uniqueIndex"`
	Name  string        `gorm:"size:50"`
}

func (txAccount) TableName() string { return "tx_accounts" }

// openTxAccounts opens d with AutoID drawing from a takenFirst source and
// an empty tx_accounts table holding one account, "taken@x".
func openTxAccounts(t *testing.T, d gormDialect) (*takenFirst, *gorm.DB, txAccount) {
	t.Helper()
	src := &takenFirst{}
	db := d.open(t, &gorm.Config{}, src.plugin(0))
	resetTables(t, db, &txAccount{})
	return src, db, seedTxAccount(t, db, "taken@x")
}

func seedTxAccount(t *testing.T, db *gorm.DB, email string) txAccount {
	t.Helper()
	a := txAccount{ID: gormtype.NewHUID(), Email: email, Name: "seed"}
	mustCreate(t, db, &a)
	return a
}

// TestGormTransactionNestedRollback: a Create retried after a collision in
// a nested db.Transaction (GORM's savepoint) that then returns an error:
// nothing of it remains, and the outer transaction goes on and commits.
func TestGormTransactionNestedRollback(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src, db, taken := openTxAccounts(t, d)
		err := db.Transaction(func(tx *gorm.DB) error {
			if err := retried(tx, func(tx *gorm.DB) error { return tx.Create(&txAccount{Email: "outer@x"}).Error }); err != nil {
				return err
			}
			errInner := errors.New("inner fails")
			if err := tx.Transaction(func(tx2 *gorm.DB) error {
				src.next(taken.ID)
				if err := retried(tx2, func(tx *gorm.DB) error { return tx.Create(&txAccount{Email: "inner@x"}).Error }); err != nil {
					return err
				}
				return errInner
			}); err != errInner {
				t.Errorf("inner transaction: %v; want its own error", err)
			}
			return retried(tx, func(tx *gorm.DB) error { return tx.Create(&txAccount{Email: "after@x"}).Error })
		})
		if err != nil {
			t.Fatalf("outer transaction: %v", err)
		}
		src.checkDrawn(t)
		var emails []string
		if err := db.Model(&txAccount{}).Order("email").Pluck("email", &emails).Error; err != nil {
			t.Fatal(err)
		}
		if strings.Join(emails, ",") != "after@x,outer@x,taken@x" {
			t.Errorf("accounts %v; want after, outer, taken", emails)
		}
	})
}

// TestGormTransactionPlainCreateAborts: on PostgreSQL a plain Create
// that fails in the caller's transaction leaves it aborted, as plain GORM
// does (AutoID sets no savepoint); in gormtype.Transaction, a savepoint of
// the caller's transaction, it is rolled back and the transaction goes on.
func TestGormTransactionPlainCreateAborts(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		for _, plain := range []bool{true, false} {
			t.Run(fmt.Sprintf("plain=%v", plain), func(t *testing.T) {
				db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
				resetTables(t, db, &txAccount{})
				seedTxAccount(t, db, "dup@x")
				errRollBack := errors.New("roll back")
				err := db.Transaction(func(tx *gorm.DB) error {
					dup := func(tx *gorm.DB) error { return tx.Create(&txAccount{Email: "dup@x"}).Error }
					create := dup
					if !plain {
						create = func(tx *gorm.DB) error { return retried(tx, dup) }
					}
					if err := create(tx); !isUniqueViolation(err) {
						t.Errorf("Create with a taken email: %v; want the unique violation", err)
					}
					err := tx.Create(&txAccount{Email: "next@x"}).Error
					if aborted := err != nil && strings.Contains(err.Error(), "25P02"); aborted != plain {
						t.Errorf("the next Create: %v; want the transaction aborted only after a plain Create", err)
					}
					return errRollBack
				})
				if err != errRollBack {
					t.Errorf("Transaction: %v; want the body's error", err)
				}
				checkCount(t, db, 1, "tx_accounts", "1 = 1")
			})
		}
	}, "postgres")
}

// TestGormTransactionRetryKeepsEarlierRows: a collision in the middle of
// a caller's transaction, in a CreateInBatches after a Create, is retried
// under a savepoint: the rows written before it stay, and every row is
// stored once.
func TestGormTransactionRetryKeepsEarlierRows(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src, db, taken := openTxAccounts(t, d)
		before := txAccount{Email: "before@x"}
		batch := []txAccount{{Email: "b1@x"}, {Email: "b2@x"}, {Email: "b3@x"}}
		err := db.Transaction(func(tx *gorm.DB) error {
			if err := retried(tx, func(tx *gorm.DB) error { return tx.Create(&before).Error }); err != nil {
				return err
			}
			src.next(0, 0, taken.ID) // the second batch collides
			return retried(tx, func(tx *gorm.DB) error { return tx.CreateInBatches(&batch, 2).Error })
		})
		if err != nil {
			t.Fatalf("transaction with a collision: %v", err)
		}
		src.checkDrawn(t)
		for _, a := range append(batch, before) {
			if a.ID == taken.ID {
				t.Errorf("%s kept the taken key", a.Email)
			}
			checkStored(t, db, a.ID, a)
		}
		checkCount(t, db, 5, "tx_accounts", "1 = 1")
	})
}

// txHooked's BeforeCreate writes an audit row with the key it sees,
// through the hook's tx.
type txHooked struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string        `gorm:"size:50"`
}

func (txHooked) TableName() string { return "tx_hooked" }

func (h *txHooked) BeforeCreate(tx *gorm.DB) error {
	return retried(tx, func(tx *gorm.DB) error { return tx.Create(&txAudit{Ref: h.ID}).Error })
}

type txAudit struct {
	Seq int64         `gorm:"primaryKey;autoIncrement"`
	Ref gormtype.HUID // not a key: AutoID leaves it alone
}

func (txAudit) TableName() string { return "tx_audit" }

// TestGormTransactionHookWritesUndone: Transaction undoes what the failed
// attempt's hooks wrote, alone, in a caller's transaction and with
// SkipDefaultTransaction (it opens one itself).
func TestGormTransactionHookWritesUndone(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		for _, mode := range []string{"gorm-tx", "caller-tx", "no-tx"} {
			t.Run(mode, func(t *testing.T) {
				src := &takenFirst{}
				db := d.open(t, &gorm.Config{SkipDefaultTransaction: mode == "no-tx"}, src.plugin(0))
				resetTables(t, db, &txHooked{}, &txAudit{})
				taken := gormtype.NewHUID()
				// Seeded without the hook: the audit table starts empty.
				mustExecArgs(t, db, "INSERT INTO tx_hooked (id, name) VALUES (?, 'other')", taken)
				src.next(taken)
				h := txHooked{Name: "mine"}
				var err error
				if mode == "caller-tx" {
					err = db.Transaction(func(tx *gorm.DB) error { return retried(tx, func(tx *gorm.DB) error { return tx.Create(&h).Error }) })
				} else {
					err = retried(db, func(tx *gorm.DB) error { return tx.Create(&h).Error })
				}
				if err != nil {
					t.Fatalf("Create with a taken key: %v", err)
				}
				src.checkDrawn(t)
				if h.ID == taken {
					t.Fatalf("stored under the taken key")
				}
				checkNamed(t, db, "tx_hooked", taken, "other")
				checkNamed(t, db, "tx_hooked", h.ID, "mine")
				var refs []gormtype.HUID
				if err := db.Model(&txAudit{}).Order("seq").Pluck("ref", &refs).Error; err != nil {
					t.Fatal(err)
				}
				want := []gormtype.HUID{h.ID} // Transaction opens one even with SkipDefaultTransaction
				if !reflect.DeepEqual(refs, want) {
					t.Errorf("audit refs %v, want %v (taken %s, stored %s)", refs, want, taken, h.ID)
				}
			})
		}
	})
}

// txInv has a fresh field besides its key and a unique email.
type txInv struct {
	ID    gormtype.HUID    `gorm:"primaryKey"`
	Trace gormtype.SCRU128 `sortid:"auto"`
	Email string           `gorm:"size:100;uniqueIndex"`
}

func (txInv) TableName() string { return "tx_invs" }

// checkZero checks that the fields AutoID filled in rows are zero.
func checkZero(t *testing.T, step string, rows ...txInv) {
	t.Helper()
	for _, r := range rows {
		if !r.ID.IsZero() || !r.Trace.IsZero() {
			t.Errorf("%s: %s holds ID %s, Trace %s; want both zero, as before the call", step, r.Email, r.ID, r.Trace)
		}
	}
}

// checkKept checks that rows hold the keys their Create filled.
func checkKept(t *testing.T, step string, rows ...txInv) {
	t.Helper()
	for _, r := range rows {
		if r.ID.IsZero() || r.Trace.IsZero() {
			t.Errorf("%s: %s holds ID %s, Trace %s; want the ones its Create filled", step, r.Email, r.ID, r.Trace)
		}
	}
}

// TestGormTransactionFailedCreate: a Create that fails on another unique
// key leaves its fresh fields zero, without a transaction, in GORM's and
// in a caller's; CreateInBatches whose second batch fails leaves that
// batch zero, and the first keeps its keys: stored without a transaction,
// rolled back with GORM's. A caller's transaction that rolls back after
// its Create succeeded leaves the keys in the struct; no row is stored.
func TestGormTransactionFailedCreate(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		for _, skip := range []bool{false, true} {
			t.Run(fmt.Sprintf("SkipDefaultTransaction=%v", skip), func(t *testing.T) {
				db := d.open(t, &gorm.Config{SkipDefaultTransaction: skip}, gormtype.AutoID{})
				resetTables(t, db, &txInv{})
				taken := txInv{ID: gormtype.NewHUID(), Trace: gormtype.NewSCRU128(), Email: "taken@x"}
				mustCreate(t, db, &taken)

				one := txInv{Email: "taken@x"}
				if err := retried(db, func(tx *gorm.DB) error { return tx.Create(&one).Error }); !isUniqueViolation(err) {
					t.Errorf("Create with a taken email: %v; want the unique violation", err)
				}
				checkZero(t, "failed Create", one)
				inTx := txInv{Email: "taken@x"}
				_ = db.Transaction(func(tx *gorm.DB) error {
					if err := retried(tx, func(tx *gorm.DB) error { return tx.Create(&inTx).Error }); !isUniqueViolation(err) {
						t.Errorf("Create with a taken email in a caller's transaction: %v; want the unique violation", err)
					}
					return nil
				})
				checkZero(t, "failed Create in a caller's transaction", inTx)

				rows := []txInv{{Email: "a@x"}, {Email: "b@x"}, {Email: "c@x"}, {Email: "taken@x"}}
				if err := db.CreateInBatches(&rows, 2).Error; !isUniqueViolation(err) {
					t.Errorf("CreateInBatches with a taken email in the second batch: %v; want the unique violation", err)
				}
				checkZero(t, "the failed batch", rows[2:]...)
				checkKept(t, "the batch before", rows[:2]...)
				if skip {
					checkStored(t, db, rows[0].ID, rows[0])
					checkStored(t, db, rows[1].ID, rows[1])
					checkCount(t, db, 3, "tx_invs", "1 = 1")
				} else {
					checkCount(t, db, 1, "tx_invs", "1 = 1")
				}

				errRollBack := errors.New("roll back")
				kept := txInv{Email: "kept@x"}
				err := db.Transaction(func(tx *gorm.DB) error {
					if err := retried(tx, func(tx *gorm.DB) error { return tx.Create(&kept).Error }); err != nil {
						t.Errorf("Create in a caller's transaction: %v", err)
					}
					return errRollBack
				})
				if err != errRollBack {
					t.Errorf("Transaction: %v; want the body's error", err)
				}
				checkKept(t, "Create, then the caller's rollback", kept)
				checkCount(t, db, 0, "tx_invs", "email = 'kept@x'")
				checkStored(t, db, taken.ID, taken)
			})
		}
	})
}
