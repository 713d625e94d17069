package integration_test

// The plain suite: ordinary GORM usage that works as in plain GORM with
// AutoID registered: map Creates get their new keys, map Updates with
// expressions, composite keys updated through Where and saved, clause
// values and named parameters among conditions, inline keys in groups,
// Between in a group, Joins and Preload with other conditions. Each on
// PostgreSQL, MariaDB and SQLite; not in parallel, as the tests share
// their tables.

import (
	"database/sql"
	"fmt"
	"testing"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/sortid/sortid/gormtype"
)

// plainItem has an auto-increment key and a HUID field.
type plainItem struct {
	ID   uint          `gorm:"primaryKey;autoIncrement"`
	Ref  gormtype.HUID `gorm:"not null"`
	Name string        `gorm:"size:50"`
}

func (plainItem) TableName() string { return "plain_items" }

// plainTenant has a composite key: a tenant number and a HUID.
type plainTenant struct {
	Tenant int64         `gorm:"primaryKey;autoIncrement:false"`
	ID     gormtype.HUID `gorm:"primaryKey"`
	Name   string        `gorm:"size:50"`
}

func (plainTenant) TableName() string { return "plain_tenants" }

// plainAuto has a HUID key and an auto SCRU128.
type plainAuto struct {
	ID   gormtype.HUID    `gorm:"primaryKey"`
	Ref  gormtype.SCRU128 `sortid:"auto"`
	Name string           `gorm:"size:50"`
}

func (plainAuto) TableName() string { return "plain_autos" }

// plainScru has a SCRU128 key.
type plainScru struct {
	ID   gormtype.SCRU128 `gorm:"primaryKey"`
	Name string           `gorm:"size:50"`
}

func (plainScru) TableName() string { return "plain_scrus" }

type plainParent struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string        `gorm:"size:50"`
	Kids []plainKid    `gorm:"foreignKey:ParentID"`
}

func (plainParent) TableName() string { return "plain_parents" }

type plainKid struct {
	ID       gormtype.HUID `gorm:"primaryKey"`
	ParentID gormtype.HUID
	Parent   *plainParent
	Name     string `gorm:"size:50"`
}

func (plainKid) TableName() string { return "plain_kids" }

// TestGormPlainMapCreateGetsID: a map Create whose map holds an ID as a
// value gormtype rebinds (an int64 for a HUID field) gets no new id back:
// checkMaps replaces stmt.Dest by a clone, and GORM writes the
// auto-increment id (LastInsertId on MySQL, RETURNING on PostgreSQL and
// SQLite) into stmt.Dest. Plain GORM writes it into the caller's map.
func TestGormPlainMapCreateGetsID(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		plain := d.open(t, &gorm.Config{})
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		resetTables(t, db, &plainItem{})
		ref := int64(gormtype.NewHUID())
		for _, c := range []struct {
			name string
			db   *gorm.DB
		}{{"plain", plain}, {"AutoID", db}} {
			m := map[string]any{"ref": ref, "name": "map " + c.name}
			if err := c.db.Model(&plainItem{}).Create(m).Error; err != nil {
				t.Fatalf("%s Create(map): %v", c.name, err)
			}
			if _, ok := m["id"]; !ok {
				t.Errorf("%s Create(map): the caller's map has no id: %v", c.name, m)
			}
			pm := map[string]any{"ref": ref, "name": "*map " + c.name}
			if err := c.db.Model(&plainItem{}).Create(&pm).Error; err != nil {
				t.Fatalf("%s Create(*map): %v", c.name, err)
			}
			if _, ok := pm["id"]; !ok {
				t.Errorf("%s Create(*map): the caller's map has no id: %v", c.name, pm)
			}
			// control: a gormtype.HUID value is not copied, and gets its id
			hm := map[string]any{"ref": gormtype.HUID(ref), "name": "huid " + c.name}
			if err := c.db.Model(&plainItem{}).Create(hm).Error; err != nil {
				t.Fatalf("%s Create(map of HUID): %v", c.name, err)
			}
			if _, ok := hm["id"]; !ok {
				t.Errorf("%s Create(map of HUID): the caller's map has no id: %v", c.name, hm)
			}
		}
	})
}

