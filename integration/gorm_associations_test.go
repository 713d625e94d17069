package integration_test

// The associations suite: records GORM creates through Association, and
// the new records a Save of a loaded row adds, are filled and retried like
// the row itself; a Save that mixes stored and new associated rows is
// split: the new rows are a plain INSERT, the stored ones go through
// GORM's upsert under their keys. A join model whose own key AutoID would
// fill is refused, since GORM inserts join rows with DO NOTHING.

import (
	"fmt"
	"strings"
	"testing"

	"gorm.io/gorm"

	"github.com/sortid/sortid/gormtype"
)

// assocTag and assocPost: many2many, polymorphic has-many and a
// self-referencing has-many through Association.
type assocTag struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string        `gorm:"size:50"`
}

func (assocTag) TableName() string { return "assoc_tags" }

type assocPost struct {
	ID       gormtype.HUID  `gorm:"primaryKey"`
	Title    string         `gorm:"size:50"`
	Tags     []assocTag     `gorm:"many2many:assoc_post_tags"`
	Comments []assocComment `gorm:"polymorphic:Owner"`
	ParentID gormtype.NullHUID
	Children []assocPost `gorm:"foreignKey:ParentID"`
}

func (assocPost) TableName() string { return "assoc_posts" }

type assocComment struct {
	ID        gormtype.HUID `gorm:"primaryKey"`
	OwnerID   gormtype.HUID `gorm:"index"`
	OwnerType string        `gorm:"size:50"`
	Body      string        `gorm:"size:50"`
}

func (assocComment) TableName() string { return "assoc_comments" }

// TestGormAssociationAppend: Association("Tags").Append (many2many),
// Association("Comments").Append (polymorphic) and a self-referencing
// child, with fresh records whose first keys are taken: the other rows
// stay, the new ones are stored under fresh keys.
func TestGormAssociationAppend(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src := &takenFirst{}
		db := d.open(t, &gorm.Config{}, src.plugin(0))
		resetTables(t, db, &assocPost{}, &assocTag{}, &assocComment{}, "assoc_post_tags")
		other := assocPost{Title: "other", Tags: []assocTag{{Name: "theirs"}}, Comments: []assocComment{{Body: "theirs"}}}
		mustCreate(t, db, &other)
		mine := assocPost{Title: "mine"}
		mustCreate(t, db, &mine)

		src.next(other.Tags[0].ID)
		tag := assocTag{Name: "new"}
		if err := retried(db, func(tx *gorm.DB) error { return tx.Model(&assocPost{ID: mine.ID}).Association("Tags").Append(&tag) }); err != nil {
			t.Errorf("Append tag: %v", err)
		}
		src.next(other.Comments[0].ID)
		c := assocComment{Body: "new"}
		if err := retried(db, func(tx *gorm.DB) error { return tx.Model(&assocPost{ID: mine.ID}).Association("Comments").Append(&c) }); err != nil {
			t.Errorf("Append comment: %v", err)
		}
		src.next(other.ID)
		child := assocPost{Title: "child", ParentID: gormtype.NullHUID{V: mine.ID, Valid: true}}
		if err := retried(db, func(tx *gorm.DB) error {
			return tx.Model(&assocPost{ID: mine.ID}).Association("Children").Append(&child)
		}); err != nil {
			t.Errorf("Append child: %v", err)
		}
		src.checkDrawn(t)

		tagsOf := func(post gormtype.HUID) string {
			t.Helper()
			var names []string
			if err := db.Table("assoc_tags").Joins("JOIN assoc_post_tags j ON j.assoc_tag_id = assoc_tags.id").
				Where("j.assoc_post_id = ?", post).Order("name").Pluck("name", &names).Error; err != nil {
				t.Fatal(err)
			}
			return strings.Join(names, ",")
		}
		if theirs, ours := tagsOf(other.ID), tagsOf(mine.ID); theirs != "theirs" || ours != "new" {
			t.Errorf("tags of other %q, of mine %q; want theirs, new", theirs, ours)
		}
		checkCount(t, db, 1, "assoc_tags", "id = ? AND name = 'new'", tag.ID)
		var comments []assocComment
		if err := db.Order("body").Find(&comments).Error; err != nil {
			t.Fatal(err)
		}
		if len(comments) != 2 || comments[0] != c || comments[1] != other.Comments[0] || c.OwnerID != mine.ID {
			t.Errorf("comments %+v; want %+v of mine and %+v", comments, c, other.Comments[0])
		}
		var o assocPost
		if err := db.First(&o, "id = ?", other.ID).Error; err != nil || o.Title != "other" || o.ParentID.Valid {
			t.Errorf("other post %+v, %v", o, err)
		}
		var ch assocPost
		if err := db.First(&ch, "id = ?", child.ID).Error; err != nil || ch.Title != "child" || ch.ParentID.V != mine.ID || ch.ID == other.ID {
			t.Errorf("child %+v, %v", ch, err)
		}
	})
}

type assocDoc struct {
	ID    gormtype.HUID `gorm:"primaryKey"`
	Name  string        `gorm:"size:50"`
	Lines []assocLine   `gorm:"foreignKey:DocID"`
}

func (assocDoc) TableName() string { return "assoc_docs" }

// assocLine has an auto-filled nullable unique Ref besides its key.
type assocLine struct {
	ID    gormtype.HUID        `gorm:"primaryKey"`
	DocID gormtype.HUID        `gorm:"index"`
	Ref   gormtype.NullSCRU128 `gorm:"uniqueIndex" sortid:"auto"`
	Item  string               `gorm:"size:50"`
}

func (assocLine) TableName() string { return "assoc_lines" }

