package integration_test

// The zero suite: the zero value of a gormtype ID type means "not set" and
// is never stored. A statement binding it fails with ErrZeroID naming the
// type and the ways out, a key left zero without AutoID included, and so
// does a Save that would write a zero field over a stored ID; the stored
// row is unchanged, and the way out (Updates) works.

import (
	"testing"

	"gorm.io/gorm"

	"github.com/sortid/sortid/gormtype"
)

// TestGormZeroKeyWithoutPlugin: a zero gormtype key without AutoID would
// be stored as 0: the Create fails with ErrZeroID naming the type and
// db.Use(gormtype.AutoID{}), for one row and for a batch with one zero
// key; nothing is stored. With the key set it is stored.
func TestGormZeroKeyWithoutPlugin(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{})
		if _, ok := db.Config.Plugins[gormtype.AutoID{}.Name()]; ok {
			t.Fatal("AutoID is registered")
		}
		if err := db.Migrator().DropTable("zero_plain"); err != nil {
			t.Fatal(err)
		}
		if err := db.Table("zero_plain").AutoMigrate(&tableRow{}); err != nil {
			t.Fatal(err)
		}
		for _, v := range []any{
			&tableRow{Name: "zero"},
			&[]tableRow{{ID: gormtype.NewHUID(), Name: "set"}, {Name: "zero"}},
		} {
			err := db.Table("zero_plain").Create(v).Error
			checkRefused(t, err, gormtype.ErrZeroID, "gormtype.HUID", "db.Use(gormtype.AutoID{})")
		}
		checkCount(t, db, 0, "zero_plain", "1 = 1")
		r := tableRow{ID: gormtype.NewHUID(), Name: "keyed"}
		if err := db.Table("zero_plain").Create(&r).Error; err != nil {
			t.Fatalf("Create with the key set: %v", err)
		}
		checkNamed(t, db, "zero_plain", r.ID, "keyed")
	})
}

// zeroInv has a fresh field besides its key.
type zeroInv struct {
	ID    gormtype.HUID    `gorm:"primaryKey"`
	Trace gormtype.SCRU128 `sortid:"auto"`
	Total int
}

func (zeroInv) TableName() string { return "zero_invs" }

// TestGormZeroSaveOverStoredID: db.Save(&zeroInv{ID: stored.ID, Total: 3})
// of a row built with the stored key and a zero Trace (not loaded) would
// write a zero Trace over the stored one: it fails with ErrZeroID naming
// Save, the field and Updates, and the stored row is unchanged. Save of a
// new row with a caller-set key and a zero Trace fails the same way,
// naming Create, and stores nothing. Updates writes the set fields only.
func TestGormZeroSaveOverStoredID(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src := &takenFirst{}
		db := d.open(t, &gorm.Config{}, src.plugin(0))
		resetTables(t, db, &zeroInv{})
		stored := zeroInv{Total: 1}
		mustCreate(t, db, &stored)
		for _, skipHooks := range []bool{false, true} {
			src.next()
			err := db.Session(&gorm.Session{SkipHooks: skipHooks}).Save(&zeroInv{ID: stored.ID, Total: 3}).Error
			checkRefused(t, err, gormtype.ErrZeroID, "Save", "Trace", "Updates")
			checkStored(t, db, stored.ID, stored)
			if n := src.drawn(); n != 0 {
				t.Errorf("the refused Save drew %d HUIDs", n)
			}
		}

		newRow := zeroInv{ID: gormtype.NewHUID(), Total: 3}
		checkRefused(t, db.Save(&newRow).Error, gormtype.ErrZeroID, "Save", "Trace", "Create")
		checkCount(t, db, 0, "zero_invs", "id = ?", newRow.ID)

		if err := db.Model(&zeroInv{ID: stored.ID}).Updates(zeroInv{Total: 4}).Error; err != nil {
			t.Fatalf("Updates: %v", err)
		}
		want := stored
		want.Total = 4
		checkStored(t, db, stored.ID, want)

		var loaded zeroInv
		if err := db.First(&loaded, "id = ?", stored.ID).Error; err != nil {
			t.Fatal(err)
		}
		loaded.Total = 5
		if err := db.Save(&loaded).Error; err != nil {
			t.Fatalf("Save of the loaded row: %v", err)
		}
		want.Total = 5
		checkStored(t, db, stored.ID, want)
		checkCount(t, db, 1, "zero_invs", "1 = 1")
	})
}
