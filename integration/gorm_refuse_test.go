package integration_test

// The refuse suite: a Create that a fresh value could make update or skip
// another row, or leave holding a key no row has, fails with ErrRefused
// naming the table or field and the way out; it stores nothing, and the
// way out works.

import (
	"testing"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/sortid/sortid/gormtype"
)

// refuseAccount has a unique email and no hooks.
type refuseAccount struct {
	ID    gormtype.HUID `gorm:"primaryKey"`
	Email string        `gorm:"size:100;uniqueIndex"`
	Name  string        `gorm:"size:50"`
}

func (refuseAccount) TableName() string { return "refuse_accounts" }

// TestGormRefuseInsertModifier: MySQL's INSERT IGNORE and SQLite's INSERT
// OR IGNORE / OR REPLACE (clause.Insert{Modifier}, as GORM documents them)
// would skip the caller's row or replace the other row when a fresh key is
// taken: AutoID refuses them, and accepts them with caller-set keys.
func TestGormRefuseInsertModifier(t *testing.T) {
	modifiers := map[string][]string{"mysql": {"IGNORE"}, "sqlite": {"OR IGNORE", "OR REPLACE"}}
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		for _, modifier := range modifiers[d.name] {
			t.Run(modifier, func(t *testing.T) {
				db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
				resetTables(t, db, &refuseAccount{})
				taken := refuseAccount{ID: gormtype.NewHUID(), Email: "taken@x", Name: "seed"}
				mustCreate(t, db, &taken)
				a := refuseAccount{Email: "new@x", Name: "new"}
				err := db.Clauses(clause.Insert{Modifier: modifier}).Create(&a).Error
				checkRefused(t, err, gormtype.ErrRefused, "refuse_accounts", "INSERT "+modifier, "NewHUID")
				if !a.ID.IsZero() {
					t.Errorf("the refused Create left the fresh key %s; want zero", a.ID)
				}
				checkCount(t, db, 1, "refuse_accounts", "1 = 1")
				a.ID = gormtype.NewHUID()
				if err := db.Clauses(clause.Insert{Modifier: modifier}).Create(&a).Error; err != nil {
					t.Errorf("Create with a caller-set key: %v", err)
				}
				checkStored(t, db, taken.ID, taken)
				checkStored(t, db, a.ID, a)
			})
		}
	}, "mysql", "sqlite")
}

type refusePlain struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string        `gorm:"size:50"`
}

func (refusePlain) TableName() string { return "refuse_plain" }

// TestGormRefuseRowByValue: db.Create(value) with a struct or an array
// that is no pointer (GORM accepts it for models without hooks). AutoID
// cannot fill the copy: the Create is refused, naming the field and
// Create(&row), and no row is stored with the zero key.
func TestGormRefuseRowByValue(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		resetTables(t, db, &refusePlain{})
		for _, c := range []struct {
			name string
			v    any
		}{
			{"struct", refusePlain{Name: "by-value"}},
			{"array", [1]refusePlain{{Name: "array-by-value"}}},
		} {
			checkRefused(t, db.Create(c.v).Error, gormtype.ErrRefused, "ID", "Create(&row)")
			checkCount(t, db, 0, "refuse_plain", "1 = 1")
		}
		if err := db.Create(refusePlain{ID: gormtype.NewHUID(), Name: "keyed"}).Error; err != nil {
			t.Errorf("Create by value with the key set: %v", err)
		}
		checkCount(t, db, 1, "refuse_plain", "name = 'keyed'")
	})
}

// TestGormRefuseMapWithoutKey: AutoID fills structs only: a Create from a
// map (or maps) through Model that leaves the key unset or zero is
// refused, naming the column and the ways out; with the key set in the
// map it is stored.
func TestGormRefuseMapWithoutKey(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		resetTables(t, db, &refuseAccount{})
		for _, m := range []any{
			map[string]any{"Email": "map@x", "Name": "map"},
			map[string]any{"id": gormtype.HUID(0), "Email": "zero@x"},
			[]map[string]any{{"ID": gormtype.NewHUID(), "Email": "set@x"}, {"Email": "unset@x"}},
		} {
			err := db.Model(&refuseAccount{}).Create(m).Error
			checkRefused(t, err, gormtype.ErrRefused, `"id"`, "set it in the map", "from a struct")
		}
		checkCount(t, db, 0, "refuse_accounts", "1 = 1")
		key := gormtype.NewHUID()
		if err := db.Model(&refuseAccount{}).Create(map[string]any{"ID": key, "Email": "keyed@x"}).Error; err != nil {
			t.Fatalf("Create(map with the key): %v", err)
		}
		checkStored(t, db, key, refuseAccount{ID: key, Email: "keyed@x"})
		checkCount(t, db, 1, "refuse_accounts", "1 = 1")
	})
}