// TestGormAssociationSaveSplitsStoredAndNew: a loaded document saved with
// a new line, with and without FullSaveAssociations, and with the stored
// line's auto Ref NULL (a row made before the column, or by other code):
// the Save succeeds, the stored line keeps its key and Ref (NULL stays
// NULL: Save fills new rows only) and is stored once, and the new line is
// stored under fresh values its struct holds.
func TestGormAssociationSaveSplitsStoredAndNew(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		for _, nullRef := range []bool{false, true} {
			for _, full := range []bool{false, true} {
				t.Run(fmt.Sprintf("NULL-Ref=%v/FullSaveAssociations=%v", nullRef, full), func(t *testing.T) {
					resetTables(t, db, &assocDoc{}, &assocLine{})
					doc := assocDoc{Name: "doc", Lines: []assocLine{{Item: "old"}}}
					mustCreate(t, db, &doc)
					if nullRef {
						mustExec(t, db, "UPDATE assoc_lines SET ref = NULL")
					}
					var loaded assocDoc
					if err := db.Preload("Lines").First(&loaded, "id = ?", doc.ID).Error; err != nil {
						t.Fatal(err)
					}
					stored := loaded.Lines[0]
					if stored.ID != doc.Lines[0].ID || stored.Ref.Valid == nullRef {
						t.Fatalf("loaded line %+v; stored %+v (Ref NULL: %v)", stored, doc.Lines[0], nullRef)
					}
					loaded.Lines = append(loaded.Lines, assocLine{Item: "new"})
					if err := db.Session(&gorm.Session{FullSaveAssociations: full}).Save(&loaded).Error; err != nil {
						t.Fatalf("Save of a loaded document with a new line: %v", err)
					}
					var lines []assocLine
					if err := db.Where("doc_id = ?", doc.ID).Order("item").Find(&lines).Error; err != nil {
						t.Fatal(err)
					}
					if len(lines) != 2 || lines[0] != loaded.Lines[1] || lines[1] != stored {
						t.Fatalf("lines %+v; want the new %+v and the stored %+v", lines, loaded.Lines[1], stored)
					}
					if n := loaded.Lines[1]; n.ID.IsZero() || n.ID == stored.ID || !n.Ref.Valid || n.Ref == stored.Ref || n.DocID != doc.ID {
						t.Errorf("new line %+v: want fresh key and Ref, of document %s", n, doc.ID)
					}
					if loaded.Lines[0] != stored {
						t.Errorf("the stored line's struct became %+v; want %+v", loaded.Lines[0], stored)
					}
					checkCount(t, db, 2, "assoc_lines", "1 = 1")
				})
			}
		}
	})
}

// assocGroup and assocMember: many2many through a join model with a HUID
// key of its own (SetupJoinTable), as GORM documents custom join tables.
type assocGroup struct {
	ID      gormtype.HUID `gorm:"primaryKey"`
	Name    string        `gorm:"size:50"`
	Members []assocMember `gorm:"many2many:assoc_memberships"`
}

func (assocGroup) TableName() string { return "assoc_groups" }

type assocMember struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string        `gorm:"size:50"`
}

func (assocMember) TableName() string { return "assoc_members" }

type assocMembership struct {
	ID            gormtype.HUID `gorm:"primaryKey"`
	AssocGroupID  gormtype.HUID `gorm:"uniqueIndex:assoc_ms_pair"`
	AssocMemberID gormtype.HUID `gorm:"uniqueIndex:assoc_ms_pair"`
}

func (assocMembership) TableName() string { return "assoc_memberships" }

// assocPairMembership is a join model keyed by its two foreign keys.
type assocPairMembership struct {
	AssocGroupID  gormtype.HUID `gorm:"primaryKey"`
	AssocMemberID gormtype.HUID `gorm:"primaryKey"`
}

func (assocPairMembership) TableName() string { return "assoc_pair_memberships" }

// TestGormAssociationCustomJoinTable: GORM inserts the rows of a many2many
// join model with ON CONFLICT DO NOTHING, which could skip a row with a
// fresh key: a join model with a key of its own that AutoID would fill is
// refused, naming the table and a database default as the way out, and
// nothing is stored; a join model keyed by its two foreign keys works.
func TestGormAssociationCustomJoinTable(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		if err := db.SetupJoinTable(&assocGroup{}, "Members", &assocMembership{}); err != nil {
			t.Fatal(err)
		}
		resetTables(t, db, &assocMembership{}, &assocGroup{}, &assocMember{})
		g := assocGroup{Name: "g", Members: []assocMember{{Name: "a"}, {Name: "b"}}}
		checkRefused(t, retried(db, func(tx *gorm.DB) error { return tx.Create(&g).Error }), gormtype.ErrRefused, "assoc_memberships", "database default")
		checkCount(t, db, 0, "assoc_groups", "1 = 1")
		checkCount(t, db, 0, "assoc_memberships", "1 = 1")

		pairs := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		if err := pairs.SetupJoinTable(&assocGroup{}, "Members", &assocPairMembership{}); err != nil {
			t.Fatal(err)
		}
		resetTables(t, pairs, &assocPairMembership{}, &assocGroup{}, &assocMember{})
		g = assocGroup{Name: "g", Members: []assocMember{{Name: "a"}, {Name: "b"}}}
		if err := pairs.Create(&g).Error; err != nil {
			t.Fatalf("Create with a join model keyed by its foreign keys: %v", err)
		}
		for _, m := range g.Members {
			checkCount(t, pairs, 1, "assoc_pair_memberships", "assoc_group_id = ? AND assoc_member_id = ?", g.ID, m.ID)
		}
		checkCount(t, pairs, 2, "assoc_pair_memberships", "1 = 1")
	})
}
