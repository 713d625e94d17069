package integration_test

// The flows suite: everyday GORM flows on loaded rows (Save, Association
// Append/Delete/Replace/Clear, Update to NULL) work with AutoID as with
// caller-made keys, or are refused by name; a failed one leaves no key a
// row does not have.

import (
	"errors"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/sortid/sortid/gormtype"
)

type flowOwner struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string        `gorm:"size:50"`
	Toys []flowToy     `gorm:"polymorphic:Owner"`
	Pets []flowPet     `gorm:"foreignKey:OwnerID"`
}

func (flowOwner) TableName() string { return "flow_owners" }

type flowPet struct {
	ID      gormtype.HUID `gorm:"primaryKey"`
	OwnerID gormtype.NullHUID
	Name    string `gorm:"size:50"`
}

func (flowPet) TableName() string { return "flow_pets" }

type flowToy struct {
	ID        gormtype.HUID    `gorm:"primaryKey"`
	Trace     gormtype.SCRU128 `sortid:"auto"`
	OwnerID   gormtype.HUID
	OwnerType string `gorm:"size:20"`
	Name      string `gorm:"size:50"`
}

func (flowToy) TableName() string { return "flow_toys" }

// TestGormFlowSaveUnsetsOnRollback: a Save of a loaded owner (an UPDATE in
// GORM's own transaction) with a new toy, saved first, and a new pet whose
// key is taken fails with ErrKeyTaken; GORM rolls back, and the toy's and
// the pet's structs hold no key, as after a failed Create. An Update that
// saves the same associations is undone alike.
func TestGormFlowSaveUnsetsOnRollback(t *testing.T) {
	t.Parallel()
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src := &takenFirst{}
		db := d.open(t, &gorm.Config{DisableForeignKeyConstraintWhenMigrating: true}, src.plugin(0))
		resetTables(t, db, &flowOwner{}, &flowPet{}, &flowToy{})
		o := flowOwner{Name: "o", Pets: []flowPet{{Name: "p0"}}}
		mustCreate(t, db, &o)
		o.Name, o.Toys = "renamed", []flowToy{{Name: "t"}}
		o.Pets = append(o.Pets, flowPet{Name: "p1"})
		src.next(0, o.Pets[0].ID) // the toy's key, then the new pet's: taken
		checkRefused(t, db.Save(&o).Error, gormtype.ErrKeyTaken, "flow_pets")
		src.checkDrawn(t)
		checkCount(t, db, 0, "flow_toys", "1 = 1")
		checkCount(t, db, 1, "flow_owners", "name = 'o'")
		if !o.Toys[0].ID.IsZero() || !o.Toys[0].Trace.IsZero() || !o.Pets[1].ID.IsZero() {
			t.Errorf("after the rollback the toy holds %s, %s and the new pet %s; want them unset", o.Toys[0].ID, o.Toys[0].Trace, o.Pets[1].ID)
		}
		src.next(0, o.Pets[0].ID)
		checkRefused(t, db.Model(&o).Update("name", "updated").Error, gormtype.ErrKeyTaken, "flow_pets")
		src.checkDrawn(t)
		checkCount(t, db, 0, "flow_toys", "1 = 1")
		checkCount(t, db, 1, "flow_owners", "name = 'o'")
		if !o.Toys[0].ID.IsZero() || !o.Toys[0].Trace.IsZero() || !o.Pets[1].ID.IsZero() {
			t.Errorf("after the Update's rollback the toy holds %s, %s and the new pet %s; want them unset", o.Toys[0].ID, o.Toys[0].Trace, o.Pets[1].ID)
		}
	})
}

type flowPtrParent struct {
	ID        gormtype.HUID `gorm:"primaryKey"`
	Name      string        `gorm:"size:50"`
	Email     string        `gorm:"size:50"`
	CreatedAt time.Time
	Kids      []flowPtrKid  `gorm:"foreignKey:ParentID"`
	Tags      []flowNullTag `gorm:"many2many:flow_ptr_parent_tags"`
}

func (flowPtrParent) TableName() string { return "flow_ptr_parents" }

type flowPtrKid struct {
	ID       *gormtype.HUID `gorm:"primaryKey"`
	ParentID gormtype.HUID
	Name     string `gorm:"size:50"`
}

func (flowPtrKid) TableName() string { return "flow_ptr_kids" }

type flowNullTag struct {
	ID   gormtype.NullHUID `gorm:"primaryKey"`
	Name string            `gorm:"size:50"`
}

func (flowNullTag) TableName() string { return "flow_null_tags" }

