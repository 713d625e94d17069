package gormtype_test

// Guarantee 1, fill: before the hooks of every Create, every zero field of
// a gormtype ID type that is a primary key or tagged sortid:"auto" gets a
// fresh ID, unless tagged sortid:"-" or filled by a declared database
// default; keys the caller set are left alone; the HUIDs of one statement
// ascend with the slice; nil pointer fields are allocated and filled.

import (
	"testing"

	"gorm.io/gorm"

	"github.com/sortid/sortid/gormtype"
	"github.com/sortid/sortid/idtype"
)

type huidKey struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string
}

type scruKey struct {
	ID   gormtype.SCRU128 `gorm:"primaryKey"`
	Name string
}

type bytesKey struct {
	ID   gormtype.SCRU128Bytes `gorm:"primaryKey"`
	Name string
}

type ptrKey struct {
	ID   *gormtype.HUID `gorm:"primaryKey"`
	Name string
}

// autoFields has a non-key auto field of every type, one of them a
// pointer, and untagged ID fields that AutoID must leave alone.
type autoFields struct {
	ID     gormtype.HUID          `gorm:"primaryKey"`
	H      gormtype.HUID          `sortid:"auto"`
	S      gormtype.SCRU128       `sortid:"auto"`
	B      gormtype.SCRU128Bytes  `sortid:"auto"`
	P      *gormtype.SCRU128      `sortid:"auto"`
	Plain  *gormtype.HUID         // untagged non-key: nil stays NULL
	PlainN gormtype.NullSCRU128   // untagged non-key: stays NULL
	Extra  gormtype.NullHUID      `sortid:"auto"`
	ExtraB *gormtype.SCRU128Bytes `sortid:"auto"`
}

// TestFillEveryIDType: each kind of key and of auto field is filled on
// Create, and stored as the struct holds it.
func TestFillEveryIDType(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		model any
		row   func() any
		check func(t *testing.T, db *gorm.DB, row any)
	}{
		{"HUID key", &huidKey{}, func() any { return &huidKey{Name: "h"} }, func(t *testing.T, db *gorm.DB, row any) {
			r := row.(*huidKey)
			var back huidKey
			if r.ID.IsZero() || db.First(&back, "id = ?", r.ID).Error != nil || back != *r {
				t.Errorf("struct %+v, stored %+v", r, back)
			}
		}},
		{"SCRU128 key", &scruKey{}, func() any { return &scruKey{Name: "s"} }, func(t *testing.T, db *gorm.DB, row any) {
			r := row.(*scruKey)
			var back scruKey
			if r.ID.IsZero() || db.First(&back, "id = ?", r.ID).Error != nil || back != *r {
				t.Errorf("struct %+v, stored %+v", r, back)
			}
		}},
		{"SCRU128Bytes key", &bytesKey{}, func() any { return &bytesKey{Name: "b"} }, func(t *testing.T, db *gorm.DB, row any) {
			r := row.(*bytesKey)
			var back bytesKey
			if r.ID.IsZero() || db.First(&back, "id = ?", r.ID).Error != nil || back != *r {
				t.Errorf("struct %+v, stored %+v", r, back)
			}
		}},
		{"nil pointer key", &ptrKey{}, func() any { return &ptrKey{Name: "p"} }, func(t *testing.T, db *gorm.DB, row any) {
			r := row.(*ptrKey)
			if r.ID == nil || r.ID.IsZero() {
				t.Fatalf("pointer key %v not allocated and filled", r.ID)
			}
			var back ptrKey
			if err := db.First(&back, "id = ?", *r.ID).Error; err != nil || back.ID == nil || *back.ID != *r.ID {
				t.Errorf("stored %+v, %v; want key %s", back, err, *r.ID)
			}
		}},
		{"auto fields", &autoFields{}, func() any { return &autoFields{} }, func(t *testing.T, db *gorm.DB, row any) {
			r := row.(*autoFields)
			if r.ID.IsZero() || r.H.IsZero() || r.S.IsZero() || r.B.IsZero() || r.P == nil || r.P.IsZero() ||
				!r.Extra.Valid || r.ExtraB == nil || r.ExtraB.IsZero() {
				t.Fatalf("auto fields not all filled: %+v", r)
			}
			if r.Plain != nil || r.PlainN.Valid {
				t.Errorf("untagged non-key fields filled: %v, %v", r.Plain, r.PlainN)
			}
			var back autoFields
			if err := db.First(&back, "id = ?", r.ID).Error; err != nil {
				t.Fatal(err)
			}
			if back.H != r.H || back.S != r.S || back.B != r.B || back.P == nil || *back.P != *r.P ||
				back.Extra != r.Extra || back.ExtraB == nil || *back.ExtraB != *r.ExtraB || back.Plain != nil || back.PlainN.Valid {
				t.Errorf("stored %+v, struct %+v", back, r)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			db := openDB(t, nil, gormtype.AutoID{}, c.model)
			row := c.row()
			if err := db.Create(row).Error; err != nil {
				t.Fatalf("Create: %v", err)
			}
			c.check(t, db, row)
		})
	}
}

