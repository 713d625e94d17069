package integration_test

// The conditions suite, continued: zero IDs in subqueries that Scopes, Raw
// and Exec build, inline keys in Not and Or, and the ordinary reads and
// writes with NULL keys that the checks of conditions must let through;
// upserts on the key of rows given by key. Each on PostgreSQL, MariaDB and
// SQLite unless named; not in parallel, as the tests share their tables.

import (
	"database/sql"
	"errors"
	"testing"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/sortid/sortid/gormtype"
)

func condConfig() *gorm.Config {
	return &gorm.Config{DisableForeignKeyConstraintWhenMigrating: true}
}

// TestGormCondSubqueryScopes: a zero ID in a subquery's Scopes is not
// seen by the outer checkWhere (the scopes run only when GORM builds the
// subquery); the subquery's own checkWhere then fails it, GORM drops that
// error and writes the subquery as "" — "id NOT IN ()", which SQLite
// takes for every row.
func TestGormCondSubqueryScopes(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, condConfig(), gormtype.AutoID{})
		shapeSeed(t, db)
		var zero gormtype.HUID
		byParent := func(id gormtype.HUID) func(*gorm.DB) *gorm.DB {
			return func(tx *gorm.DB) *gorm.DB { return tx.Where(map[string]any{"parent_id": id}) }
		}
		sub := db.Model(&shapeKid{}).Select("parent_id").Scopes(byParent(zero))
		err := db.Where("id NOT IN (?)", sub).Delete(&shapeParent{}).Error
		n := countRows(t, db, "shape_parents", "1 = 1")
		if !errors.Is(err, gormtype.ErrZeroID) || n != 2 {
			t.Errorf("Delete with a zero ID in a subquery's Scopes: err %v, %d of 2 parents left; want ErrZeroID and none deleted", err, n)
		}
	})
}

// TestGormCondRawSubquery: a subquery with a zero ID passed to Exec or
// Raw (GORM's Raw callback, which AutoID does not check): the subquery is
// written as "", and SQLite runs "id NOT IN ()" on every row.
func TestGormCondRawSubquery(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, condConfig(), gormtype.AutoID{})
		shapeSeed(t, db)
		var zero gormtype.HUID
		sub := func() *gorm.DB {
			return db.Model(&shapeKid{}).Select("parent_id").Where(map[string]any{"parent_id": zero})
		}
		var rows []shapeParent
		err := db.Raw("SELECT * FROM shape_parents WHERE id NOT IN (?)", sub()).Scan(&rows).Error
		if !errors.Is(err, gormtype.ErrZeroID) {
			t.Errorf("Raw with a zero ID in a subquery: err %v, %d rows; want ErrZeroID", err, len(rows))
		}
		err = db.Exec("DELETE FROM shape_parents WHERE id NOT IN (?)", sub()).Error
		n := countRows(t, db, "shape_parents", "1 = 1")
		if !errors.Is(err, gormtype.ErrZeroID) || n != 2 {
			t.Errorf("Exec Delete with a zero ID in a subquery: err %v, %d of 2 parents left; want ErrZeroID and none deleted", err, n)
		}
	})
}

type condBytesRow struct {
	ID   gormtype.SCRU128Bytes `gorm:"primaryKey"`
	Name string                `gorm:"size:50"`
}

func (condBytesRow) TableName() string { return "cond_bytes_rows" }

// TestGormCondNotOrBytesKey: a SCRU128Bytes key given inline to Not or
// Or, as GORM documents for keys (db.Not([]int64{1,2,3})): checkWhere binds
// an inline key only at the top of WHERE, so inside Not or Or GORM expands
// it into 16 numbers. Not(key) then matches every row, the key's too.
func TestGormCondNotOrBytesKey(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, condConfig(), gormtype.AutoID{})
		resetTables(t, db, &condBytesRow{})
		rows := []condBytesRow{{Name: "a"}, {Name: "b"}, {Name: "c"}}
		mustCreate(t, db, &rows)
		a := rows[0].ID
		var got []condBytesRow
		if err := db.Not(a).Find(&got).Error; err != nil || len(got) != 2 {
			t.Errorf("Not(key).Find: err %v, %d rows; want b and c", err, len(got))
		}
		got = nil
		if err := db.Where("name = ?", "b").Or(a).Find(&got).Error; err != nil || len(got) != 2 {
			t.Errorf("Where(name = b).Or(key).Find: err %v, %d rows; want a and b", err, len(got))
		}
		err := db.Not(a).Delete(&condBytesRow{}).Error
		if n := countRows(t, db, "cond_bytes_rows", "1 = 1"); err != nil || n != 1 {
			t.Errorf("Not(key).Delete: err %v, %d rows left; want the key's row only", err, n)
		} else {
			checkCount(t, db, 1, "cond_bytes_rows", "name = 'a'")
		}
	})
}

