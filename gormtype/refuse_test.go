package gormtype_test

// Guarantee 5, refusals: a Create that a fresh value could make update or
// skip another row, or leave holding a key no row has, fails with
// ErrRefused naming the table, the fresh columns, why and the way out, and
// writes nothing; with the values set by the caller it runs as written.

import (
	"testing"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/sortid/sortid/gormtype"
)

// refAcct has a fresh key, a fresh non-key Ref and a unique email.
type refAcct struct {
	ID    gormtype.HUID    `gorm:"primaryKey"`
	Ref   gormtype.SCRU128 `sortid:"auto"`
	Email string           `gorm:"uniqueIndex"`
	Name  string
}

func onEmail(oc clause.OnConflict) clause.OnConflict {
	oc.Columns = []clause.Column{{Name: "email"}}
	return oc
}

var updateName = clause.AssignmentColumns([]string{"name"})

// TestRefuseUpsertsAFreshValueCouldTurn: every upsert and INSERT modifier
// that a fresh key or Ref could make update or skip another row is
// refused; the existing row is untouched and nothing is stored. With the
// key and Ref set by the caller the same statement runs.
func TestRefuseUpsertsAFreshValueCouldTurn(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		clause  clause.Expression
		mention []string // besides the table
		setOK   bool     // runs with caller-set values on SQLite
	}{
		{"ON CONFLICT on the key", clause.OnConflict{Columns: []clause.Column{{Name: "id"}}, DoUpdates: updateName},
			[]string{"id", "NewHUID"}, true},
		{"ON CONFLICT on the fresh Ref", clause.OnConflict{Columns: []clause.Column{{Name: "ref"}}, DoUpdates: updateName},
			[]string{"ref", "NewHUID"}, false},
		{"ON CONFLICT on no column", clause.OnConflict{DoUpdates: updateName}, []string{"id", "NewHUID"}, true},
		{"UpdateAll on no column", clause.OnConflict{UpdateAll: true}, []string{"ref"}, true},
		{"ON CONSTRAINT", clause.OnConflict{OnConstraint: "idx_ref_accts_email", DoUpdates: updateName}, []string{"id", "NewHUID"}, false},
		{"DO NOTHING", onEmail(clause.OnConflict{DoNothing: true}), []string{"id", "DoUpdates"}, true},
		{"DO UPDATE … WHERE", onEmail(clause.OnConflict{DoUpdates: updateName,
			Where: clause.Where{Exprs: []clause.Expression{clause.Expr{SQL: "1 = 0"}}}}), []string{"id", "DoUpdates"}, true},
		{"DoUpdates of the fresh Ref", onEmail(clause.OnConflict{DoUpdates: clause.AssignmentColumns([]string{"name", "ref"})}),
			[]string{"ref", "DoUpdates"}, true},
		{"UpdateAll with a fresh Ref", onEmail(clause.OnConflict{UpdateAll: true}), []string{"ref", "DoUpdates"}, true},
		{"OR IGNORE", clause.Insert{Modifier: "OR IGNORE"}, []string{"id", "OR IGNORE", "NewHUID"}, true},
		{"OR REPLACE", clause.Insert{Modifier: "OR REPLACE"}, []string{"id", "OR REPLACE", "NewHUID"}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			src := &keySource{}
			db := openDB(t, nil, src.plugin(0), &refAcct{})
			old := refAcct{ID: gormtype.NewHUID(), Ref: gormtype.NewSCRU128(), Email: "old@x", Name: "old"}
			mustCreate(t, db, &old)
			for _, rows := range [][]refAcct{
				{{Email: "old@x", Name: "renamed"}},
				{{Email: "new@x", Name: "new"}, {Email: "old@x", Name: "renamed"}},
			} {
				err := db.Clauses(c.clause).Create(&rows).Error
				checkRefused(t, err, gormtype.ErrRefused, append([]string{"ref_accts"}, c.mention...)...)
				var back []refAcct
				if err := db.Find(&back).Error; err != nil || len(back) != 1 || back[0] != old {
					t.Errorf("after the refusal the table holds %+v (%v); want only %+v", back, err, old)
				}
			}
			if !c.setOK {
				return
			}
			set := refAcct{ID: gormtype.NewHUID(), Ref: gormtype.NewSCRU128(), Email: "set@x", Name: "set"}
			src.next()
			if err := db.Clauses(c.clause).Create(&set).Error; err != nil {
				t.Fatalf("with the key and Ref set: %v", err)
			}
			if h, s := src.draws(); h+s != 0 {
				t.Errorf("%d IDs drawn for a row with every ID set", h+s)
			}
			checkCount(t, db, 1, "ref_accts", "id = ? AND ref = ? AND email = 'set@x'", set.ID, set.Ref)
		})
	}
}

type plainRow struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string
}

// TestRefuseSelectOrOmitLeavingAFreshColumnOut: a Select or Omit that
// leaves a fresh column out would store another value than the struct
// holds; one that includes the fresh columns runs.
func TestRefuseSelectOrOmitLeavingAFreshColumnOut(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		tx     func(db *gorm.DB) *gorm.DB
		column string // the column left out; "" if none
	}{
		{`Select("email", "name")`, func(db *gorm.DB) *gorm.DB { return db.Select("email", "name") }, "id"},
		{`Select("id", "email")`, func(db *gorm.DB) *gorm.DB { return db.Select("id", "email") }, "ref"},
		{`Omit("id")`, func(db *gorm.DB) *gorm.DB { return db.Omit("id") }, "id"},
		{`Omit("Ref")`, func(db *gorm.DB) *gorm.DB { return db.Omit("Ref") }, "ref"},
		{`Select("id", "ref", "email")`, func(db *gorm.DB) *gorm.DB { return db.Select("id", "ref", "email") }, ""},
		{`Omit("name")`, func(db *gorm.DB) *gorm.DB { return db.Omit("name") }, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			db := openDB(t, nil, gormtype.AutoID{}, &refAcct{})
			r := refAcct{Email: "a@x", Name: "a"}
			err := c.tx(db).Create(&r).Error
			if c.column == "" {
				if err != nil {
					t.Fatalf("Create: %v", err)
				}
				checkCount(t, db, 1, "ref_accts", "id = ? AND ref = ?", r.ID, r.Ref)
				return
			}
			checkRefused(t, err, gormtype.ErrRefused, "ref_accts", c.column, "include")
			checkCount(t, db, 0, "ref_accts", "1 = 1")
		})
	}
}