// TestGormRefuseColumnLeftOut: the key column has a database default the
// model does not declare; a Select or Omit that leaves it out would store
// the database's key while the struct holds AutoID's: refused, naming the
// table, the column and the way out. Selected, the key is AutoID's.
func TestGormRefuseColumnLeftOut(t *testing.T) {
	ddl := map[string][]string{
		"postgres": {
			"CREATE TABLE refuse_dflt (id bigint PRIMARY KEY DEFAULT 424242, name varchar(50))",
			"CREATE TABLE refuse_dflt (id bigserial PRIMARY KEY, name varchar(50))",
		},
		"mysql":  {"CREATE TABLE refuse_dflt (id bigint PRIMARY KEY DEFAULT (uuid_short()), name varchar(50))"},
		"sqlite": {"CREATE TABLE refuse_dflt (id integer PRIMARY KEY DEFAULT 424242, name varchar(50))"},
	}
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		for _, create := range ddl[d.name] {
			mustExec(t, db, "DROP TABLE IF EXISTS refuse_dflt", create)
			for _, q := range []struct {
				name string
				tx   func() *gorm.DB
			}{
				{`Select("name")`, func() *gorm.DB { return db.Table("refuse_dflt").Select("name") }},
				{`Omit("id")`, func() *gorm.DB { return db.Table("refuse_dflt").Omit("id") }},
			} {
				r := tableRow{Name: "left-out"}
				err := q.tx().Create(&r).Error
				checkRefused(t, err, gormtype.ErrRefused, "refuse_dflt", "id", "include it", "default:huid_generate()")
				if !r.ID.IsZero() {
					t.Errorf("%s: the refused Create left the fresh key %s; want zero", q.name, r.ID)
				}
			}
			checkCount(t, db, 0, "refuse_dflt", "1 = 1")
			r := tableRow{Name: "selected"}
			if err := db.Table("refuse_dflt").Select("id", "name").Create(&r).Error; err != nil {
				t.Fatalf(`Select("id", "name").Create: %v`, err)
			}
			if r.ID.IsZero() || r.ID == 424242 {
				t.Errorf("struct key %s, want a fresh HUID", r.ID)
			}
			checkNamed(t, db, "refuse_dflt", r.ID, "selected")
		}
	})
}

// TestGormRefuseUpsertMaySkip: a two-row upsert aimed at email with DO
// UPDATE … WHERE, which skips the existing row: its struct would hold a
// key no row has (or, RETURNING giving one row for two structs, the other
// struct's). Refused, naming the table and DoUpdates; nothing changes.
func TestGormRefuseUpsertMaySkip(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		resetTables(t, db, &refuseAccount{})
		existing := refuseAccount{ID: gormtype.NewHUID(), Email: "old@x", Name: "seed"}
		mustCreate(t, db, &existing)
		oc := clause.OnConflict{
			Columns:   []clause.Column{{Name: "email"}},
			DoUpdates: clause.AssignmentColumns([]string{"name"}),
			Where:     clause.Where{Exprs: []clause.Expression{clause.Expr{SQL: "1 = 0"}}},
		}
		rows := []refuseAccount{{Email: "old@x", Name: "renamed"}, {Email: "new@x", Name: "new"}}
		checkRefused(t, db.Clauses(oc).Create(&rows).Error, gormtype.ErrRefused, "refuse_accounts", "DO UPDATE … WHERE", "DoUpdates")
		for _, r := range rows {
			if !r.ID.IsZero() {
				t.Errorf("%s: the refused Create left the fresh key %s; want zero", r.Email, r.ID)
			}
		}
		checkStored(t, db, existing.ID, existing)
		checkCount(t, db, 1, "refuse_accounts", "1 = 1")
	}, "postgres", "sqlite")
}

// refuseRefAcct has a unique email and a unique auto-filled public Ref.
type refuseRefAcct struct {
	ID    gormtype.HUID    `gorm:"primaryKey"`
	Ref   gormtype.SCRU128 `gorm:"uniqueIndex" sortid:"auto"`
	Email string           `gorm:"size:100;uniqueIndex"`
	Name  string           `gorm:"size:50"`
}