// TestGormCondClearPlainForeignKey: Association Delete and Clear of a
// has-many whose foreign key is a plain HUID, which GORM detaches by
// writing NULL, fail with ErrZeroID naming the types that may be NULL; the
// kids stay attached. (A plain HUID cannot read NULL back; TestGormFlowTree
// detaches a *HUID foreign key.)
func TestGormCondClearPlainForeignKey(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, condConfig(), gormtype.AutoID{})
		ps := shapeSeed(t, db)
		a, b := ps[0], ps[1]
		checkRefused(t, db.Model(&a).Association("Kids").Delete(&a.Kids[0]), gormtype.ErrZeroID, "cannot hold NULL", "*gormtype.HUID", "NullHUID", "Association")
		checkRefused(t, db.Model(&b).Association("Kids").Clear(), gormtype.ErrZeroID, "cannot hold NULL")
		checkCount(t, db, 2, "shape_kids", "parent_id = ?", a.ID)
		checkCount(t, db, 1, "shape_kids", "parent_id = ?", b.ID)
	})
}

type condOwner struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string        `gorm:"size:50"`
}

func (condOwner) TableName() string { return "cond_owners" }

type condTag struct {
	ID   gormtype.SCRU128Bytes `gorm:"primaryKey"`
	Name string                `gorm:"size:50"`
}

func (condTag) TableName() string { return "cond_tags" }

type condNote struct {
	ID        gormtype.HUID `gorm:"primaryKey"`
	OwnerID   gormtype.HUID
	OwnerType string `gorm:"size:50"`
	Body      string `gorm:"size:50"`
}

func (condNote) TableName() string { return "cond_notes" }

type condNode struct {
	ID        gormtype.HUID  `gorm:"primaryKey"`
	ParentID  *gormtype.HUID `gorm:"index"`
	Parent    *condNode
	Children  []condNode `gorm:"foreignKey:ParentID"`
	OwnerID   gormtype.NullHUID
	Owner     *condOwner           `gorm:"foreignKey:OwnerID"`
	Trace     gormtype.NullSCRU128 `sortid:"auto"`
	Name      string               `gorm:"size:50"`
	DeletedAt gorm.DeletedAt
	Notes     []condNote `gorm:"polymorphic:Owner"`
	Tags      []condTag  `gorm:"many2many:cond_node_tags"`
}

func (condNode) TableName() string { return "cond_nodes" }

// condTree makes root → child → grandchild, child owned, root tagged and
// noted, and a stray node with NULL parent and owner.
func condTree(t *testing.T, db *gorm.DB) (root, child condNode, owner condOwner) {
	t.Helper()
	resetTables(t, db, &condOwner{}, &condTag{}, &condNote{}, &condNode{}, "cond_node_tags")
	owner = condOwner{Name: "o"}
	mustCreate(t, db, &owner)
	root = condNode{Name: "root", Tags: []condTag{{Name: "t1"}}, Notes: []condNote{{Body: "n1"}},
		Children: []condNode{{Name: "child", OwnerID: gormtype.NullHUID{V: owner.ID, Valid: true}, Children: []condNode{{Name: "grandchild"}}}}}
	mustCreate(t, db, &root)
	mustCreate(t, db, &condNode{Name: "stray"})
	return root, root.Children[0], owner
}

