package gormtype_test

// Guarantee 7, ErrSetup: a model field of an idtype type (which GORM makes
// an auto-increment integer or text) and sortid:"auto" on a field of
// another type than gormtype's ID types are set-up errors naming the
// field and the fix; nothing is stored. AutoID needs gorm:create.

import (
	"errors"
	"testing"

	"gorm.io/gorm"

	"github.com/sortid/sortid/gormtype"
	"github.com/sortid/sortid/idtype"
)

type coreKey struct {
	ID   idtype.HUID `gorm:"primaryKey"`
	Name string
}

type coreSCRU128 struct {
	ID  gormtype.HUID  `gorm:"primaryKey"`
	Ref idtype.SCRU128 `gorm:"type:blob"`
}

type coreBytes struct {
	ID  gormtype.HUID       `gorm:"primaryKey"`
	Ref idtype.SCRU128Bytes `gorm:"type:blob"`
}

type coreNull struct {
	ID     gormtype.HUID   `gorm:"primaryKey"`
	Parent idtype.NullHUID `gorm:"type:integer"`
}

type autoString struct {
	ID  gormtype.HUID `gorm:"primaryKey"`
	Ref string        `sortid:"auto"`
}

type autoInt struct {
	ID  gormtype.HUID `gorm:"primaryKey"`
	Ref int64         `sortid:"auto"`
}

type autoCore struct {
	ID  gormtype.HUID  `gorm:"primaryKey"`
	Ref idtype.SCRU128 `gorm:"type:blob" sortid:"auto"`
}

var autoIDName = gormtype.AutoID{}.Name()

// TestSetupIdtypeFields: a Create of a model with an idtype field, set or
// not, fails with ErrSetup naming the field and the gormtype type to use.
func TestSetupIdtypeFields(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		model   any
		table   string
		rows    []any
		mention []string
	}{
		{"idtype.HUID key", &coreKey{}, "core_keys",
			[]any{&coreKey{Name: "zero"}, &coreKey{ID: idtype.NewHUID(), Name: "set"}}, []string{"ID", "gormtype.HUID"}},
		{"idtype.SCRU128 field", &coreSCRU128{}, "core_scru128",
			[]any{&coreSCRU128{}, &coreSCRU128{Ref: idtype.NewSCRU128()}}, []string{"Ref", "gormtype.SCRU128"}},
		{"idtype.SCRU128Bytes field", &coreBytes{}, "core_bytes",
			[]any{&coreBytes{Ref: idtype.SCRU128Bytes(idtype.NewSCRU128())}}, []string{"Ref", "gormtype.SCRU128Bytes"}},
		{"idtype.NullHUID field", &coreNull{}, "core_nulls",
			[]any{&coreNull{}}, []string{"Parent", "gormtype.Null*"}},
		{"sortid:auto on a string", &autoString{}, "auto_strings",
			[]any{&autoString{}, &autoString{Ref: "set"}}, []string{"Ref", "string"}},
		{"sortid:auto on an int64", &autoInt{}, "auto_ints",
			[]any{&autoInt{}}, []string{"Ref", "int64"}},
		{"sortid:auto on an idtype.SCRU128", &autoCore{}, "auto_cores",
			[]any{&autoCore{}}, []string{"Ref", "gormtype.SCRU128"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			db := openDB(t, nil, gormtype.AutoID{})
			if err := db.Table(c.table).Migrator().CreateTable(c.model); err != nil {
				t.Fatalf("CreateTable: %v", err)
			}
			for _, row := range c.rows {
				checkRefused(t, db.Table(c.table).Create(row).Error, gormtype.ErrSetup, c.mention...)
			}
			checkCount(t, db, 0, c.table, "1 = 1")
		})
	}
}

// TestSetupNeedsTheCreateCallback: AutoID wraps gorm:create; without it,
// registering the plugin fails with ErrSetup.
func TestSetupNeedsTheCreateCallback(t *testing.T) {
	t.Parallel()
	db := openDB(t, nil, nil)
	if err := db.Callback().Create().Remove("gorm:create"); err != nil {
		t.Fatal(err)
	}
	checkRefused(t, db.Use(gormtype.AutoID{}), gormtype.ErrSetup, "gorm:create")
	if _, ok := db.Config.Plugins[autoIDName]; ok {
		t.Errorf("AutoID registered without gorm:create")
	}
}

// TestSetupPluginName: AutoID is registered once under its name,
// sortid:autoid (which code outside may look up in gorm.Config.Plugins);
// a second registration is refused by GORM.
func TestSetupPluginName(t *testing.T) {
	t.Parallel()
	db := openDB(t, nil, gormtype.AutoID{})
	if _, ok := db.Config.Plugins["sortid:autoid"]; !ok || autoIDName != "sortid:autoid" {
		t.Fatalf("AutoID registered as %q, want sortid:autoid", autoIDName)
	}
	if err := db.Use(gormtype.AutoID{}); !errors.Is(err, gorm.ErrRegistered) {
		t.Errorf("second Use(AutoID): %v; want GORM's error that it is registered", err)
	}
	var _ gorm.Plugin = gormtype.AutoID{}
}

// TestGeneratorErrorFailsTheCreate: a generator's error ends the Create
// with it, naming the table and column; nothing is stored and the fields
// AutoID filled are unset again.
func TestGeneratorErrorFailsTheCreate(t *testing.T) {
	t.Parallel()
	errBroken := errors.New("generator broken")
	for _, c := range []struct {
		name   string
		plugin gormtype.AutoID
		column string
	}{
		{"HUID", gormtype.AutoID{GenerateHUID: func() (idtype.HUID, error) { return 0, errBroken }}, "items.id"},
		{"SCRU128", gormtype.AutoID{GenerateSCRU128: func() (idtype.SCRU128, error) { return idtype.SCRU128{}, errBroken }}, "items.ref"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			db := openDB(t, nil, c.plugin, &Item{})
			rows := []Item{{Code: "a"}, {Code: "b"}}
			err := db.Create(&rows).Error
			checkRefused(t, err, errBroken, c.column)
			for _, r := range rows {
				if !r.ID.IsZero() || !r.Ref.IsZero() {
					t.Errorf("row %s holds %s, %s after the failed Create; want both unset", r.Code, r.ID, r.Ref)
				}
			}
			if n := count(t, db, "items", "1 = 1"); n != 0 {
				t.Errorf("%d rows stored; want none", n)
			}
		})
	}
}
