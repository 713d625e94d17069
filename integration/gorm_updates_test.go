package integration_test

// The updates suite: every Update form that saves a loaded row's new
// associations, and gormtype.Transaction in the hooks of Creates and
// Updates, with a forced collision, on PostgreSQL, MariaDB and SQLite.

import (
	"context"
	"fmt"
	"testing"

	"gorm.io/gorm"

	"github.com/sortid/sortid/gormtype"
)

type updDoc struct {
	ID       gormtype.HUID    `gorm:"primaryKey"`
	Trace    gormtype.SCRU128 `sortid:"auto"`
	Name     string           `gorm:"size:50"`
	AuthorID gormtype.NullHUID
	Author   *updAuthor
	Cover    *updCover `gorm:"foreignKey:DocID"`
	Lines    []updLine `gorm:"foreignKey:DocID"`
	Tags     []updTag  `gorm:"many2many:upd_doc_tags"`
}

func (updDoc) TableName() string { return "upd_docs" }

type updAuthor struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string        `gorm:"size:50"`
}

func (updAuthor) TableName() string { return "upd_authors" }

type updCover struct {
	ID    gormtype.HUID `gorm:"primaryKey"`
	DocID gormtype.HUID
	Note  string `gorm:"size:50"`
}

func (updCover) TableName() string { return "upd_covers" }

type updLine struct {
	ID    gormtype.HUID    `gorm:"primaryKey"`
	DocID gormtype.HUID    `gorm:"index"`
	Trace gormtype.SCRU128 `sortid:"auto"`
	Item  string           `gorm:"size:50"`
}

func (updLine) TableName() string { return "upd_lines" }

type updTag struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string        `gorm:"size:50"`
}

func (updTag) TableName() string { return "upd_tags" }

var updDocModels = []any{&updDoc{}, &updAuthor{}, &updCover{}, &updLine{}, &updTag{}, "upd_doc_tags"}

// updUpdateForms are the Update forms that save a loaded document's
// associations.
var updUpdateForms = []struct {
	name string
	run  func(db *gorm.DB, doc *updDoc) error
}{
	{"Save", func(db *gorm.DB, doc *updDoc) error { doc.Name = "edited"; return db.Save(doc).Error }},
	{"FullSave", func(db *gorm.DB, doc *updDoc) error {
		doc.Name = "edited"
		return db.Session(&gorm.Session{FullSaveAssociations: true}).Save(doc).Error
	}},
	{"Update", func(db *gorm.DB, doc *updDoc) error { return db.Model(doc).Update("name", "edited").Error }},
	{"UpdateColumn", func(db *gorm.DB, doc *updDoc) error { return db.Model(doc).UpdateColumn("name", "edited").Error }},
	{"UpdatesMap", func(db *gorm.DB, doc *updDoc) error {
		return db.Model(doc).Updates(map[string]any{"name": "edited"}).Error
	}},
	{"UpdateColumnsMap", func(db *gorm.DB, doc *updDoc) error {
		return db.Model(doc).UpdateColumns(map[string]any{"name": "edited"}).Error
	}},
	{"UpdatesStruct", func(db *gorm.DB, doc *updDoc) error { return db.Model(doc).Updates(updDoc{Name: "edited"}).Error }},
	{"UpdatesSelf", func(db *gorm.DB, doc *updDoc) error { doc.Name = "edited"; return db.Updates(doc).Error }},
	{"FullSaveUpdates", func(db *gorm.DB, doc *updDoc) error {
		return db.Session(&gorm.Session{FullSaveAssociations: true}).Model(doc).Updates(map[string]any{"name": "edited"}).Error
	}},
}