// TestGormCondOrdinaryReads: reads of a tree with NULL pointer and Null
// foreign keys, as with int64 keys: Preload (nested, with conditions,
// belongs-to of NULL keys), Joins, Association Find/Count, struct, map and
// hand-built conditions with NULL, Not/Or, Scopes, Count, Pluck, Group and
// Having.
func TestGormCondOrdinaryReads(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, condConfig(), gormtype.AutoID{})
		root, child, owner := condTree(t, db)
		check := func(what string, err error, got, want int) {
			t.Helper()
			if err != nil || got != want {
				t.Errorf("%s: err %v, got %d, want %d", what, err, got, want)
			}
		}
		var nodes []condNode
		err := db.Preload("Parent").Preload("Owner").Preload("Children.Children").Preload("Tags").Preload("Notes").Order("name").Find(&nodes).Error
		check("Preload of NULL belongs-to keys, nested", err, len(nodes), 4)
		nodes = nil
		err = db.Preload("Children", "name <> ?", "x").Preload("Parent", func(tx *gorm.DB) *gorm.DB { return tx.Where("name = ?", "root") }).Find(&nodes).Error
		check("Preload with conditions", err, len(nodes), 4)
		nodes = nil
		err = db.Joins("Parent").Joins("Owner").Find(&nodes).Error
		check("Joins of NULL belongs-to keys", err, len(nodes), 4)
		nodes = nil
		err = db.InnerJoins("Owner").Find(&nodes).Error
		check("InnerJoins(Owner)", err, len(nodes), 1)
		var p condNode
		err = db.Model(&root).Association("Parent").Find(&p)
		check("Association(Parent).Find of a root", err, map[bool]int{true: 1}[p.ID.IsZero()], 1)
		n := db.Model(&root).Association("Owner").Count()
		check("Association(Owner).Count of a NULL Null key", nil, int(n), 0)
		check("Association(Children).Count", nil, int(db.Model(&root).Association("Children").Count()), 1)
		check("Association(Tags).Count", nil, int(db.Model(&root).Association("Tags").Count()), 1)
		check("Association(Notes).Count", nil, int(db.Model(&root).Association("Notes").Count()), 1)
		var o condOwner
		err = db.Model(&child).Association("Owner").Find(&o)
		check("Association(Owner).Find", err, map[bool]int{true: 1}[o.ID == owner.ID], 1)

		count := func(q *gorm.DB) (int, error) {
			var rows []condNode
			err := q.Find(&rows).Error
			return len(rows), err
		}
		c, err := count(db.Where(&condNode{Name: "root"}))
		check("Where(&T{Name}) with zero ID fields", err, c, 1)
		c, err = count(db.Where(&condNode{Name: "stray"}, "Name", "ParentID", "OwnerID"))
		check("Where(&T{…}, fields) with nil and NULL Null", err, c, 1)
		c, err = count(db.Where(map[string]any{"parent_id": nil, "owner_id": gormtype.NullHUID{}}))
		check("Where(map{nil, NULL Null})", err, c, 2)
		c, err = count(db.Not(map[string]any{"parent_id": nil}).Or(map[string]any{"owner_id": child.OwnerID}))
		check("Not(nil).Or(Null)", err, c, 2)
		c, err = count(db.Where(clause.Eq{Column: clause.Column{Name: "owner_id"}, Value: gormtype.NullHUID{}}))
		check("clause.Eq with a NULL Null", err, c, 3)
		c, err = count(db.Where(clause.Neq{Column: clause.Column{Name: "owner_id"}, Value: gormtype.NullHUID{}}))
		check("clause.Neq with a NULL Null", err, c, 1)
		c, err = count(db.Where(gorm.Expr("parent_id = ?", root.ID)))
		check("gorm.Expr", err, c, 1)
		c, err = count(db.Where("parent_id = @p", sql.Named("p", root.ID)))
		check("sql.Named", err, c, 1)
		c, err = count(db.Scopes(func(tx *gorm.DB) *gorm.DB { return tx.Where(map[string]any{"parent_id": root.ID}) }))
		check("Scopes", err, c, 1)
		c, err = count(db.Where("id IN (?)", db.Model(&condNode{}).Select("parent_id").Where(map[string]any{"owner_id": child.OwnerID})))
		check("subquery with a Null", err, c, 1)
		var total int64
		err = db.Model(&condNode{}).Where(map[string]any{"parent_id": nil}).Count(&total).Error
		check("Count", err, int(total), 2)
		var ids []gormtype.HUID
		err = db.Model(&condNode{}).Where("parent_id IS NOT NULL").Pluck("id", &ids).Error
		check("Pluck", err, len(ids), 2)
		var groups []struct {
			ParentID *gormtype.HUID
			N        int
		}
		err = db.Model(&condNode{}).Select("parent_id, COUNT(*) AS n").Group("parent_id").Having(map[string]any{"parent_id": root.ID}).Scan(&groups).Error
		check("Group/Having", err, len(groups), 1)
		groups = nil
		err = db.Model(&condNode{}).Select("parent_id, COUNT(*) AS n").Group("parent_id").Having("parent_id IS NULL").Scan(&groups).Error
		check("Having IS NULL", err, len(groups), 1)
		c, err = count(db.Unscoped().Where(&condNode{ParentID: &root.ID}))
		check("Unscoped Where(&T{ParentID: &id})", err, c, 1)
	})
}