// TestGormFlowPointerAndNullKeys: children with pointer keys and tags with
// Null keys, under a parent with more fields than they have, are created
// with nil keys; on a loaded parent, a Save or Association Append of rows
// whose keys point to a zero ID or are a Valid Null of one (which GORM
// would save once for all) is refused with ErrZeroID, and nothing is
// stored.
func TestGormFlowPointerAndNullKeys(t *testing.T) {
	t.Parallel()
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{DisableForeignKeyConstraintWhenMigrating: true}, gormtype.AutoID{})
		resetTables(t, db, &flowPtrParent{}, &flowPtrKid{}, &flowNullTag{}, "flow_ptr_parent_tags")
		p := flowPtrParent{Name: "p", Kids: []flowPtrKid{{Name: "a"}, {Name: "b"}}, Tags: []flowNullTag{{Name: "t"}}}
		mustCreate(t, db, &p)
		checkCount(t, db, 2, "flow_ptr_kids", "parent_id = ?", p.ID)
		checkCount(t, db, 1, "flow_ptr_parent_tags", "flow_ptr_parent_id = ?", p.ID)
		p.Name = "renamed"
		p.Kids = append(p.Kids, flowPtrKid{ID: new(gormtype.HUID), Name: "c"}, flowPtrKid{ID: new(gormtype.HUID), Name: "d"})
		checkRefused(t, db.Save(&p).Error, gormtype.ErrZeroID, "flowPtrParent.Kids")
		p.Kids = p.Kids[:2]
		k1, k2 := flowPtrKid{ID: new(gormtype.HUID), Name: "e"}, flowPtrKid{ID: new(gormtype.HUID), Name: "f"}
		checkRefused(t, db.Model(&p).Association("Kids").Append(&k1, &k2), gormtype.ErrZeroID, "flowPtrParent.Kids")
		p.Kids = p.Kids[:2]
		t1, t2 := flowNullTag{ID: gormtype.NullHUID{Valid: true}, Name: "u"}, flowNullTag{ID: gormtype.NullHUID{Valid: true}, Name: "v"}
		checkRefused(t, db.Model(&p).Association("Tags").Append(&t1, &t2), gormtype.ErrZeroID, "flowPtrParent.Tags")
		p.Tags = p.Tags[:1]
		for name, update := range map[string]func() error{
			"Update":            func() error { return db.Model(&p).Update("name", "x").Error },
			"Updates of a map":  func() error { return db.Model(&p).Updates(map[string]any{"name": "x"}).Error },
			"Updates of a copy": func() error { return db.Model(&p).Updates(flowPtrParent{Name: "x"}).Error },
		} {
			p.Kids = append(p.Kids[:2], flowPtrKid{ID: new(gormtype.HUID), Name: "g"}, flowPtrKid{ID: new(gormtype.HUID), Name: "h"})
			if err := update(); !errors.Is(err, gormtype.ErrZeroID) {
				t.Errorf("%s of a parent with zero pointer keys: %v; want ErrZeroID", name, err)
			}
		}
		p.Kids = p.Kids[:2]
		checkCount(t, db, 2, "flow_ptr_kids", "1 = 1")
		checkCount(t, db, 1, "flow_null_tags", "1 = 1")
		checkCount(t, db, 1, "flow_ptr_parents", "name = 'p'")
		if err := db.Model(&p).Updates(&flowPatch{Name: "patched"}).Error; err != nil {
			t.Fatalf("Updates from another struct: %v", err)
		}
		checkCount(t, db, 1, "flow_ptr_parents", "name = 'patched'")
	})
}

// flowPatch is another struct that Updates takes the values of.
type flowPatch struct{ Name string }

type flowPtrRow struct {
	ID   *gormtype.HUID `gorm:"primaryKey"`
	Name string         `gorm:"size:50"`
}

func (flowPtrRow) TableName() string { return "flow_ptr_rows" }

// TestGormFlowPointerKeyNotNull: an Update that would set a pointer key to
// nil is refused with ErrZeroID before GORM touches the struct, which
// keeps its key, in every form.
func TestGormFlowPointerKeyNotNull(t *testing.T) {
	t.Parallel()
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		resetTables(t, db, &flowPtrRow{})
		r := flowPtrRow{Name: "r"}
		mustCreate(t, db, &r)
		key := *r.ID
		for name, update := range map[string]func() error{
			"Update":        func() error { return db.Model(&r).Update("id", nil).Error },
			"Updates":       func() error { return db.Model(&r).Updates(map[string]any{"id": nil}).Error },
			"UpdateColumns": func() error { return db.Model(&r).UpdateColumns(map[string]any{"ID": nil}).Error },
		} {
			if err := update(); !errors.Is(err, gormtype.ErrZeroID) {
				t.Errorf("%s of the key to nil: %v; want ErrZeroID", name, err)
			}
			if r.ID == nil || *r.ID != key {
				t.Fatalf("after %s the struct's key is %v; want %s", name, r.ID, key)
			}
		}
		checkCount(t, db, 1, "flow_ptr_rows", "id = ? AND name = 'r'", key)
	})
}