// loadUpdDoc creates a document with a line, a tag and an author, and
// returns it loaded, with a new author, cover, line and tag added.
func loadUpdDoc(t *testing.T, db *gorm.DB) (stored, loaded updDoc) {
	t.Helper()
	stored = updDoc{Name: "doc", Author: &updAuthor{Name: "a0"}, Lines: []updLine{{Item: "l0"}}, Tags: []updTag{{Name: "t0"}}}
	mustCreate(t, db, &stored)
	if err := db.Preload("Author").Preload("Cover").Preload("Lines").Preload("Tags").First(&loaded, "id = ?", stored.ID).Error; err != nil {
		t.Fatal(err)
	}
	loaded.Author = &updAuthor{Name: "a1"}
	loaded.AuthorID = gormtype.NullHUID{}
	loaded.Cover = &updCover{Note: "c1"}
	loaded.Lines = append(loaded.Lines, updLine{Item: "l1"})
	loaded.Tags = append(loaded.Tags, updTag{Name: "t1"})
	return stored, loaded
}

// TestGormUpdatesAssociationCollision: every Update form that saves a
// loaded document's new author (belongs-to), cover (has-one), line
// (has-many) and tag (many2many), with the new tag's key taken: alone it
// fails with ErrKeyTaken and leaves nothing new stored and no new key in a
// struct; in gormtype.Transaction it succeeds and stores each new row once,
// under the key its struct holds, with one OnCollision call.
func TestGormUpdatesAssociationCollision(t *testing.T) {
	t.Parallel()
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src := &takenFirst{}
		log := &collisionLog{}
		plugin := src.plugin(0)
		plugin.OnCollision = log.record
		db := d.open(t, &gorm.Config{}, plugin)
		for _, form := range updUpdateForms {
			for _, retry := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/Transaction=%v", form.name, retry), func(t *testing.T) {
					resetTables(t, db, updDocModels...)
					src.forget()
					stored, doc := loadUpdDoc(t, db)
					log.take()
					src.next(0, 0, 0, stored.Tags[0].ID) // author, cover, line, then the tag's key: taken
					var err error
					if retry {
						err = gormtype.Transaction(context.Background(), db, func(tx *gorm.DB) error { return form.run(tx, &doc) })
					} else {
						err = form.run(db, &doc)
					}
					src.checkDrawn(t)
					tables, _ := log.take()
					if len(tables) != 1 {
						t.Errorf("OnCollision called for %v; want once", tables)
					}
					if !retry {
						checkRefused(t, err, gormtype.ErrKeyTaken, "upd_tags")
						if !doc.Author.ID.IsZero() || !doc.Cover.ID.IsZero() || !doc.Lines[1].ID.IsZero() || !doc.Lines[1].Trace.IsZero() || !doc.Tags[1].ID.IsZero() {
							t.Errorf("after ErrKeyTaken the new rows hold keys: author %s, cover %s, line %s/%s, tag %s; want all unset",
								doc.Author.ID, doc.Cover.ID, doc.Lines[1].ID, doc.Lines[1].Trace, doc.Tags[1].ID)
						}
						checkCount(t, db, 1, "upd_authors", "1 = 1")
						checkCount(t, db, 0, "upd_covers", "1 = 1")
						checkCount(t, db, 1, "upd_lines", "1 = 1")
						checkCount(t, db, 1, "upd_tags", "1 = 1")
						checkCount(t, db, 1, "upd_docs", "name = 'doc' AND author_id = ?", stored.Author.ID)
						return
					}
					if err != nil {
						t.Fatalf("%s in Transaction: %v", form.name, err)
					}
					if form.name == "UpdatesStruct" { // GORM writes the copy's AuthorID, not the one it set in the model
						checkCount(t, db, 1, "upd_docs", "id = ? AND name = 'edited' AND author_id = ?", doc.ID, stored.Author.ID)
					} else {
						checkCount(t, db, 1, "upd_docs", "id = ? AND name = 'edited' AND author_id = ?", doc.ID, doc.Author.ID)
					}
					checkCount(t, db, 2, "upd_authors", "1 = 1")
					checkCount(t, db, 1, "upd_authors", "id = ? AND name = 'a1'", doc.Author.ID)
					checkCount(t, db, 1, "upd_covers", "id = ? AND doc_id = ? AND note = 'c1'", doc.Cover.ID, doc.ID)
					checkCount(t, db, 1, "upd_covers", "1 = 1")
					checkCount(t, db, 2, "upd_lines", "doc_id = ?", doc.ID)
					checkCount(t, db, 1, "upd_lines", "id = ? AND trace = ? AND item = 'l1'", doc.Lines[1].ID, doc.Lines[1].Trace)
					checkCount(t, db, 2, "upd_tags", "1 = 1")
					checkCount(t, db, 1, "upd_tags", "id = ? AND name = 't1'", doc.Tags[1].ID)
					checkCount(t, db, 2, "upd_doc_tags", "upd_doc_id = ?", doc.ID)
					checkCount(t, db, 1, "upd_doc_tags", "upd_doc_id = ? AND upd_tag_id = ?", doc.ID, doc.Tags[1].ID)
				})
			}
		}
	})
}