// TestFillLeavesCallerValues: keys and auto fields the caller set are
// stored as set, in a statement whose other rows are filled, and nothing
// is drawn for them.
func TestFillLeavesCallerValues(t *testing.T) {
	t.Parallel()
	src := &keySource{}
	db := openDB(t, nil, src.plugin(0), &autoFields{}, &scruKey{})
	presetKey, presetS := gormtype.NewHUID(), gormtype.NewSCRU128()
	presetP := gormtype.NewSCRU128()
	rows := []autoFields{{}, {ID: presetKey, S: presetS, P: &presetP}}
	src.next()
	if err := db.Create(&rows).Error; err != nil {
		t.Fatalf("Create: %v", err)
	}
	if rows[1].ID != presetKey || rows[1].S != presetS || *rows[1].P != presetP {
		t.Errorf("caller's values overwritten: %+v", rows[1])
	}
	if rows[1].H.IsZero() || rows[1].B.IsZero() || rows[0].ID.IsZero() || rows[0].S.IsZero() {
		t.Errorf("zero fields beside the caller's not filled: %+v", rows)
	}
	// Keys: 1 of row 0; H: 2; Extra: 2. SCRU128s: S 1, P 1, B 2, ExtraB 2.
	if h, s := src.draws(); h != 5 || s != 6 {
		t.Errorf("%d HUIDs and %d SCRU128s drawn, want 5 and 6: one per zero field", h, s)
	}
	var back autoFields
	if err := db.First(&back, "id = ?", presetKey).Error; err != nil || back.S != presetS || *back.P != presetP {
		t.Errorf("stored %+v, %v", back, err)
	}
	set := scruKey{ID: gormtype.NewSCRU128(), Name: "set"}
	src.next()
	if err := db.Create(&set).Error; err != nil {
		t.Fatal(err)
	}
	if h, s := src.draws(); h+s != 0 {
		t.Errorf("Create with every key set drew %d IDs", h+s)
	}
	checkCount(t, db, 1, "scru_keys", "id = ?", set.ID)
}

// TestFillWritePaths: every way of creating rows fills their keys.
func TestFillWritePaths(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		create func(db *gorm.DB) ([]*Account, error)
	}{
		{"Create", func(db *gorm.DB) ([]*Account, error) {
			a := Account{Email: "a@x"}
			return []*Account{&a}, db.Create(&a).Error
		}},
		{"Create slice", func(db *gorm.DB) ([]*Account, error) {
			rows := []Account{{Email: "a@x"}, {Email: "b@x"}}
			return []*Account{&rows[0], &rows[1]}, db.Create(&rows).Error
		}},
		{"Create slice of pointers", func(db *gorm.DB) ([]*Account, error) {
			rows := []*Account{{Email: "a@x"}, {Email: "b@x"}}
			return rows, db.Create(rows).Error
		}},
		{"CreateInBatches", func(db *gorm.DB) ([]*Account, error) {
			rows := []Account{{Email: "a@x"}, {Email: "b@x"}, {Email: "c@x"}}
			return []*Account{&rows[0], &rows[1], &rows[2]}, db.CreateInBatches(&rows, 2).Error
		}},
		{"FirstOrCreate", func(db *gorm.DB) ([]*Account, error) {
			var a Account
			return []*Account{&a}, db.Where(Account{Email: "a@x"}).FirstOrCreate(&a).Error
		}},
		{"Save of a new row", func(db *gorm.DB) ([]*Account, error) {
			a := Account{Email: "a@x"}
			return []*Account{&a}, db.Save(&a).Error
		}},
		{"Table", func(db *gorm.DB) ([]*Account, error) {
			a := Account{Email: "a@x"}
			return []*Account{&a}, db.Table("accounts").Create(&a).Error
		}},
		{"Model", func(db *gorm.DB) ([]*Account, error) {
			a := Account{Email: "a@x"}
			return []*Account{&a}, db.Model(&Account{}).Create(&a).Error
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			db := openDB(t, nil, gormtype.AutoID{}, &Account{})
			rows, err := c.create(db)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			for _, a := range rows {
				checkFresh(t, db, *a)
			}
			checkCount(t, db, int64(len(rows)), "accounts", "1 = 1")
		})
	}
}

