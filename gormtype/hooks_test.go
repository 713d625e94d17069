package gormtype_test

// Guarantees 1 and 2 for hooks: AutoID fills before the hooks of every
// Create, so they see the keys; a Create retried by Transaction runs
// BeforeSave and BeforeCreate again with the new keys, so what they derive
// from the key matches the stored key.

import (
	"errors"
	"testing"

	"gorm.io/gorm"

	"github.com/sortid/sortid/gormtype"
)

// hooked records the keys its hooks saw.
type hooked struct {
	ID    gormtype.HUID    `gorm:"primaryKey"`
	Ref   gormtype.SCRU128 `sortid:"auto"`
	Name  string
	Slug  string // "<ID>/<Ref>", set by BeforeCreate
	fail  bool
	calls *hookCalls
}

type hookCalls struct {
	beforeSave, beforeCreate, afterCreate, afterSave []string
}

var errHook = errors.New("the hook refuses")

func (h *hooked) seen() string { return h.ID.String() + "/" + h.Ref.String() }

func (h *hooked) BeforeSave(*gorm.DB) error {
	h.calls.beforeSave = append(h.calls.beforeSave, h.seen())
	return nil
}

func (h *hooked) BeforeCreate(*gorm.DB) error {
	h.calls.beforeCreate = append(h.calls.beforeCreate, h.seen())
	if h.fail {
		return errHook
	}
	h.Slug = h.seen()
	return nil
}

func (h *hooked) AfterCreate(*gorm.DB) error {
	h.calls.afterCreate = append(h.calls.afterCreate, h.seen())
	return nil
}

func (h *hooked) AfterSave(*gorm.DB) error {
	h.calls.afterSave = append(h.calls.afterSave, h.seen())
	return nil
}

// TestHooksSeeFilledKeys: every hook of a Create, Save or FirstOrCreate
// sees the filled key and auto field, and what BeforeCreate derives from
// them is stored.
func TestHooksSeeFilledKeys(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		create func(db *gorm.DB, h *hooked) error
	}{
		{"Create", func(db *gorm.DB, h *hooked) error { return db.Create(h).Error }},
		{"Save", func(db *gorm.DB, h *hooked) error { return db.Save(h).Error }},
		{"FirstOrCreate", func(db *gorm.DB, h *hooked) error { return db.Where(hooked{Name: "h"}).FirstOrCreate(h).Error }},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			db := openDB(t, nil, gormtype.AutoID{}, &hooked{})
			h := hooked{Name: "h", calls: &hookCalls{}}
			if err := c.create(db, &h); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if h.ID.IsZero() || h.Ref.IsZero() {
				t.Fatalf("not filled: %+v", h)
			}
			want := h.seen()
			for name, seen := range map[string][]string{"BeforeSave": h.calls.beforeSave, "BeforeCreate": h.calls.beforeCreate, "AfterCreate": h.calls.afterCreate, "AfterSave": h.calls.afterSave} {
				if len(seen) != 1 || seen[0] != want {
					t.Errorf("%s saw %v; want once %s", name, seen, want)
				}
			}
			checkCount(t, db, 1, "hookeds", "id = ? AND ref = ? AND slug = ?", h.ID, h.Ref, want)
		})
	}
}