// TestGormPlainSliceMapCreateGetsIDs: the same for *[]map: plain GORM
// (RETURNING on PostgreSQL, MariaDB and SQLite) scans the returned rows
// into the caller's slice; with AutoID they go to the clone. ([]map by
// value fails in plain GORM on a RETURNING dialect: GORM cannot scan into
// it.) The test compares the caller's slice after both.
func TestGormPlainSliceMapCreateGetsIDs(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		plain := d.open(t, &gorm.Config{})
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		resetTables(t, db, &plainItem{})
		var seen [2]string
		for i, c := range []*gorm.DB{plain, db} {
			ms := []map[string]any{
				{"ref": int64(gormtype.NewHUID()), "name": "a"},
				{"ref": int64(gormtype.NewHUID()), "name": "b"},
			}
			if err := c.Model(&plainItem{}).Create(&ms).Error; err != nil {
				t.Fatalf("Create(*[]map): %v", err)
			}
			ids := 0
			for _, m := range ms {
				if _, ok := m["id"]; ok {
					ids++
				}
			}
			seen[i] = fmt.Sprintf("%d maps, %d with an id", len(ms), ids)
		}
		if seen[0] != seen[1] {
			t.Errorf("Create(*[]map): plain GORM leaves %s, AutoID %s", seen[0], seen[1])
		}
	})
}

// TestGormPlainUpdatesMapExpr: Updates(map) with gorm.Expr values next
// to an ID that is rebound.
func TestGormPlainUpdatesMapExpr(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		resetTables(t, db, &plainItem{})
		row := plainItem{Ref: gormtype.NewHUID(), Name: "a"}
		mustCreate(t, db, &row)
		ref2 := gormtype.NewHUID()
		m := map[string]any{"name": gorm.Expr("UPPER(name)"), "ref": int64(ref2)}
		if err := db.Model(&row).Updates(m).Error; err != nil {
			t.Fatalf("Updates(map with Expr): %v", err)
		}
		if _, isInt := m["ref"].(int64); !isInt {
			t.Errorf("the caller's map was changed: %#v", m["ref"])
		}
		checkCount(t, db, 1, "plain_items", "name = ? AND ref = ?", "A", int64(ref2))
		if err := db.Model(&row).Updates(map[string]any{"ref": gorm.Expr("ref + 1")}).Error; err != nil {
			t.Fatalf("Updates(ref = ref+1): %v", err)
		}
		checkCount(t, db, 1, "plain_items", "ref = ?", int64(ref2)+1)
	})
}

// TestGormPlainCompositeUpdateByWhere: Model(&row) with the tenant part
// of a composite key set and the HUID part left zero, the rows named by
// Where, is run as plain GORM runs it (WHERE tenant = 1 AND …).
func TestGormPlainCompositeUpdateByWhere(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		plain := d.open(t, &gorm.Config{})
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		resetTables(t, db, &plainTenant{})
		a, b := gormtype.NewHUID(), gormtype.NewHUID()
		rows := []plainTenant{{1, a, "a"}, {1, b, "b"}, {2, a, "a"}}
		mustCreate(t, db, &rows)

		if err := plain.Model(&plainTenant{Tenant: 1}).Where("id = ?", a).Update("name", "plain").Error; err != nil {
			t.Fatalf("plain: %v", err)
		}
		checkCount(t, db, 1, "plain_tenants", "name = ?", "plain")

		// the ID given in Where: the statement names exactly one row
		err := db.Model(&plainTenant{Tenant: 1}).Where("id = ?", b).Update("name", "byid").Error
		if err != nil {
			t.Errorf("Model(&plainTenant{Tenant: 1}).Where(id = ?).Update: %v", err)
		}
		err = db.Model(&plainTenant{Tenant: 1}).Where("id IN ?", []gormtype.HUID{a, b}).Updates(map[string]any{"name": "in"}).Error
		if err != nil {
			t.Errorf("Model(&plainTenant{Tenant: 1}).Where(id IN ?).Updates: %v", err)
		}
		// every row of tenant 1 whose name matches
		err = db.Model(&plainTenant{Tenant: 1}).Where("name = ?", "in").Update("name", "renamed").Error
		if err != nil {
			t.Errorf("Model(&plainTenant{Tenant: 1}).Where(name = ?).Update: %v", err)
		}
	})
}