type updAudit struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Note string        `gorm:"size:80"`
}

func (updAudit) TableName() string { return "upd_audits" }

// updHooked writes an audit row through gormtype.Transaction on the
// hook's tx in BeforeCreate and BeforeUpdate, as docs/gorm.md says.
type updHooked struct {
	ID     gormtype.HUID  `gorm:"primaryKey"`
	Name   string         `gorm:"size:50"`
	Kids   []updHookedKid `gorm:"foreignKey:ParentID"`
	Audits []*updAudit    `gorm:"-"`
}

func (updHooked) TableName() string { return "upd_hooked" }

func (h *updHooked) audit(tx *gorm.DB, note string) error {
	a := &updAudit{Note: note}
	h.Audits = append(h.Audits, a)
	return gormtype.Transaction(tx.Statement.Context, tx, func(tx *gorm.DB) error { return tx.Create(a).Error })
}

func (h *updHooked) BeforeCreate(tx *gorm.DB) error { return h.audit(tx, "create "+h.Name) }
func (h *updHooked) BeforeUpdate(tx *gorm.DB) error { return h.audit(tx, "update "+h.Name) }

type updHookedKid struct {
	ID       gormtype.HUID `gorm:"primaryKey"`
	ParentID gormtype.HUID
	Name     string `gorm:"size:50"`
}

func (updHookedKid) TableName() string { return "upd_hooked_kids" }