// TestRetryRunsHooksAgain: after a collision the Before hooks run again
// and see the new key and auto field; the After hooks run once, for the
// stored row; the stored Slug is derived from the stored key.
func TestRetryRunsHooksAgain(t *testing.T) {
	t.Parallel()
	for _, inTx := range []bool{false, true} {
		t.Run(map[bool]string{false: "GORM's transaction", true: "caller's transaction"}[inTx], func(t *testing.T) {
			t.Parallel()
			src := &keySource{}
			db := openDB(t, nil, src.plugin(0), &hooked{})
			other := hooked{Name: "other", calls: &hookCalls{}}
			mustCreate(t, db, &other)
			src.next(other.ID, other.ID)
			h := hooked{Name: "mine", calls: &hookCalls{}}
			create := func(tx *gorm.DB) error { return retried(tx, func(tx *gorm.DB) error { return tx.Create(&h).Error }) }
			var err error
			if inTx {
				err = db.Transaction(create)
			} else {
				err = create(db)
			}
			if err != nil {
				t.Fatalf("Create: %v", err)
			}
			src.checkDrawn(t, "hookeds", 2)
			want := h.seen()
			if len(h.calls.beforeCreate) != 3 || len(h.calls.beforeSave) != 3 {
				t.Fatalf("BeforeCreate ran %d times, BeforeSave %d; want 3 each (two collisions)", len(h.calls.beforeCreate), len(h.calls.beforeSave))
			}
			for i, seen := range h.calls.beforeCreate {
				if (i < 2) != (seen[:len(other.ID.String())] == other.ID.String()) {
					t.Errorf("BeforeCreate call %d saw %s; the taken key is %s", i+1, seen, other.ID)
				}
			}
			if h.calls.beforeCreate[2] != want || h.calls.beforeSave[2] != want {
				t.Errorf("the last Before hooks saw %s and %s; want the stored %s", h.calls.beforeCreate[2], h.calls.beforeSave[2], want)
			}
			if len(h.calls.afterCreate) != 1 || h.calls.afterCreate[0] != want || len(h.calls.afterSave) != 1 {
				t.Errorf("After hooks saw %v, %v; want once %s", h.calls.afterCreate, h.calls.afterSave, want)
			}
			if h.Slug != want {
				t.Errorf("Slug %s, want %s", h.Slug, want)
			}
			checkCount(t, db, 1, "hookeds", "id = ? AND ref = ? AND slug = ?", h.ID, h.Ref, want)
			checkCount(t, db, 1, "hookeds", "id = ? AND name = 'other'", other.ID)
		})
	}
}

// TestHookErrorIsNotRetried: a Before hook's error ends the Create with
// that error after one draw, storing nothing.
func TestHookErrorIsNotRetried(t *testing.T) {
	t.Parallel()
	src := &keySource{}
	db := openDB(t, nil, src.plugin(0), &hooked{})
	src.next()
	h := hooked{Name: "fails", fail: true, calls: &hookCalls{}}
	if err := db.Create(&h).Error; !errors.Is(err, errHook) {
		t.Errorf("Create: %v; want the hook's error", err)
	}
	if hd, sd := src.draws(); hd != 1 || sd != 1 || len(h.calls.beforeCreate) != 1 {
		t.Errorf("%d HUIDs, %d SCRU128s drawn, BeforeCreate ran %d times; want 1 each", hd, sd, len(h.calls.beforeCreate))
	}
	checkCount(t, db, 0, "hookeds", "1 = 1")
}

// TestAssociationHooksSeeFilledKeys: the hooks of a belongs-to record and
// of a row created through Association see their keys, also after the
// parent's key collided.
func TestAssociationHooksSeeFilledKeys(t *testing.T) {
	t.Parallel()
	src := &keySource{}
	db := openDB(t, nil, src.plugin(0), purchaseModels...)
	other := Purchase{Name: "other"}
	mustCreate(t, db, &other)
	src.next(other.ID)
	p := Purchase{Name: "p", Buyer: &Account{Email: "buyer@x"}}
	if err := retried(db, func(tx *gorm.DB) error { return tx.Create(&p).Error }); err != nil {
		t.Fatalf("Create: %v", err)
	}
	src.checkDrawn(t, "purchases", 1)
	checkFresh(t, db, *p.Buyer)
	checkCount(t, db, 1, "accounts", "1 = 1")
	a := Account{Email: "a@x"}
	if err := db.Model(&Purchase{ID: p.ID}).Association("Buyer").Replace(&a); err != nil {
		t.Fatalf("Association Replace: %v", err)
	}
	checkFresh(t, db, a)
}
