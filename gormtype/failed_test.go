package gormtype_test

// Guarantee 3 (NEW): a failed Create leaves the struct's fresh fields zero,
// as before the call: after ErrKeyTaken, and after any other error of the
// Create, every field AutoID filled in a row that was not stored is zero
// again. Without a transaction, rows stored by earlier statements of the
// Create keep their keys. Caller-set values are left as set.

import (
	"errors"
	"fmt"
	"testing"

	"gorm.io/gorm"

	"github.com/sortid/sortid/gormtype"
)

// failCode makes failing's BeforeCreate return errHook.
const failCode = "fail"

// TestFailedCreateLeavesFreshFieldsZero: the key and the unique auto Ref
// of rows whose Create failed are zero again, whatever the error and the
// transaction; a key and a Ref the caller set are kept.
func TestFailedCreateLeavesFreshFieldsZero(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		skip    bool // SkipDefaultTransaction
		inTx    bool // in the caller's transaction
		withSet bool // first a row whose key and Ref the caller set
		rows    func(taken Item) []Item
		queue   int // how many HUID draws return the taken key
		wantErr error
	}{
		{"ErrKeyTaken", false, false, false, func(Item) []Item { return []Item{{Code: "a"}} }, 4, gormtype.ErrKeyTaken},
		{"ErrKeyTaken of a batch", false, false, false, func(Item) []Item { return []Item{{Code: "a"}, {Code: "b"}} }, 8, gormtype.ErrKeyTaken},
		{"ErrKeyTaken in the caller's transaction", false, true, false, func(Item) []Item { return []Item{{Code: "a"}, {Code: "b"}} }, 8, gormtype.ErrKeyTaken},
		{"ErrKeyTaken without a transaction", true, false, false, func(Item) []Item { return []Item{{Code: "a"}, {Code: "b"}} }, 8, gormtype.ErrKeyTaken},
		{"another key taken", false, false, true, func(taken Item) []Item { return []Item{{Code: "b"}, {Code: taken.Code}} }, 0, nil},
		{"another key taken without a transaction", true, false, true, func(taken Item) []Item { return []Item{{Code: taken.Code}} }, 0, nil},
		{"another key taken in the caller's transaction", false, true, true, func(taken Item) []Item { return []Item{{Code: taken.Code}} }, 0, nil},
		// The first row collides on its key; in the second attempt the
		// second row meets the taken Code.
		{"another key taken after a collision", false, false, false, func(taken Item) []Item { return []Item{{Code: "a"}, {Code: taken.Code}} }, 1, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			src := &keySource{}
			db := openDB(t, &gorm.Config{SkipDefaultTransaction: c.skip}, src.plugin(0), &Item{})
			taken := Item{ID: gormtype.NewHUID(), Ref: gormtype.NewSCRU128(), Code: "taken"}
			mustCreate(t, db, &taken)
			rows := c.rows(taken)
			set := Item{ID: gormtype.NewHUID(), Ref: gormtype.NewSCRU128(), Code: "set"}
			if c.withSet {
				rows = append([]Item{set}, rows...)
			}
			queue := make([]gormtype.HUID, c.queue)
			for i := range queue {
				queue[i] = taken.ID
			}
			src.next(queue...)
			create := func(tx *gorm.DB) error { return retried(tx, func(tx *gorm.DB) error { return tx.Create(&rows).Error }) }
			var err error
			if c.inTx {
				_ = db.Transaction(func(tx *gorm.DB) error { err = create(tx); return nil })
			} else {
				err = create(db)
			}
			if err == nil {
				t.Fatal("Create succeeded; want an error")
			}
			if c.wantErr != nil {
				checkRefused(t, err, c.wantErr, "items")
			} else if errors.Is(err, gormtype.ErrKeyTaken) {
				t.Errorf("Create: %v; want the violation of the code, not ErrKeyTaken", err)
			}
			fresh := rows
			if c.withSet {
				if rows[0] != set {
					t.Errorf("the caller's row became %+v, want %+v", rows[0], set)
				}
				fresh = rows[1:]
			}
			for _, r := range fresh {
				if !r.ID.IsZero() || !r.Ref.IsZero() {
					t.Errorf("row %s after the failed Create: ID %s, Ref %s; want both zero, as before the call", r.Code, r.ID, r.Ref)
				}
			}
			checkCount(t, db, 1, "items", "1 = 1")
		})
	}
}

// failing's BeforeCreate fails for the Code failCode.
type failing struct {
	ID   *gormtype.HUID   `gorm:"primaryKey"`
	Ref  gormtype.SCRU128 `sortid:"auto"`
	Code string
}

func (f *failing) BeforeCreate(*gorm.DB) error {
	if f.Code == failCode {
		return errHook
	}
	return nil
}