// TestGormCondOrdinaryWrites: writes with NULL pointer and Null keys,
// as with int64 keys: Association Append/Replace/Delete/Clear of a *HUID
// and a Null belongs-to and of a many2many, FirstOrCreate and FirstOrInit
// with NULL conditions, Updates to NULL, Save of loaded rows with NULL
// sortid:"auto" Nulls, Select(clause.Associations) Delete and Unscoped.
func TestGormCondOrdinaryWrites(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, condConfig(), gormtype.AutoID{})
		root, child, owner := condTree(t, db)
		try := func(what string, err error) {
			t.Helper()
			if err != nil {
				t.Errorf("%s: %v", what, err)
			}
		}
		var stray condNode
		try("First stray", db.Where("name = ?", "stray").First(&stray).Error)
		try("Association(Parent).Append", db.Model(&stray).Association("Parent").Append(&root))
		checkCount(t, db, 1, "cond_nodes", "name = 'stray' AND parent_id = ?", root.ID)
		try("Association(Parent).Clear", db.Model(&stray).Association("Parent").Clear())
		checkCount(t, db, 1, "cond_nodes", "name = 'stray' AND parent_id IS NULL")
		o1, o2 := owner, owner // GORM zeroes the struct it detaches
		try("Association(Owner).Replace", db.Model(&stray).Association("Owner").Replace(&o1))
		checkCount(t, db, 1, "cond_nodes", "name = 'stray' AND owner_id = ?", owner.ID)
		try("Association(Owner).Delete", db.Model(&stray).Association("Owner").Delete(&o2))
		checkCount(t, db, 1, "cond_nodes", "name = 'stray' AND owner_id IS NULL")
		try("Association(Children).Append of a loaded node", db.Model(&root).Association("Children").Append(&stray))
		checkCount(t, db, 2, "cond_nodes", "parent_id = ?", root.ID)
		try("Association(Children).Delete", db.Model(&root).Association("Children").Delete(&stray))
		checkCount(t, db, 1, "cond_nodes", "parent_id = ?", root.ID)
		try("Association(Tags).Append new", db.Model(&stray).Association("Tags").Append(&condTag{Name: "t2"}))
		try("Association(Tags).Replace", db.Model(&stray).Association("Tags").Replace(&root.Tags[0]))
		try("Association(Tags).Delete", db.Model(&stray).Association("Tags").Delete(&root.Tags[0]))
		try("Association(Tags).Clear", db.Model(&root).Association("Tags").Clear())
		checkCount(t, db, 0, "cond_node_tags", "1 = 1")
		checkCount(t, db, 2, "cond_tags", "1 = 1")

		var f condNode
		try("FirstOrCreate with NULL conditions", db.Where(map[string]any{"name": "foc", "parent_id": nil}).Where(&condNode{OwnerID: gormtype.NullHUID{}}).FirstOrCreate(&f).Error)
		if f.ID.IsZero() || !f.Trace.Valid {
			t.Errorf("FirstOrCreate: %+v; want the key and Trace filled", f)
		}
		var f2 condNode
		try("FirstOrCreate found", db.Where(map[string]any{"name": "foc", "parent_id": nil}).Assign(map[string]any{"owner_id": gormtype.NullHUID{}}).FirstOrCreate(&f2).Error)
		if f2.ID != f.ID {
			t.Errorf("FirstOrCreate found %v, want %v", f2.ID, f.ID)
		}
		var fi condNode
		try("FirstOrInit", db.Where(map[string]any{"name": "foi", "parent_id": nil}).Attrs(condNode{OwnerID: gormtype.NullHUID{V: owner.ID, Valid: true}}).FirstOrInit(&fi).Error)
		try("Save of the FirstOrInit row", db.Save(&fi).Error)
		checkCount(t, db, 1, "cond_nodes", "name = 'foi' AND owner_id = ? AND trace IS NOT NULL", owner.ID)

		try("Updates map to NULL Null", db.Model(&child).Updates(map[string]any{"owner_id": gormtype.NullHUID{}, "parent_id": nil}).Error)
		checkCount(t, db, 1, "cond_nodes", "id = ? AND owner_id IS NULL AND parent_id IS NULL", child.ID)
		child.OwnerID, child.ParentID = gormtype.NullHUID{V: owner.ID, Valid: true}, &root.ID
		try("Save child", db.Omit(clause.Associations).Save(&child).Error)
		child.OwnerID = gormtype.NullHUID{}
		try("Select(OwnerID).Updates(struct with NULL Null)", db.Model(&child).Select("OwnerID").Updates(&condNode{OwnerID: gormtype.NullHUID{}}).Error)
		checkCount(t, db, 1, "cond_nodes", "id = ? AND owner_id IS NULL AND parent_id = ?", child.ID, root.ID)

		// loaded rows with a NULL sortid:"auto" Null (a column added later)
		mustExec(t, db, "UPDATE cond_nodes SET trace = NULL")
		var loaded []condNode
		try("Find all", db.Order("name").Find(&loaded).Error)
		for i := range loaded {
			loaded[i].Name += "!"
		}
		try("Save of loaded rows with NULL auto Nulls", db.Omit(clause.Associations).Save(&loaded).Error)
		checkCount(t, db, int64(len(loaded)), "cond_nodes", "name LIKE '%!' AND trace IS NULL")
		checkCount(t, db, int64(len(loaded)), "cond_nodes", "1 = 1")
		one := loaded[0]
		try("Save of one unchanged loaded row", db.Omit(clause.Associations).Save(&one).Error)
		checkCount(t, db, int64(len(loaded)), "cond_nodes", "1 = 1")

		try("Select(Associations).Delete", db.Select(clause.Associations).Delete(&root).Error)
		checkCount(t, db, 0, "cond_notes", "1 = 1")
		try("Unscoped Delete", db.Unscoped().Delete(&condNode{}, root.ID).Error)
		checkCount(t, db, 0, "cond_nodes", "id = ?", root.ID)
	})
}

