package integration_test

// The upsert suite: an upsert AutoID allows (PostgreSQL, SQLite) updates
// the stored row under its key, and the struct then holds that row's key
// and fresh sortid:"auto" columns; the forms it cannot keep from touching
// another row are refused (see also gorm_refuse_test.go), on MySQL every
// ON DUPLICATE KEY UPDATE with a fresh value.

import (
	"testing"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/sortid/sortid/gormtype"
)

// upsertAccount has a unique email and no hooks.
type upsertAccount struct {
	ID    gormtype.HUID `gorm:"primaryKey"`
	Email string        `gorm:"size:100;uniqueIndex"`
	Name  string        `gorm:"size:50"`
}

func (upsertAccount) TableName() string { return "upsert_accounts" }

// TestGormUpsertSingleRow: the everyday upsert of one struct on a taken
// email, with no key collision, in every form: allowed, it updates the
// stored row and the struct holds its key; refused, nothing changes.
func TestGormUpsertSingleRow(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		for _, u := range upsertForms {
			t.Run(u.name, func(t *testing.T) {
				resetTables(t, db, &upsertAccount{})
				existing := upsertAccount{ID: gormtype.NewHUID(), Email: "old@x", Name: "seed"}
				mustCreate(t, db, &existing)
				a := upsertAccount{Email: "old@x", Name: "renamed"}
				err := retried(db, func(tx *gorm.DB) error { return tx.Clauses(u.oc).Create(&a).Error })
				checkCount(t, db, 1, "upsert_accounts", "1 = 1")
				if !upsertAllowed(d.name, u.oc, 1) {
					checkRefused(t, err, gormtype.ErrRefused, "upsert_accounts", "NewHUID")
					checkStored(t, db, existing.ID, existing)
					if !a.ID.IsZero() {
						t.Errorf("the refused Create left the fresh key %s; want zero", a.ID)
					}
					return
				}
				if err != nil {
					t.Fatalf("upsert of one row on a taken email: %v", err)
				}
				want := existing
				if !u.oc.DoNothing {
					want.Name = "renamed"
				}
				checkStored(t, db, existing.ID, want)
				if a.ID != existing.ID {
					t.Errorf("the upserted struct holds key %s; the stored row is %s", a.ID, existing.ID)
				}
			})
		}
	})
}

// upsertInv has a fresh column besides its key, not unique.
type upsertInv struct {
	ID    gormtype.HUID    `gorm:"primaryKey"`
	Trace gormtype.SCRU128 `sortid:"auto"`
	Email string           `gorm:"size:100;uniqueIndex"`
	Name  string           `gorm:"size:50"`
}

func (upsertInv) TableName() string { return "upsert_invs" }

// TestGormUpsertReadsBackStoredRow: after an upsert on email updated the
// stored row, its struct holds that row's key and Trace, not the fresh
// ones no row has; the stored Trace is unchanged. Of two rows, the new
// row's struct holds what was stored for it. On MariaDB the upsert is
// refused, naming FirstOrCreate.
func TestGormUpsertReadsBackStoredRow(t *testing.T) {
	onDoUpdates := clause.OnConflict{Columns: []clause.Column{{Name: "email"}}, DoUpdates: clause.AssignmentColumns([]string{"name"})}
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		forms := []struct {
			name string
			oc   clause.OnConflict
		}{{"EmailDoUpdates", onDoUpdates}}
		if d.name == "mysql" { // ON DUPLICATE KEY UPDATE fires on the key too
			a := upsertInv{Email: "a@x", Name: "renamed"}
			for _, oc := range []clause.OnConflict{onDoUpdates, {DoNothing: true}} {
				checkRefused(t, db.Clauses(oc).Create(&a).Error, gormtype.ErrRefused, "FirstOrCreate")
			}
			return
		}
		for _, f := range forms {
			t.Run(f.name, func(t *testing.T) {
				resetTables(t, db, &upsertInv{})
				stored := upsertInv{Email: "a@x", Name: "seed"}
				mustCreate(t, db, &stored)
				a := upsertInv{Email: "a@x", Name: "renamed"}
				if err := retried(db, func(tx *gorm.DB) error { return tx.Clauses(f.oc).Create(&a).Error }); err != nil {
					t.Fatalf("upsert on a taken email: %v", err)
				}
				want := stored
				if !f.oc.DoNothing {
					want.Name = "renamed"
				}
				checkStored(t, db, stored.ID, want)
				if a.ID != stored.ID || a.Trace != stored.Trace {
					t.Errorf("the upserted struct holds key %s, Trace %s; the stored row %s, %s", a.ID, a.Trace, stored.ID, stored.Trace)
				}
				checkCount(t, db, 1, "upsert_invs", "1 = 1")
			})
		}
		if d.name == "mysql" {
			return // several rows: refused (gorm_retry_test.go's Upsert*/2Rows)
		}
		t.Run("TwoRows", func(t *testing.T) {
			resetTables(t, db, &upsertInv{})
			old := upsertInv{Email: "old@x", Name: "old"}
			mustCreate(t, db, &old)
			rows := []upsertInv{{Email: "old@x", Name: "renamed"}, {Email: "new@x", Name: "new"}}
			if err := retried(db, func(tx *gorm.DB) error { return tx.Clauses(onDoUpdates).Create(&rows).Error }); err != nil {
				t.Fatalf("upsert: %v", err)
			}
			want := old
			want.Name = "renamed"
			checkStored(t, db, old.ID, want)
			if rows[0] != want {
				t.Errorf("the struct of the updated row %+v; the stored row %+v", rows[0], want)
			}
			if rows[1].ID.IsZero() || rows[1].ID == old.ID || rows[1].Trace.IsZero() || rows[1].Trace == old.Trace {
				t.Errorf("the new row's struct %+v: want fresh key and Trace", rows[1])
			}
			checkStored(t, db, rows[1].ID, rows[1])
			checkCount(t, db, 2, "upsert_invs", "1 = 1")
		})
	})
}