type flowNode struct {
	ID       gormtype.HUID  `gorm:"primaryKey"`
	Name     string         `gorm:"size:50"`
	ParentID *gormtype.HUID `gorm:"index"`
	Parent   *flowNode
	Children []*flowNode `gorm:"foreignKey:ParentID"`
}

func (flowNode) TableName() string { return "flow_nodes" }

// TestGormFlowTree: a tree whose foreign key is a *HUID: nested Creates,
// a new parent by belongs-to, and detaching children (Association Delete,
// Replace, Clear, Update to nil), which stores NULL.
func TestGormFlowTree(t *testing.T) {
	t.Parallel()
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{DisableForeignKeyConstraintWhenMigrating: true}, gormtype.AutoID{})
		resetTables(t, db, &flowNode{})
		root := flowNode{Name: "root", Children: []*flowNode{{Name: "a", Children: []*flowNode{{Name: "a1"}}}, {Name: "b"}}}
		mustCreate(t, db, &root)
		checkCount(t, db, 4, "flow_nodes", "1 = 1")
		checkCount(t, db, 1, "flow_nodes", "parent_id = ?", root.Children[0].ID)
		if err := db.Model(&root).Association("Children").Delete(root.Children[1]); err != nil {
			t.Errorf("Association Delete: %v", err)
		}
		if err := db.Model(root.Children[0]).Update("parent_id", nil).Error; err != nil {
			t.Errorf("Update of parent_id to nil: %v", err)
		}
		checkCount(t, db, 0, "flow_nodes", "parent_id = ?", root.ID)
		checkCount(t, db, 3, "flow_nodes", "parent_id IS NULL")
		c := flowNode{Name: "c", Parent: &flowNode{Name: "p"}}
		mustCreate(t, db, &c)
		checkCount(t, db, 1, "flow_nodes", "id = ? AND parent_id = ?", c.ID, c.Parent.ID)
		if err := db.Model(&root).Association("Children").Replace([]*flowNode{{Name: "x"}, {Name: "y"}}); err != nil {
			t.Errorf("Association Replace: %v", err)
		}
		checkCount(t, db, 2, "flow_nodes", "parent_id = ?", root.ID)
		if err := db.Model(&root).Association("Children").Clear(); err != nil {
			t.Errorf("Association Clear: %v", err)
		}
		checkCount(t, db, 0, "flow_nodes", "parent_id = ?", root.ID)
	})
}

type flowKeyedParent struct {
	ID   gormtype.HUID  `gorm:"primaryKey"`
	Kids []flowKeyedKid `gorm:"foreignKey:ParentID"`
}

func (flowKeyedParent) TableName() string { return "flow_keyed_parents" }

type flowKeyedKid struct {
	ID       gormtype.HUID `gorm:"primaryKey"`
	ParentID gormtype.HUID
	Trace    *gormtype.SCRU128 `sortid:"auto"`
	Span     gormtype.NullHUID `sortid:"auto"`
}

func (flowKeyedKid) TableName() string { return "flow_keyed_kids" }

// TestGormFlowKeyedChildKeepsNull: a new child given by the caller's key is
// saved as given, as GORM's upsert of rows given by key saves it: its unset
// pointer and Null auto fields stay unset and are stored as NULL
// (docs/gorm.md).
func TestGormFlowKeyedChildKeepsNull(t *testing.T) {
	t.Parallel()
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{DisableForeignKeyConstraintWhenMigrating: true}, gormtype.AutoID{})
		resetTables(t, db, &flowKeyedParent{}, &flowKeyedKid{})
		p := flowKeyedParent{Kids: []flowKeyedKid{{ID: gormtype.NewHUID()}}}
		mustCreate(t, db, &p)
		if p.Kids[0].Trace != nil || p.Kids[0].Span.Valid {
			t.Errorf("the keyed child's Trace is %v, Span %+v; want nil and NULL, as given", p.Kids[0].Trace, p.Kids[0].Span)
		}
		checkCount(t, db, 1, "flow_keyed_kids", "id = ? AND parent_id = ? AND trace IS NULL AND span IS NULL", p.Kids[0].ID, p.ID)
	})
}