func (refuseRefAcct) TableName() string { return "refuse_ref_accts" }

// TestGormRefuseUpsertAssigningFresh: an upsert on email with UpdateAll
// would write the Ref AutoID drew for the new struct into the existing
// row, replacing that row's public ID: refused on every dialect, naming
// the table, the column and DoUpdates. With DoUpdates of the name it runs
// and the existing Ref stays; on MySQL every upsert is refused, naming
// FirstOrCreate.
func TestGormRefuseUpsertAssigningFresh(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		resetTables(t, db, &refuseRefAcct{})
		old := refuseRefAcct{Email: "old@x", Name: "seed"}
		mustCreate(t, db, &old)
		a := refuseRefAcct{Email: "old@x", Name: "renamed"}
		err := db.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "email"}}, UpdateAll: true}).Create(&a).Error
		checkRefused(t, err, gormtype.ErrRefused, "refuse_ref_accts", "ref", "DoUpdates")
		checkStored(t, db, old.ID, old)

		a = refuseRefAcct{Email: "old@x", Name: "renamed"}
		err = db.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "email"}}, DoUpdates: clause.AssignmentColumns([]string{"name"})}).Create(&a).Error
		if d.name == "mysql" { // ON DUPLICATE KEY UPDATE fires on the key too
			checkRefused(t, err, gormtype.ErrRefused, "refuse_ref_accts", "FirstOrCreate")
			return
		}
		if err != nil {
			t.Fatalf("upsert of the name: %v", err)
		}
		want := old
		want.Name = "renamed"
		checkStored(t, db, old.ID, want)
		if a != want {
			t.Errorf("the upserted struct %+v; want the stored row %+v", a, want)
		}
		checkCount(t, db, 1, "refuse_ref_accts", "1 = 1")
	})
}

type refuseDefaultAccount struct {
	ID    gormtype.HUID `gorm:"primaryKey;default:huid_generate()"`
	Email string        `gorm:"size:100;uniqueIndex"`
	Name  string        `gorm:"size:50"`
}

func (refuseDefaultAccount) TableName() string { return "refuse_default_accounts" }

// TestGormRefuseWaysOut: the ways out that the refusals of upserts name
// work: FirstOrCreate with Assign inserts, then updates the same row; an
// upsert of rows whose keys the caller set, or (PostgreSQL) the column
// DEFAULT makes, runs as written, with one row per email.
func TestGormRefuseWaysOut(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		resetTables(t, db, &refuseAccount{})
		var first, second refuseAccount
		for i, row := range []*refuseAccount{&first, &second} {
			name := []string{"n1", "n2"}[i]
			if err := db.Where(refuseAccount{Email: "assign@x"}).Assign(refuseAccount{Name: name}).FirstOrCreate(row).Error; err != nil {
				t.Fatalf("FirstOrCreate with Assign %s: %v", name, err)
			}
		}
		if first.ID.IsZero() || second.ID != first.ID {
			t.Errorf("FirstOrCreate keys %s, %s; want one fresh key", first.ID, second.ID)
		}
		checkStored(t, db, first.ID, refuseAccount{ID: first.ID, Email: "assign@x", Name: "n2"})

		upsert := clause.OnConflict{Columns: []clause.Column{{Name: "email"}}, DoUpdates: clause.AssignmentColumns([]string{"name"})}
		if d.name == "mysql" {
			upsert.Columns = nil // ON DUPLICATE KEY UPDATE
		}
		for _, name := range []string{"s1", "s2"} {
			row := refuseAccount{ID: gormtype.NewHUID(), Email: "set@x", Name: name}
			if err := db.Clauses(upsert).Create(&row).Error; err != nil {
				t.Fatalf("upsert with the key set: %v", err)
			}
		}
		checkCount(t, db, 1, "refuse_accounts", "email = 'set@x' AND name = 's2'")
		if d.name != "postgres" {
			return
		}
		resetTables(t, db, &refuseDefaultAccount{})
		for _, name := range []string{"d1", "d2"} {
			row := refuseDefaultAccount{Email: "default@x", Name: name}
			if err := db.Clauses(upsert).Create(&row).Error; err != nil || row.ID.IsZero() {
				t.Fatalf("upsert with the key from the DEFAULT: %v, key %s", err, row.ID)
			}
		}
		checkCount(t, db, 1, "refuse_default_accounts", "email = 'default@x' AND name = 'd2'")
	})
}
