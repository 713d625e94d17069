package gormtype_test

// Guarantee 4 (NEW): a gormtype ID type never stores its zero value.
// Binding a zero HUID, SCRU128, SCRU128Bytes, or a Valid Null holding one,
// fails with ErrZeroID naming the type and the ways out (set it, register
// AutoID, use the Null type); a NULL Null is fine. A Create that leaves a
// key zero without AutoID fails so, and so does a Save that would write a
// zero auto field, naming Save, the field and the way out, changing
// nothing.

import (
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"gorm.io/gorm"

	"github.com/sortid/sortid/gormtype"
)

// zeroValues are the zero value of each ID type, as a Valuer, and the type
// name its error must give.
var zeroValues = []struct {
	typ string
	v   driver.Valuer
}{
	{"HUID", gormtype.HUID(0)},
	{"SCRU128", gormtype.SCRU128{}},
	{"SCRU128Bytes", gormtype.SCRU128Bytes{}},
	{"HUID", gormtype.NullHUID{Valid: true}},
	{"SCRU128", gormtype.NullSCRU128{Valid: true}},
	{"SCRU128Bytes", gormtype.NullSCRU128Bytes{Valid: true}},
}

// TestZeroIDNeverBound: Value, a GORM statement and database/sql refuse
// every zero ID with ErrZeroID; nothing is stored. A set ID and a NULL
// Null are stored.
func TestZeroIDNeverBound(t *testing.T) {
	t.Parallel()
	db := openDB(t, nil, gormtype.AutoID{})
	if err := db.Exec("CREATE TABLE holders (v)").Error; err != nil {
		t.Fatal(err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	for _, z := range zeroValues {
		mention := []string{z.typ, "AutoID", "Null*"}
		v, err := z.v.Value()
		checkRefused(t, err, gormtype.ErrZeroID, mention...)
		// Not nil, which GORM would write as IS NULL: a value that fails the
		// same way where GORM drops the error and keeps the value.
		if v == nil {
			t.Errorf("%#v.Value() is nil; want a value the driver refuses", z.v)
		} else if _, vErr := v.(driver.Valuer).Value(); !errors.Is(vErr, gormtype.ErrZeroID) {
			t.Errorf("%#v.Value()'s value binds with %v; want ErrZeroID", z.v, vErr)
		} else if _, jErr := json.Marshal(v); !errors.Is(jErr, gormtype.ErrZeroID) {
			t.Errorf("json.Marshal of %#v.Value()'s value: %v; want ErrZeroID", z.v, jErr)
		} else if s := fmt.Sprint(v); !strings.Contains(s, "zero gormtype."+z.typ) {
			t.Errorf("%#v.Value()'s value prints as %q; want its error", z.v, s)
		}
		checkRefused(t, db.Exec("INSERT INTO holders (v) VALUES (?)", z.v).Error, gormtype.ErrZeroID, mention...)
		_, err = sqlDB.Exec("INSERT INTO holders (v) VALUES (?)", z.v)
		checkRefused(t, err, gormtype.ErrZeroID, mention...)
	}
	checkCount(t, db, 0, "holders", "1 = 1")
	for _, v := range []any{gormtype.NewHUID(), gormtype.NewSCRU128(), gormtype.NewSCRU128Bytes(),
		gormtype.NullHUID{}, gormtype.NullSCRU128{}, gormtype.NullSCRU128Bytes{}} {
		if err := db.Exec("INSERT INTO holders (v) VALUES (?)", v).Error; err != nil {
			t.Errorf("INSERT of %T %v: %v", v, v, err)
		}
	}
	checkCount(t, db, 3, "holders", "v IS NOT NULL")
	checkCount(t, db, 3, "holders", "v IS NULL")
}

// TestZeroKeyWithoutPlugin: without AutoID every Create that leaves a key
// zero fails with ErrZeroID and stores nothing; with the keys set it runs.
func TestZeroKeyWithoutPlugin(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		typ    string
		table  string
		create func(db *gorm.DB) error
	}{
		{"HUID key", "HUID", "huid_keys", func(db *gorm.DB) error { return db.Create(&huidKey{Name: "zero"}).Error }},
		{"SCRU128 key", "SCRU128", "scru_keys", func(db *gorm.DB) error { return db.Create(&scruKey{Name: "zero"}).Error }},
		{"SCRU128Bytes key", "SCRU128Bytes", "bytes_keys", func(db *gorm.DB) error { return db.Create(&bytesKey{Name: "zero"}).Error }},
		{"pointer key", "HUID", "ptr_keys", func(db *gorm.DB) error { return db.Create(&ptrKey{ID: new(gormtype.HUID)}).Error }},
		{"one zero key in a batch", "HUID", "huid_keys", func(db *gorm.DB) error {
			return db.Create(&[]huidKey{{ID: gormtype.NewHUID(), Name: "set"}, {Name: "zero"}}).Error
		}},
		{"CreateInBatches", "HUID", "huid_keys", func(db *gorm.DB) error {
			return db.CreateInBatches(&[]huidKey{{ID: gormtype.NewHUID()}, {ID: gormtype.NewHUID()}, {Name: "zero"}}, 2).Error
		}},
		{"Save of a new row", "HUID", "huid_keys", func(db *gorm.DB) error { return db.Save(&huidKey{Name: "zero"}).Error }},
		{"FirstOrCreate", "SCRU128", "scru_keys", func(db *gorm.DB) error {
			return db.Where(scruKey{Name: "zero"}).FirstOrCreate(&scruKey{}).Error
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			db := openDB(t, nil, nil, &huidKey{}, &scruKey{}, &bytesKey{}, &ptrKey{})
			checkRefused(t, c.create(db), gormtype.ErrZeroID, c.typ, "AutoID")
			checkCount(t, db, 0, c.table, "name = 'zero'")
			if c.name != "CreateInBatches" {
				checkCount(t, db, 0, c.table, "1 = 1")
			}
		})
	}
	t.Run("keys set", func(t *testing.T) {
		t.Parallel()
		db := openDB(t, nil, nil, &huidKey{}, &scruKey{}, &bytesKey{})
		for _, row := range []any{&huidKey{ID: gormtype.NewHUID()}, &scruKey{ID: gormtype.NewSCRU128()}, &bytesKey{ID: gormtype.NewSCRU128Bytes()}} {
			mustCreate(t, db, row)
		}
		checkCount(t, db, 1, "huid_keys", "1 = 1")
		checkCount(t, db, 1, "scru_keys", "1 = 1")
		checkCount(t, db, 1, "bytes_keys", "1 = 1")
	})
}

// TestZeroFieldsAutoIDDoesNotFill: with AutoID, a zero key tagged
// sortid:"-", a zero untagged HUID column and a Valid Null holding zero
// fail with ErrZeroID; nothing is stored.
func TestZeroFieldsAutoIDDoesNotFill(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		typ   string
		table string
		row   any
	}{
		{`key tagged sortid:"-"`, "HUID", "manual_keys", &manualKey{Name: "zero"}},
		{"untagged HUID column", "HUID", "books", &Book{Title: "no author"}},
		{"Valid NullHUID of zero", "HUID", "null_cols", &nullCols{H: gormtype.NullHUID{Valid: true}}},
		{"Valid NullSCRU128 of zero", "SCRU128", "null_cols", &nullCols{S: gormtype.NullSCRU128{Valid: true}}},
		{"Valid NullSCRU128Bytes of zero", "SCRU128Bytes", "null_cols", &nullCols{B: gormtype.NullSCRU128Bytes{Valid: true}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			db := openDB(t, nil, gormtype.AutoID{}, &manualKey{}, &Book{}, &nullCols{})
			checkRefused(t, db.Create(c.row).Error, gormtype.ErrZeroID, c.typ)
			checkCount(t, db, 0, c.table, "1 = 1")
		})
	}
}