// TestGormCondUpsertByKeyLeavesAutoNull: an upsert on the key
// (OnConflict{UpdateAll: true}, db.Save of a slice or of a row its UPDATE
// did not find) stores the rows given by key as given, as docs/gorm.md
// says: their unset sortid:"auto" Null stays NULL, since AutoID cannot tell
// them from loaded rows. A new row (its key unset) in such an upsert is
// refused with ErrRefused, and nothing is written.
func TestGormCondUpsertByKeyLeavesAutoNull(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, condConfig(), gormtype.AutoID{})
		resetTables(t, db, &condOwner{}, &condTag{}, &condNote{}, &condNode{}, "cond_node_tags")
		stored := condNode{Name: "stored"}
		mustCreate(t, db, &stored)
		stored.Trace = gormtype.NullSCRU128{}
		rows := []condNode{{ID: gormtype.NewHUID(), Name: "new1"}, stored}
		if err := db.Clauses(clause.OnConflict{UpdateAll: true}).Create(&rows).Error; err != nil {
			t.Fatalf("OnConflict{UpdateAll}.Create of rows given by key: %v", err)
		}
		saved := []condNode{{ID: gormtype.NewHUID(), Name: "new2"}}
		if err := db.Save(&saved).Error; err != nil {
			t.Fatalf("Save of a slice of a row given by key: %v", err)
		}
		one := condNode{ID: gormtype.NewHUID(), Name: "new3"}
		if err := db.Save(&one).Error; err != nil {
			t.Fatalf("Save of a row given by key: %v", err)
		}
		for _, id := range []gormtype.HUID{rows[0].ID, stored.ID, saved[0].ID, one.ID} {
			checkCount(t, db, 1, "cond_nodes", "id = ? AND trace IS NULL", id)
		}
		mixed := []condNode{{ID: gormtype.NewHUID(), Name: "keyed"}, {Name: "new"}}
		checkRefused(t, db.Save(&mixed).Error, gormtype.ErrRefused, "cond_nodes")
		checkCount(t, db, 4, "cond_nodes", "1 = 1")
	})
}