// TestFillOptOutTag: sortid:"-" keeps AutoID off the key: a zero key is
// not filled (the Create stores no other key; see zero_test.go for its
// error), and the caller's key is stored; nothing is drawn.
func TestFillOptOutTag(t *testing.T) {
	t.Parallel()
	src := &keySource{}
	db := openDB(t, nil, src.plugin(0), &manualKey{})
	src.next()
	zero := manualKey{Name: "zero"}
	_ = db.Create(&zero).Error // ErrZeroID in the new design; stored as 0 before
	row := manualKey{ID: 7, Name: "seven"}
	if err := db.Create(&row).Error; err != nil {
		t.Fatalf("Create: %v", err)
	}
	if h, s := src.draws(); row.ID != 7 || !zero.ID.IsZero() || h+s != 0 {
		t.Errorf("keys %v and %v after %d draws; want 7 as set, 0, and no draw", row.ID, zero.ID, h+s)
	}
	checkCount(t, db, 1, "manual_keys", "id = ? AND name = 'seven'", 7)
	checkCount(t, db, 0, "manual_keys", "id <> 0 AND name = 'zero'")
}

// manualKey's key is tagged sortid:"-": AutoID never fills it.
type manualKey struct {
	ID   gormtype.HUID `gorm:"primaryKey" sortid:"-"`
	Name string
}

// dbDefaults declares database defaults for two auto fields: AutoID leaves
// them to the database. (SQLite ignores the default of an integer primary
// key, its rowid.)
type dbDefaults struct {
	ID    gormtype.HUID    `gorm:"primaryKey"`
	Seq   gormtype.HUID    `gorm:"default:(4242)" sortid:"auto"`
	Stamp gormtype.SCRU128 `gorm:"default:(randomblob(16))" sortid:"auto"`
	Ref   gormtype.SCRU128 `sortid:"auto"`
}

// TestFillSkipsDeclaredDatabaseDefaults: auto fields with a declared
// database default get the database's values, read back into the struct;
// AutoID draws only for the key and the other auto field.
func TestFillSkipsDeclaredDatabaseDefaults(t *testing.T) {
	t.Parallel()
	src := &keySource{}
	db := openDB(t, nil, src.plugin(0), &dbDefaults{})
	src.next()
	row := dbDefaults{}
	if err := db.Create(&row).Error; err != nil {
		t.Fatalf("Create: %v", err)
	}
	if h, s := src.draws(); h != 1 || s != 1 {
		t.Errorf("%d HUIDs and %d SCRU128s drawn; want none for the defaults, 1 for ID, 1 for Ref", h, s)
	}
	if row.ID.IsZero() || row.Seq != 4242 || row.Stamp.IsZero() || row.Ref.IsZero() {
		t.Fatalf("struct %+v; want a fresh ID and Ref, and the database's Seq 4242 and Stamp", row)
	}
	var back dbDefaults
	if err := db.First(&back, "id = ?", row.ID).Error; err != nil || back != row {
		t.Errorf("stored %+v, %v; struct %+v", back, err, row)
	}
}

// TestFillHUIDsAscendWithTheSlice: a generator whose HUIDs descend; AutoID
// hands them out in ascending order of the rows within each statement
// (each batch), and leaves a preset key where it is.
func TestFillHUIDsAscendWithTheSlice(t *testing.T) {
	t.Parallel()
	next := gormtype.NewHUID().ID() + 1_000_000
	descending := func() (idtype.HUID, error) { next -= 7; return next, nil }
	db := openDB(t, nil, gormtype.AutoID{GenerateHUID: descending}, &Author{}, &Book{}, &Tag{})
	preset := gormtype.NewHUID()
	authors := make([]Author, 300)
	authors[150].ID = preset
	if err := db.CreateInBatches(&authors, 100).Error; err != nil {
		t.Fatalf("CreateInBatches: %v", err)
	}
	if authors[150].ID != preset {
		t.Fatalf("preset key %v became %v", preset, authors[150].ID)
	}
	for _, batch := range [][]Author{authors[0:100], authors[100:150], authors[151:200], authors[200:300]} {
		for i := 1; i < len(batch); i++ {
			if batch[i-1].ID >= batch[i].ID {
				t.Fatalf("keys of one batch do not ascend with the rows: %v then %v", batch[i-1].ID, batch[i].ID)
			}
		}
	}
	checkCount(t, db, int64(len(authors)), "authors", "1 = 1")
}
