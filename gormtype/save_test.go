package gormtype_test

// Save: of a new row with a zero key it is a Create (filled, retried; see
// fill_test.go and retry_test.go); of a loaded row it updates under the
// stored key and auto fields and draws nothing; the way out for a partial
// row is Updates. (A Save that would store a zero auto field fails with
// ErrZeroID: zero_test.go.)

import (
	"testing"

	"gorm.io/gorm"

	"github.com/sortid/sortid/gormtype"
)

// TestSaveLoadedRowKeepsItsIDs: a loaded row saved with another Total
// keeps its key and Trace; nothing is drawn.
func TestSaveLoadedRowKeepsItsIDs(t *testing.T) {
	t.Parallel()
	src := &keySource{}
	db := openDB(t, nil, src.plugin(0), &Inv{})
	inv := Inv{Total: 1}
	mustCreate(t, db, &inv)
	var loaded Inv
	if err := db.First(&loaded, "id = ?", inv.ID).Error; err != nil {
		t.Fatal(err)
	}
	loaded.Total = 2
	src.next()
	if err := db.Save(&loaded).Error; err != nil {
		t.Fatalf("Save: %v", err)
	}
	if h, s := src.draws(); h+s != 0 || loaded.ID != inv.ID || loaded.Trace != inv.Trace {
		t.Errorf("Save drew %d IDs, row %+v; want none and the stored %+v", h+s, loaded, inv)
	}
	checkCount(t, db, 1, "invs", "id = ? AND trace = ? AND total = 2", inv.ID, inv.Trace)
	checkCount(t, db, 1, "invs", "1 = 1")
}

// TestSaveNewRowWithEverythingSet: Save of a row whose key and auto field
// the caller set stores it as set (GORM's UPDATE finds no row, then
// inserts).
func TestSaveNewRowWithEverythingSet(t *testing.T) {
	t.Parallel()
	src := &keySource{}
	db := openDB(t, nil, src.plugin(0), &Inv{})
	inv := Inv{ID: gormtype.NewHUID(), Trace: gormtype.NewSCRU128(), Total: 3}
	src.next()
	if err := db.Save(&inv).Error; err != nil {
		t.Fatalf("Save: %v", err)
	}
	if h, s := src.draws(); h+s != 0 {
		t.Errorf("Save drew %d IDs", h+s)
	}
	checkCount(t, db, 1, "invs", "id = ? AND trace = ? AND total = 3", inv.ID, inv.Trace)
}

// TestUpdatesIsTheWayToWriteAPartialRow: Updates of a row given by its key
// writes the set fields only; the stored Trace stays.
func TestUpdatesIsTheWayToWriteAPartialRow(t *testing.T) {
	t.Parallel()
	db := openDB(t, nil, gormtype.AutoID{}, &Inv{})
	inv := Inv{Total: 1}
	mustCreate(t, db, &inv)
	for _, update := range []func(db *gorm.DB) error{
		func(db *gorm.DB) error { return db.Model(&Inv{ID: inv.ID}).Updates(Inv{Total: 4}).Error },
		func(db *gorm.DB) error { return db.Model(&Inv{ID: inv.ID}).Updates(map[string]any{"total": 5}).Error },
		func(db *gorm.DB) error { return db.Model(&Inv{ID: inv.ID}).Update("total", 6).Error },
	} {
		if err := update(db); err != nil {
			t.Fatalf("Updates: %v", err)
		}
	}
	checkCount(t, db, 1, "invs", "id = ? AND trace = ? AND total = 6", inv.ID, inv.Trace)
}