type condPtrKey struct {
	ID   *gormtype.HUID `gorm:"primaryKey"`
	Name string         `gorm:"size:50"`
}

func (condPtrKey) TableName() string { return "cond_ptr_keys" }

// TestGormCondZeroSlips: zero IDs where checkWhere does not look: in
// Preload conditions, Assign and Attrs, clause.IN, sql.Named, and the key
// of the struct a query fills (GORM adds its condition in gorm:query,
// after checkWhere, as IS NULL: no key is NULL, so it finds nothing). Each
// must fail, not match as NULL.
func TestGormCondZeroSlips(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, condConfig(), gormtype.AutoID{})
		root, _, _ := condTree(t, db)
		var zero gormtype.HUID
		var nodes []condNode
		refused := func(what string, err error) {
			t.Helper()
			if !errors.Is(err, gormtype.ErrZeroID) {
				t.Errorf("%s: %v; want ErrZeroID", what, err)
			}
		}
		refused("Preload(Children, map{parent_id: zero})", db.Preload("Children", map[string]any{"parent_id": zero}).Find(&nodes).Error)
		refused("Preload(Children, func Where zero)", db.Preload("Children", func(tx *gorm.DB) *gorm.DB { return tx.Where("id = ?", zero) }).Find(&nodes).Error)
		refused("clause.IN with a zero", db.Where(clause.IN{Column: clause.Column{Name: "parent_id"}, Values: []any{zero}}).Find(&nodes).Error)
		refused("clause.IN with a zero and a key", db.Where(clause.IN{Column: clause.Column{Name: "parent_id"}, Values: []any{zero, root.ID}}).Find(&nodes).Error)
		refused("sql.Named zero", db.Where("parent_id = @p", sql.Named("p", zero)).Find(&nodes).Error)
		refused("Where(&T{OwnerID: Valid zero})", db.Where(&condNode{OwnerID: gormtype.NullHUID{Valid: true}}).Find(&nodes).Error)
		var a condNode
		refused("Attrs(ParentID: &zero).FirstOrCreate", db.Where(map[string]any{"name": "attrs"}).Attrs(condNode{ParentID: &zero}).FirstOrCreate(&a).Error)
		var b condNode
		refused("Assign(map{parent_id: zero}).FirstOrCreate found", db.Where(map[string]any{"name": "root"}).Assign(map[string]any{"parent_id": zero}).FirstOrCreate(&b).Error)
		checkCount(t, db, 0, "cond_nodes", "name = 'attrs'")
		checkCount(t, db, 1, "cond_nodes", "name = 'root' AND parent_id IS NULL")

		resetTables(t, db, &condPtrKey{})
		mustCreate(t, db, &[]condPtrKey{{Name: "a"}, {Name: "b"}})
		z := condPtrKey{ID: new(gormtype.HUID)}
		if err := db.First(&z).Error; !errors.Is(err, gorm.ErrRecordNotFound) && !errors.Is(err, gormtype.ErrZeroID) {
			t.Errorf("First(&row) whose pointer key points to zero: %v; want no row", err)
		}
		rows := []condPtrKey{{ID: new(gormtype.HUID), Name: "z"}}
		refused("Model(&rows with a zero pointer key).Update", db.Model(&rows).Update("name", "x").Error)
		checkCount(t, db, 0, "cond_ptr_keys", "name = 'x'")
	})
}

// TestGormCondSubqueryInlineZero: a zero key given inline to a
// subquery's Where (Where(id), as GORM documents for keys): GORM takes the
// Value's error for no value and marks the subquery invalid, which it
// drops; checkWhere sees no condition in it, and the subquery is written
// as "": SQLite runs "id NOT IN ()" on every row.
func TestGormCondSubqueryInlineZero(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, condConfig(), gormtype.AutoID{})
		shapeSeed(t, db)
		var zero gormtype.HUID
		sub := db.Model(&shapeKid{}).Select("parent_id").Where(zero)
		err := db.Where("id NOT IN (?)", sub).Delete(&shapeParent{}).Error
		n := countRows(t, db, "shape_parents", "1 = 1")
		if err == nil || n != 2 {
			t.Errorf("Delete with a zero key inline in a subquery: err %v, %d of 2 parents left; want an error and none deleted", err, n)
		}
	})
}