// upsertOwner has a unique email and has-many pets; its tables are
// migrated without foreign-key constraints, as many schemas are.
type upsertOwner struct {
	ID    gormtype.HUID `gorm:"primaryKey"`
	Email string        `gorm:"size:100;uniqueIndex"`
	Name  string        `gorm:"size:50"`
	Pets  []upsertPet   `gorm:"foreignKey:OwnerID"`
}

func (upsertOwner) TableName() string { return "upsert_owners" }

type upsertPet struct {
	ID      gormtype.HUID `gorm:"primaryKey"`
	OwnerID gormtype.HUID `gorm:"index"`
	Name    string        `gorm:"size:50"`
}

func (upsertPet) TableName() string { return "upsert_pets" }

// TestGormUpsertAssociationsOfStoredRow: the single-row upsert of an owner
// with a new pet on a taken email is refused, with nothing stored: on
// MySQL (ON DUPLICATE KEY UPDATE fires on the key too) naming
// FirstOrCreate, elsewhere (DO NOTHING may skip the row) DoUpdates.
func TestGormUpsertAssociationsOfStoredRow(t *testing.T) {
	cases := map[string][]clause.OnConflict{
		"mysql":    {{UpdateAll: true}, {DoNothing: true}},
		"postgres": {{Columns: []clause.Column{{Name: "email"}}, DoNothing: true}},
		"sqlite":   {{Columns: []clause.Column{{Name: "email"}}, DoNothing: true}},
	}
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{DisableForeignKeyConstraintWhenMigrating: true}, gormtype.AutoID{})
		for _, oc := range cases[d.name] {
			name := "UpdateAll"
			if oc.DoNothing {
				name = "DoNothing"
			}
			t.Run(name, func(t *testing.T) {
				resetTables(t, db, &upsertOwner{}, &upsertPet{})
				old := upsertOwner{ID: gormtype.NewHUID(), Email: "old@x", Name: "seed"}
				mustCreate(t, db, &old)
				o := upsertOwner{Email: "old@x", Name: "renamed", Pets: []upsertPet{{Name: "rex"}}}
				err := retried(db, func(tx *gorm.DB) error { return tx.Clauses(oc).Create(&o).Error })
				if d.name == "mysql" {
					checkRefused(t, err, gormtype.ErrRefused, "upsert_owners", "FirstOrCreate")
				} else {
					checkRefused(t, err, gormtype.ErrRefused, "upsert_owners", "DoUpdates")
				}
				checkCount(t, db, 0, "upsert_pets", "1 = 1")
				checkCount(t, db, 1, "upsert_owners", "id = ? AND email = 'old@x' AND name = 'seed'", old.ID)
				checkCount(t, db, 1, "upsert_owners", "1 = 1")
			})
		}
	})
}

// upsertItem has a key and a second auto-filled unique column.
type upsertItem struct {
	ID   gormtype.HUID    `gorm:"primaryKey"`
	Ref  gormtype.SCRU128 `gorm:"uniqueIndex" sortid:"auto"`
	Name string           `gorm:"size:50"`
}

func (upsertItem) TableName() string { return "upsert_items" }

// TestGormUpsertOnFreshColumn: Ref is filled by AutoID; an upsert on Ref
// must not update another row because of a fresh value: refused on every
// dialect, naming the way out; the other row is untouched.
func TestGormUpsertOnFreshColumn(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src := &takenFirst{}
		db := d.open(t, &gorm.Config{}, src.plugin(0))
		resetTables(t, db, &upsertItem{})
		other := upsertItem{Name: "other"}
		mustCreate(t, db, &other)
		mine := upsertItem{Name: "mine"}
		upsert := clause.OnConflict{Columns: []clause.Column{{Name: "ref"}}, DoUpdates: clause.AssignmentColumns([]string{"name"})}
		wayOut := map[bool]string{true: "FirstOrCreate", false: "aim it at another unique column"}[d.name == "mysql"]
		checkRefused(t, retried(db, func(tx *gorm.DB) error { return tx.Clauses(upsert).Create(&mine).Error }), gormtype.ErrRefused, "upsert_items", "ref", wayOut)
		checkStored(t, db, other.ID, other)
		checkCount(t, db, 1, "upsert_items", "1 = 1")
	})
}