// TestFailedCreateAfterHookError: a hook's error leaves the key (a nil
// pointer before the call) and the auto field as they were.
func TestFailedCreateAfterHookError(t *testing.T) {
	t.Parallel()
	db := openDB(t, nil, gormtype.AutoID{}, &failing{})
	rows := []failing{{Code: "ok"}, {Code: failCode}}
	if err := db.Create(&rows).Error; !errors.Is(err, errHook) {
		t.Fatalf("Create: %v; want the hook's error", err)
	}
	for _, r := range rows {
		if (r.ID != nil && !r.ID.IsZero()) || !r.Ref.IsZero() {
			t.Errorf("row %s after the failed Create: ID %v, Ref %s; want no key and a zero Ref", r.Code, r.ID, r.Ref)
		}
	}
	checkCount(t, db, 0, "failings", "1 = 1")
}

// TestFailedCreateOfAssociations: when the parent's keys are all taken,
// the fields filled in its belongs-to buyer and in the parent are zero
// again in a transaction (nothing was stored); without one, the buyer,
// stored by an earlier statement, keeps its key.
func TestFailedCreateOfAssociations(t *testing.T) {
	t.Parallel()
	for _, skip := range []bool{false, true} {
		t.Run(fmt.Sprint("SkipDefaultTransaction=", skip), func(t *testing.T) {
			t.Parallel()
			src := &keySource{}
			db := openDB(t, &gorm.Config{SkipDefaultTransaction: skip}, src.plugin(1), purchaseModels...)
			other := Purchase{Name: "other"}
			mustCreate(t, db, &other)
			// The purchase's key is drawn first in every attempt; the
			// buyer's only where it has none.
			src.next(other.ID, 0, other.ID)
			p := Purchase{Name: "p", Buyer: &Account{Email: "buyer@x"}, Lines: []Line{{Item: "l"}},
				Note: &Note{Text: "n"}, Labels: []Label{{Name: "x"}}}
			err := db.Create(&p).Error
			checkRefused(t, err, gormtype.ErrKeyTaken, "purchases")
			if !p.ID.IsZero() || !p.Lines[0].ID.IsZero() || !p.Note.ID.IsZero() || !p.Labels[0].ID.IsZero() {
				t.Errorf("after ErrKeyTaken: purchase %s, line %s, note %s, label %s; want all zero", p.ID, p.Lines[0].ID, p.Note.ID, p.Labels[0].ID)
			}
			checkCount(t, db, 1, "purchases", "1 = 1")
			if !skip {
				if !p.Buyer.ID.IsZero() {
					t.Errorf("buyer key %s after the failed Create in a transaction; want zero", p.Buyer.ID)
				}
				checkCount(t, db, 0, "accounts", "1 = 1")
				return
			}
			if p.Buyer.ID.IsZero() {
				t.Fatalf("the stored buyer's key was reset")
			}
			checkCount(t, db, 1, "accounts", "id = ? AND email = 'buyer@x'", p.Buyer.ID)
		})
	}
}

// TestFailedCreateInBatches: without a transaction the
// batches stored before the one whose keys were all taken keep their keys;
// the rows of that batch and of the batches after it are zero. With
// GORM's transaction nothing is stored and every row is zero.
func TestFailedCreateInBatches(t *testing.T) {
	t.Parallel()
	for _, skip := range []bool{false, true} {
		t.Run(fmt.Sprint("SkipDefaultTransaction=", skip), func(t *testing.T) {
			t.Parallel()
			src := &keySource{}
			db := openDB(t, &gorm.Config{SkipDefaultTransaction: skip}, src.plugin(1), &Account{})
			taken := seedAccount(t, db, "taken@x")
			src.next(0, 0, taken.ID, taken.ID, taken.ID, taken.ID)
			rows := make([]Account, 6)
			for i := range rows {
				rows[i].Email = fmt.Sprintf("%d@x", i)
			}
			err := db.CreateInBatches(&rows, 2).Error
			checkRefused(t, err, gormtype.ErrKeyTaken, "accounts")
			// The first batch succeeded; without a transaction it stays
			// stored, in CreateInBatches' it is rolled back with the
			// transaction after the failed batch, and (like every value
			// GORM wrote back) its keys stay in the rows.
			for i, r := range rows {
				if i < 2 && skip {
					checkFresh(t, db, r, taken)
				} else if i < 2 && (r.ID.IsZero() || r.ID == taken.ID) {
					t.Errorf("row %d of the rolled-back first batch holds %s; want its fresh key", i, r.ID)
				} else if i >= 2 && !r.ID.IsZero() {
					t.Errorf("row %d (not stored) holds key %s; want zero", i, r.ID)
				}
			}
			stored := 0
			if skip {
				stored = 2
			}
			checkCount(t, db, int64(1+stored), "accounts", "1 = 1")
		})
	}
}