// TestGormPlainSaveComposite: Save of loaded composite-key rows, and of
// a new one (GORM creates a row with a zero key part).
func TestGormPlainSaveComposite(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		resetTables(t, db, &plainTenant{})
		row := plainTenant{Tenant: 1, Name: "a"}
		if err := db.Save(&row).Error; err != nil {
			t.Fatalf("Save(new): %v", err)
		}
		row.Name = "b"
		if err := db.Save(&row).Error; err != nil {
			t.Fatalf("Save(loaded): %v", err)
		}
		rows := []plainTenant{row, {Tenant: 2, ID: gormtype.NewHUID(), Name: "c"}}
		rows[0].Name = "d"
		if err := db.Save(&rows).Error; err != nil {
			t.Fatalf("Save(slice): %v", err)
		}
		checkCount(t, db, 2, "plain_tenants", "name IN ?", []string{"c", "d"})
	})
}

// TestGormPlainExprNonIDVars: clause values that are not conditions
// (Column, Table, OrderBy, Like, Gt, nested Expr) among an expression's
// values, named parameters, and Count/Pluck/Row/Rows/Scan with them.
func TestGormPlainExprNonIDVars(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		resetTables(t, db, &plainAuto{})
		rows := []plainAuto{{Name: "a"}, {Name: "b"}, {Name: "c"}}
		mustCreate(t, db, &rows)
		in := clause.Expr{SQL: "? IN (SELECT ? FROM ? WHERE ?)", Vars: []any{
			clause.Column{Name: "id"}, clause.Column{Name: "id"}, clause.Table{Name: "plain_autos"},
			clause.Expr{SQL: "? AND ?", Vars: []any{
				clause.Like{Column: clause.Column{Name: "name"}, Value: "%"},
				clause.Gt{Column: clause.Column{Name: "id"}, Value: rows[0].ID},
			}},
		}}
		conds := map[string]func() *gorm.DB{
			"Expr of Column, Table, Like, Gt": func() *gorm.DB { return db.Model(&plainAuto{}).Where(in) },
			"Expr of Eq and Neq": func() *gorm.DB {
				return db.Model(&plainAuto{}).Where(gorm.Expr("? OR ?", clause.Eq{Column: "id", Value: rows[1].ID},
					clause.Eq{Column: "id", Value: rows[2].ID}))
			},
			"sql.Named": func() *gorm.DB {
				return db.Model(&plainAuto{}).Where("id = @a OR id = @b", sql.Named("a", rows[1].ID), sql.Named("b", rows[2].ID))
			},
			"map NamedExpr": func() *gorm.DB {
				return db.Model(&plainAuto{}).Where("id = @a OR id = @b", map[string]any{"a": rows[1].ID, "b": rows[2].ID})
			},
			"NamedExpr of a clause": func() *gorm.DB {
				return db.Model(&plainAuto{}).Where(clause.NamedExpr{SQL: "@n OR id = @b", Vars: []any{
					sql.Named("n", clause.Eq{Column: "id", Value: rows[1].ID}), sql.Named("b", rows[2].ID)}})
			},
		}
		for name, q := range conds {
			var n int64
			if err := q().Count(&n).Error; err != nil {
				t.Errorf("%s Count: %v", name, err)
			}
			var ids []gormtype.HUID
			if err := q().Pluck("id", &ids).Error; err != nil {
				t.Errorf("%s Pluck: %v", name, err)
			}
			var found []plainAuto
			if err := q().Order(clause.OrderByColumn{Column: clause.Column{Name: "id"}}).Find(&found).Error; err != nil {
				t.Errorf("%s Find: %v", name, err)
			}
			if err := q().Select("name").Row().Err(); err != nil {
				t.Errorf("%s Row: %v", name, err)
			}
			r, err := q().Rows()
			if err != nil {
				t.Errorf("%s Rows: %v", name, err)
			} else {
				r.Close()
			}
			var names []string
			if err := q().Select("name").Scan(&names).Error; err != nil {
				t.Errorf("%s Scan: %v", name, err)
			}
			if n != 2 || len(ids) != 2 || len(found) != 2 || len(names) != 2 {
				t.Errorf("%s: Count %d, Pluck %d, Find %d, Scan %d; want 2", name, n, len(ids), len(found), len(names))
			}
		}
	})
}