// TestGormUpdatesHookTransactions: gormtype.Transaction on the hook's tx
// in BeforeUpdate retries a collision in the hook alone; a collision after
// the hook, on a new kid's key, fails a plain Update or Create with
// ErrKeyTaken and unsets the hook's audit with the rollback, and in
// gormtype.Transaction stores the audit and the kid once. OnCollision is
// called once per collision.
func TestGormUpdatesHookTransactions(t *testing.T) {
	t.Parallel()
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src := &takenFirst{}
		log := &collisionLog{}
		plugin := src.plugin(0)
		plugin.OnCollision = log.record
		db := d.open(t, &gorm.Config{DisableForeignKeyConstraintWhenMigrating: true}, plugin)
		t.Run("InnerCollisionInBeforeUpdate", func(t *testing.T) {
			resetTables(t, db, &updHooked{}, &updHookedKid{}, &updAudit{})
			h := updHooked{Name: "p"}
			mustCreate(t, db, &h)
			log.take()
			src.next(h.Audits[0].ID) // the update's audit key: taken
			if err := db.Model(&h).Update("name", "q").Error; err != nil {
				t.Fatalf("Update: %v", err)
			}
			src.checkDrawn(t)
			if tables, _ := log.take(); len(tables) != 1 {
				t.Errorf("OnCollision for %v; want once", tables)
			}
			last := h.Audits[len(h.Audits)-1]
			checkCount(t, db, 2, "upd_audits", "1 = 1")
			checkCount(t, db, 1, "upd_audits", "id = ? AND note = 'update p'", last.ID)
			checkCount(t, db, 1, "upd_hooked", "name = 'q'")
		})
		t.Run("UpdateCollisionAfterHook", func(t *testing.T) {
			resetTables(t, db, &updHooked{}, &updHookedKid{}, &updAudit{})
			other := updHookedKid{ID: gormtype.NewHUID(), ParentID: gormtype.NewHUID(), Name: "other"}
			if err := db.Session(&gorm.Session{SkipHooks: true}).Create(&other).Error; err != nil {
				t.Fatal(err)
			}
			h := updHooked{Name: "p"}
			mustCreate(t, db, &h)
			log.take()
			h.Kids = []updHookedKid{{Name: "k"}}
			src.next(0, other.ID) // BeforeUpdate's audit, then the new kid's key: taken
			err := db.Model(&h).Update("name", "q").Error
			src.checkDrawn(t)
			checkRefused(t, err, gormtype.ErrKeyTaken, "upd_hooked_kids")
			if tables, _ := log.take(); len(tables) != 1 {
				t.Errorf("OnCollision for %v; want once", tables)
			}
			checkCount(t, db, 1, "upd_audits", "1 = 1")
			if a := h.Audits[len(h.Audits)-1]; !a.ID.IsZero() {
				t.Errorf("the rolled-back BeforeUpdate audit holds key %s (%d rows have it)", a.ID, countRows(t, db, "upd_audits", "id = ?", a.ID))
			}
			checkCount(t, db, 1, "upd_hooked", "name = 'p'")
		})
		t.Run("OuterCollisionAfterHook", func(t *testing.T) {
			resetTables(t, db, &updHooked{}, &updHookedKid{}, &updAudit{})
			other := updHookedKid{ID: gormtype.NewHUID(), ParentID: gormtype.NewHUID(), Name: "other"}
			if err := db.Session(&gorm.Session{SkipHooks: true}).Create(&other).Error; err != nil {
				t.Fatal(err)
			}
			for _, retry := range []bool{false, true} {
				mustExec(t, db, "DELETE FROM upd_audits", "DELETE FROM upd_hooked")
				log.take()
				h := updHooked{Name: "p", Kids: []updHookedKid{{Name: "k"}}}
				src.next(0, 0, other.ID) // the row's key, its audit's, then the kid's: taken
				var err error
				if retry {
					err = gormtype.Transaction(context.Background(), db, func(tx *gorm.DB) error { return tx.Create(&h).Error })
				} else {
					err = db.Create(&h).Error
				}
				src.checkDrawn(t)
				if tables, _ := log.take(); len(tables) != 1 {
					t.Errorf("retry=%v: OnCollision for %v; want once", retry, tables)
				}
				if !retry {
					checkRefused(t, err, gormtype.ErrKeyTaken, "upd_hooked_kids")
					checkCount(t, db, 0, "upd_audits", "1 = 1")
					for _, a := range h.Audits {
						if !a.ID.IsZero() {
							t.Errorf("the rolled-back audit holds key %s", a.ID)
						}
					}
					if !h.ID.IsZero() || !h.Kids[0].ID.IsZero() {
						t.Errorf("after ErrKeyTaken the row holds %s, its kid %s", h.ID, h.Kids[0].ID)
					}
					continue
				}
				if err != nil {
					t.Fatalf("Transaction: %v", err)
				}
				checkCount(t, db, 1, "upd_audits", "1 = 1")
				for i, a := range h.Audits {
					if i < len(h.Audits)-1 && !a.ID.IsZero() {
						t.Errorf("the rolled-back attempt's audit holds key %s", a.ID)
					}
				}
				checkCount(t, db, 1, "upd_audits", "id = ?", h.Audits[len(h.Audits)-1].ID)
				checkCount(t, db, 1, "upd_hooked_kids", "id = ? AND parent_id = ?", h.Kids[0].ID, h.ID)
			}
		})
	})
}