// TestRefuseRowsPassedByValue: AutoID cannot fill a row passed by value;
// the Create is refused, naming the way out, and no zero key is stored.
func TestRefuseRowsPassedByValue(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		v    any
	}{
		{"struct", plainRow{Name: "by value"}},
		{"array", [1]plainRow{{Name: "array by value"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			db := openDB(t, nil, gormtype.AutoID{}, &plainRow{})
			checkRefused(t, db.Create(c.v).Error, gormtype.ErrRefused, "plain_rows", "ID", "pointer")
			checkCount(t, db, 0, "plain_rows", "1 = 1")
		})
	}
}

// TestRefuseMapsLeavingAnAutoColumnUnset: AutoID fills structs only; a
// Create from a map that leaves the key or the auto Ref unset (or zero) is
// refused, naming the column; with both set it runs.
func TestRefuseMapsLeavingAnAutoColumnUnset(t *testing.T) {
	t.Parallel()
	key, ref := gormtype.NewHUID(), gormtype.NewSCRU128()
	cases := []struct {
		name   string
		v      any
		column string // the column left unset; "" if none
	}{
		{"no key", map[string]any{"Ref": ref, "Email": "a@x"}, "id"},
		{"zero key", map[string]any{"id": gormtype.HUID(0), "ref": ref, "Email": "b@x"}, "id"},
		{"no Ref", map[string]any{"ID": key, "Email": "c@x"}, "ref"},
		{"one of two rows without a key", []map[string]any{{"ID": key, "Ref": ref, "Email": "d@x"}, {"Ref": ref, "Email": "e@x"}}, "id"},
		{"all set", map[string]any{"ID": key, "Ref": ref, "Email": "f@x"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			db := openDB(t, nil, gormtype.AutoID{}, &refAcct{})
			err := db.Model(&refAcct{}).Create(c.v).Error
			if c.column == "" {
				if err != nil {
					t.Fatalf("Create from a map with every ID set: %v", err)
				}
				checkCount(t, db, 1, "ref_accts", "id = ? AND ref = ?", key, ref)
				return
			}
			checkRefused(t, err, gormtype.ErrRefused, "ref_accts", c.column, "struct")
			checkCount(t, db, 0, "ref_accts", "1 = 1")
		})
	}
}

// group and member: many2many through a join model with a HUID key of its
// own, which GORM inserts with ON CONFLICT DO NOTHING.
type group struct {
	ID      gormtype.HUID `gorm:"primaryKey"`
	Name    string
	Members []member `gorm:"many2many:memberships"`
}

type member struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string
}

type membership struct {
	ID       gormtype.HUID `gorm:"primaryKey"`
	GroupID  gormtype.HUID `gorm:"uniqueIndex:membership_pair"`
	MemberID gormtype.HUID `gorm:"uniqueIndex:membership_pair"`
}

type pairMembership struct {
	GroupID  gormtype.HUID `gorm:"primaryKey"`
	MemberID gormtype.HUID `gorm:"primaryKey"`
}

func (pairMembership) TableName() string { return "memberships" }

// TestRefuseJoinModelWithAFreshKey: a join model whose own key AutoID
// would fill is refused (GORM's DO NOTHING could skip its row), and the
// whole Create with it; a join model keyed by its two foreign keys works.
func TestRefuseJoinModelWithAFreshKey(t *testing.T) {
	t.Parallel()
	t.Run("keyed join model", func(t *testing.T) {
		t.Parallel()
		db := openDB(t, nil, gormtype.AutoID{})
		if err := db.SetupJoinTable(&group{}, "Members", &membership{}); err != nil {
			t.Fatal(err)
		}
		if err := db.AutoMigrate(&group{}, &member{}, &membership{}); err != nil {
			t.Fatal(err)
		}
		g := group{Name: "g", Members: []member{{Name: "a"}, {Name: "b"}}}
		checkRefused(t, db.Create(&g).Error, gormtype.ErrRefused, "memberships", "id")
		checkCount(t, db, 0, "groups", "1 = 1")
		checkCount(t, db, 0, "memberships", "1 = 1")
	})
	t.Run("join model keyed by its foreign keys", func(t *testing.T) {
		t.Parallel()
		db := openDB(t, nil, gormtype.AutoID{})
		if err := db.SetupJoinTable(&group{}, "Members", &pairMembership{}); err != nil {
			t.Fatal(err)
		}
		if err := db.AutoMigrate(&group{}, &member{}, &pairMembership{}); err != nil {
			t.Fatal(err)
		}
		g := group{Name: "g", Members: []member{{Name: "a"}, {Name: "b"}}}
		if err := db.Create(&g).Error; err != nil {
			t.Fatalf("Create: %v", err)
		}
		checkCount(t, db, 2, "memberships", "group_id = ?", g.ID)
		checkCount(t, db, 2, "members", "1 = 1")
	})
}
