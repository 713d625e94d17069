package integration_test

// The set-up suite: a model AutoID cannot give fresh keys is a set-up
// error (ErrSetup) naming the field and the fix, whether its keys are set
// or not, and nothing is stored: a field of an idtype type (which plain
// GORM makes an auto-increment key), sortid:"auto" on a field of another
// type than gormtype's ID types.

import (
	"strings"
	"testing"

	"gorm.io/gorm"

	"github.com/sortid/sortid/gormtype"
	"github.com/sortid/sortid/idtype"
)

// setupCore uses idtype's HUID, which GORM takes for an auto-increment int.
type setupCore struct {
	ID   idtype.HUID `gorm:"primaryKey"`
	Name string      `gorm:"size:50"`
}

func (setupCore) TableName() string { return "setup_core" }

// TestGormSetupIdtypeKey: plain GORM migrates an idtype.HUID key as an
// auto-increment column and numbers the first row 1; with AutoID a Create
// of such a model fails with ErrSetup pointing at gormtype.HUID, with the
// key zero or set.
func TestGormSetupIdtypeKey(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		plain := d.open(t, &gorm.Config{})
		resetTables(t, plain, &setupCore{})
		types, err := plain.Migrator().ColumnTypes(&setupCore{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range types {
			// SQLite's INTEGER PRIMARY KEY numbers rows without the
			// AUTOINCREMENT keyword the catalog reports.
			if inc, _ := c.AutoIncrement(); c.Name() == "id" && !inc && d.name != "sqlite" {
				t.Errorf("AutoMigrate made the idtype.HUID key %s, not auto-increment", c.DatabaseTypeName())
			}
		}
		first := setupCore{Name: "plain"}
		if err := plain.Create(&first).Error; err != nil || first.ID != 1 {
			t.Errorf("plain GORM: Create: %v, key %d; want the auto-increment key 1", err, first.ID)
		}
		mustExec(t, plain, "DELETE FROM setup_core")

		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		for _, row := range []setupCore{{Name: "zero"}, {ID: idtype.NewHUID(), Name: "set"}} {
			err := db.Create(&row).Error
			checkRefused(t, err, gormtype.ErrSetup, "setupCore.ID", "idtype.HUID", "gormtype.HUID")
		}
		checkCount(t, db, 0, "setup_core", "1 = 1")
	})
}

// setupCoreTrace has idtype's SCRU128, which GORM takes for text.
type setupCoreTrace struct {
	ID    gormtype.HUID `gorm:"primaryKey"`
	Trace idtype.SCRU128
}

func (setupCoreTrace) TableName() string { return "setup_core_traces" }

// TestGormSetupIdtypeTrace: plain GORM migrates an idtype.SCRU128 field as
// a text column; with AutoID a Create of such a model fails with ErrSetup
// pointing at gormtype.SCRU128.
func TestGormSetupIdtypeTrace(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		plain := d.open(t, &gorm.Config{})
		resetTables(t, plain, &setupCoreTrace{})
		types, err := plain.Migrator().ColumnTypes(&setupCoreTrace{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range types {
			if c.Name() == "trace" && !strings.Contains(strings.ToLower(c.DatabaseTypeName()), "text") {
				t.Errorf("AutoMigrate made the idtype.SCRU128 column %s, not text", c.DatabaseTypeName())
			}
		}
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		err = db.Create(&setupCoreTrace{Trace: idtype.NewSCRU128()}).Error
		checkRefused(t, err, gormtype.ErrSetup, "setupCoreTrace.Trace", "idtype.SCRU128", "gormtype.SCRU128")
		checkCount(t, db, 0, "setup_core_traces", "1 = 1")
	})
}

type setupTaggedCore struct {
	ID   gormtype.HUID  `gorm:"primaryKey"`
	Ref  idtype.SCRU128 `gorm:"type:varchar(64)" sortid:"auto"`
	Name string         `gorm:"size:50"`
}

func (setupTaggedCore) TableName() string { return "setup_tagged_core" }

type setupTaggedString struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Ref  string        `gorm:"size:64" sortid:"auto"`
	Name string        `gorm:"size:50"`
}

func (setupTaggedString) TableName() string { return "setup_tagged_str" }

// TestGormSetupAutoTagOnWrongType: sortid:"auto" on a field AutoID cannot
// fill is a set-up error naming the field and the type, not a silent zero.
func TestGormSetupAutoTagOnWrongType(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		for _, c := range []struct {
			table string
			row   any
			want  []string
		}{
			{"setup_tagged_core", &setupTaggedCore{Name: "x"}, []string{"setupTaggedCore.Ref", "idtype.SCRU128", "gormtype.SCRU128"}},
			{"setup_tagged_str", &setupTaggedString{Name: "x"}, []string{"setupTaggedString.Ref", "string", "gormtype's ID types"}},
		} {
			mustExec(t, db, "DROP TABLE IF EXISTS "+c.table,
				"CREATE TABLE "+c.table+" (id bigint PRIMARY KEY, ref varchar(64), name varchar(50))")
			checkRefused(t, db.Create(c.row).Error, gormtype.ErrSetup, c.want...)
			checkCount(t, db, 0, c.table, "1 = 1")
		}
	})
}