// TestGormPlainGroupInlineKeys: group conditions with inline keys, on a
// SCRU128 and a HUID key; Not of one.
func TestGormPlainGroupInlineKeys(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		resetTables(t, db, &plainScru{}, &plainAuto{})
		s := []plainScru{{ID: gormtype.NewSCRU128(), Name: "a"}, {ID: gormtype.NewSCRU128(), Name: "b"}, {ID: gormtype.NewSCRU128(), Name: "c"}}
		mustCreate(t, db, &s)
		var got []plainScru
		if err := db.Where(db.Where(s[0].ID).Or(s[1].ID)).Find(&got).Error; err != nil || len(got) != 2 {
			t.Errorf("SCRU128 Where(Where(id).Or(id)): %d rows, %v", len(got), err)
		}
		var n int64
		if err := db.Model(&plainScru{}).Not(s[0].ID).Count(&n).Error; err != nil || n != 2 {
			t.Errorf("SCRU128 Not(id) Count: %d, %v", n, err)
		}
		h := []plainAuto{{Name: "a"}, {Name: "b"}, {Name: "c"}}
		mustCreate(t, db, &h)
		var hg []plainAuto
		if err := db.Where(db.Where(h[0].ID).Or(db.Not(h[1].ID).Where("name = ?", "c"))).Find(&hg).Error; err != nil || len(hg) != 2 {
			t.Errorf("HUID nested group: %d rows, %v", len(hg), err)
		}
	})
}

// TestGormPlainBetweenInGroup: Between with a model and a valid window
// inside a group condition, and Joins/Preload with non-Eq conditions.
func TestGormPlainBetweenInGroup(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		resetTables(t, db, &plainAuto{}, &plainParent{}, &plainKid{})
		rows := []plainAuto{{Name: "a"}, {Name: "b"}}
		mustCreate(t, db, &rows)
		from, to := time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
		var got []plainAuto
		err := db.Model(&plainAuto{}).Where(db.Model(&plainAuto{}).Scopes(gormtype.Between("id", from, to)).Or("name = ?", "zz")).Find(&got).Error
		if err != nil || len(got) != 2 {
			t.Errorf("Between in a group: %d rows, %v", len(got), err)
		}
		var n int64
		err = db.Model(&plainAuto{}).Scopes(gormtype.Between("id", to, from)).Count(&n).Error
		if err == nil {
			t.Errorf("bad window: no error")
		}

		p := plainParent{Name: "p", Kids: []plainKid{{Name: "k1"}, {Name: "k2"}}}
		mustCreate(t, db, &p)
		var kids []plainKid
		err = db.Joins("Parent", db.Where(clause.Like{Column: clause.Column{Table: "Parent", Name: "name"}, Value: "p%"})).
			Joins("JOIN plain_parents q ON q.id = plain_kids.parent_id AND q.name <> ?", "x").
			Where("plain_kids.name > ?", "k").Find(&kids).Error
		if err != nil || len(kids) != 2 || kids[0].Parent == nil {
			t.Errorf("Joins with Like/<> conditions: %d, %v", len(kids), err)
		}
		var ps []plainParent
		err = db.Preload("Kids", func(tx *gorm.DB) *gorm.DB { return tx.Where("name <> ?", "k1").Order("name") }).Find(&ps).Error
		if err != nil || len(ps) != 1 || len(ps[0].Kids) != 1 {
			t.Errorf("Preload with a condition: %v, %v", ps, err)
		}
		var count int64
		if err := db.Model(&p).Association("Kids").Find(&kids, "name = ?", "k2"); err != nil || len(kids) != 1 {
			t.Errorf("Association Find: %d, %v", len(kids), err)
		}
		count = db.Model(&p).Association("Kids").Count()
		if count != 2 {
			t.Errorf("Association Count: %d", count)
		}
	})
}

// TestGormPlainUpsertKeySetAutoUnset: an OnConflict{UpdateAll: true}
// Create of a row whose key the caller set, which AutoID stores as given,
// with its plain sortid:"auto" field unset fails with ErrZeroID naming the
// field and the way out, and stores nothing.
func TestGormPlainUpsertKeySetAutoUnset(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		resetTables(t, db, &plainAuto{})
		row := plainAuto{ID: gormtype.NewHUID(), Name: "new"}
		err := db.Clauses(clause.OnConflict{UpdateAll: true}).Create(&row).Error
		checkRefused(t, err, gormtype.ErrZeroID, "plainAuto", "Ref", "db.Save", "create it first")
		checkCount(t, db, 0, "plain_autos", "1 = 1")
	})
}