// TestZeroSaveOfAStoredRow: Save of a row built with the stored key and a
// zero auto field (not loaded) would overwrite the stored Trace with zero:
// it fails with ErrZeroID naming Save, the field and the way out (load the
// row first, or use Updates), and the stored row is unchanged.
func TestZeroSaveOfAStoredRow(t *testing.T) {
	t.Parallel()
	for _, skipHooks := range []bool{false, true} {
		t.Run(fmt.Sprint("SkipHooks=", skipHooks), func(t *testing.T) {
			t.Parallel()
			db := openDB(t, nil, gormtype.AutoID{}, &Inv{})
			stored := Inv{Total: 1}
			mustCreate(t, db, &stored)
			err := db.Session(&gorm.Session{SkipHooks: skipHooks}).Save(&Inv{ID: stored.ID, Total: 3}).Error
			checkRefused(t, err, gormtype.ErrZeroID, "Save", "Trace", "Updates")
			var back Inv
			if err := db.First(&back, "id = ?", stored.ID).Error; err != nil || back != stored {
				t.Errorf("stored row %+v, %v; want it unchanged: %+v", back, err, stored)
			}
		})
	}
}

// TestZeroSaveOfANewRow: Save of a new row with a caller-set key and a
// zero auto field fails the same way, naming Save and Create (the way for
// a new row), and stores nothing.
func TestZeroSaveOfANewRow(t *testing.T) {
	t.Parallel()
	db := openDB(t, nil, gormtype.AutoID{}, &Inv{})
	err := db.Save(&Inv{ID: gormtype.NewHUID(), Total: 3}).Error
	checkRefused(t, err, gormtype.ErrZeroID, "Save", "Trace", "Create")
	checkCount(t, db, 0, "invs", "1 = 1")
}
