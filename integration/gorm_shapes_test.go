package integration_test

// The shapes suite: conditions in subqueries, joins and HAVING; upserts in
// hooks; composite keys; CreateInBatches with associations; one *gorm.DB
// on many goroutines; PrepareStmt; embedded structs; other schemas and
// tables; FirstOrCreate; soft delete; RETURNING; Save's upserts; a key part
// that is a foreign key. Each on PostgreSQL, MariaDB and SQLite unless named;
// not in parallel, as the tests share their tables.

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/sortid/sortid/gormtype"
)

type shapeParent struct {
	ID   gormtype.HUID    `gorm:"primaryKey"`
	Ref  gormtype.SCRU128 `sortid:"auto"`
	Name string           `gorm:"size:50"`
	Kids []shapeKid       `gorm:"foreignKey:ParentID"`
}

func (shapeParent) TableName() string { return "shape_parents" }

type shapeKid struct {
	ID       gormtype.HUID `gorm:"primaryKey"`
	ParentID gormtype.HUID
	Parent   *shapeParent `gorm:"foreignKey:ParentID"`
	Name     string       `gorm:"size:50"`
}

func (shapeKid) TableName() string { return "shape_kids" }

func shapeSeed(t *testing.T, db *gorm.DB) []shapeParent {
	t.Helper()
	resetTables(t, db, &shapeParent{}, &shapeKid{})
	ps := []shapeParent{
		{Name: "a", Kids: []shapeKid{{Name: "a1"}, {Name: "a2"}}},
		{Name: "b", Kids: []shapeKid{{Name: "b1"}}},
	}
	mustCreate(t, db, &ps)
	return ps
}

// TestGormShapeSubqueryZeroMap: a zero ID in a map condition of a subquery
// fails the statement with ErrZeroID and deletes nothing (GORM drops a
// subquery's error: its SQL stayed empty, "id NOT IN ()", which SQLite
// took for every row).
func TestGormShapeSubqueryZeroMap(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{DisableForeignKeyConstraintWhenMigrating: true}, gormtype.AutoID{})
		shapeSeed(t, db)
		var zero gormtype.HUID
		sub := db.Model(&shapeKid{}).Select("parent_id").Where(map[string]any{"parent_id": zero})
		err := db.Where("id NOT IN (?)", sub).Delete(&shapeParent{}).Error
		n := countRows(t, db, "shape_parents", "1 = 1")
		if err == nil || !errors.Is(err, gormtype.ErrZeroID) {
			t.Errorf("Delete with a zero ID in a subquery's map condition: err %v, %d of 2 parents left; want ErrZeroID and none deleted", err, n)
		}
	})
}

// TestGormShapeSubqueryZeroSCRU128: a zero SCRU128 in a string condition
// of a subquery fails the statement with ErrZeroID and deletes nothing (it
// was written as NULL: "ref = NULL" matched nothing, NOT IN every row).
func TestGormShapeSubqueryZeroSCRU128(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{DisableForeignKeyConstraintWhenMigrating: true}, gormtype.AutoID{})
		shapeSeed(t, db)
		var zero gormtype.SCRU128
		// plain condition: refused
		var ps []shapeParent
		if err := db.Where("ref = ?", zero).Find(&ps).Error; !errors.Is(err, gormtype.ErrZeroID) {
			t.Errorf("plain Where(ref = zero SCRU128): %v", err)
		}
		sub := db.Model(&shapeParent{}).Select("id").Where("ref = ?", zero)
		err := db.Where("parent_id NOT IN (?)", sub).Delete(&shapeKid{}).Error
		n := countRows(t, db, "shape_kids", "1 = 1")
		if !errors.Is(err, gormtype.ErrZeroID) {
			t.Errorf("Delete with a zero SCRU128 in a subquery's condition: err %v, %d of 3 kids left; want ErrZeroID and none deleted", err, n)
		}
	})
}

// TestGormShapeJoinZero: a zero ID in the conditions of Joins("Parent",
// db.Where(...)), which GORM puts in the ON clause, fails with ErrZeroID,
// not IS NULL.
func TestGormShapeJoinZero(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{DisableForeignKeyConstraintWhenMigrating: true}, gormtype.AutoID{})
		shapeSeed(t, db)
		var kids []shapeKid
		err := db.InnerJoins("Parent", db.Where(map[string]any{"ref": gormtype.SCRU128{}})).Find(&kids).Error
		if !errors.Is(err, gormtype.ErrZeroID) {
			t.Errorf("InnerJoins with a zero SCRU128 condition: err %v, %d kids; want ErrZeroID", err, len(kids))
		}
		var zero gormtype.HUID
		kids = nil
		err = db.Joins("Parent", db.Where(map[string]any{"id": zero})).Find(&kids).Error
		if !errors.Is(err, gormtype.ErrZeroID) {
			t.Errorf("Joins with a zero HUID condition: err %v, %d kids; want ErrZeroID", err, len(kids))
		}
	})
}

type shapeAccount struct {
	ID    gormtype.HUID `gorm:"primaryKey"`
	Email string        `gorm:"size:50;uniqueIndex"`
	Name  string        `gorm:"size:50"`
}

func (shapeAccount) TableName() string { return "shape_accounts" }

type shapeSignup struct {
	ID    gormtype.HUID `gorm:"primaryKey"`
	Email string        `gorm:"size:50"`
	Name  string        `gorm:"size:50"`
}

func (shapeSignup) TableName() string { return "shape_signups" }

// AfterCreate upserts the account of the signup's email.
func (s *shapeSignup) AfterCreate(tx *gorm.DB) error {
	return tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "email"}}, DoUpdates: clause.AssignmentColumns([]string{"name"})}).
		Create(&shapeAccount{Email: s.Email, Name: s.Name}).Error
}

// TestGormShapeHookUpsert: an allowed upsert (on email, PostgreSQL and
// SQLite) run in an AfterCreate hook works as at top level: AutoID does
// not take it for an association save.
func TestGormShapeHookUpsert(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		resetTables(t, db, &shapeAccount{}, &shapeSignup{})
		// Top level: the upsert works.
		for _, name := range []string{"one", "two"} {
			err := db.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "email"}}, DoUpdates: clause.AssignmentColumns([]string{"name"})}).
				Create(&shapeAccount{Email: "top@x", Name: name}).Error
			if err != nil {
			}
		}
		mustCreate(t, db, &shapeSignup{Email: "s@x", Name: "first"})
		err := db.Create(&shapeSignup{Email: "s@x", Name: "second"}).Error
		if err != nil {
			t.Errorf("a Create whose AfterCreate upserts on email failed: %v; the same upsert at top level works", err)
		}
		checkCount(t, db, 1, "shape_accounts", "email = 's@x' AND name = 'second'")
	}, "postgres", "sqlite")
}

type shapePost struct {
	ID       gormtype.HUID  `gorm:"primaryKey"`
	Name     string         `gorm:"size:50"`
	Comments []shapeComment `gorm:"foreignKey:PostID"`
	Tags     []*shapeTag    `gorm:"many2many:shape_post_tags"`
}

func (shapePost) TableName() string { return "shape_posts" }

type shapeComment struct {
	ID     gormtype.HUID `gorm:"primaryKey"`
	PostID gormtype.HUID
	Body   string `gorm:"size:50"`
}

func (shapeComment) TableName() string { return "shape_comments" }

type shapeTag struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string        `gorm:"size:50"`
}

func (shapeTag) TableName() string { return "shape_tags" }

func shapePosts(n int, shared *shapeTag) []shapePost {
	posts := make([]shapePost, n)
	for i := range posts {
		posts[i] = shapePost{Name: fmt.Sprintf("p%d", i), Comments: []shapeComment{{Body: fmt.Sprintf("c%d", i)}},
			Tags: []*shapeTag{{Name: fmt.Sprintf("t%d", i)}, shared}}
	}
	return posts
}

// shapeCheckPosts checks that every post, comment and tag struct holds the
// key of the one row stored under its name, and the links.
func shapeCheckPosts(t *testing.T, db *gorm.DB, posts []shapePost) {
	t.Helper()
	for _, p := range posts {
		checkCount(t, db, 1, "shape_posts", "id = ? AND name = ?", p.ID, p.Name)
		for _, c := range p.Comments {
			checkCount(t, db, 1, "shape_comments", "id = ? AND body = ? AND post_id = ?", c.ID, c.Body, p.ID)
		}
		for _, tg := range p.Tags {
			checkCount(t, db, 1, "shape_tags", "id = ? AND name = ?", tg.ID, tg.Name)
			checkCount(t, db, 1, "shape_post_tags", "shape_post_id = ? AND shape_tag_id = ?", p.ID, tg.ID)
		}
	}
}

// TestGormShapeBatchesCollideInTransaction: CreateInBatches of posts with
// a has-many comment and many2many tags (one new tag shared by all),
// whose second batch's comment key is taken, in gormtype.Transaction: the
// retry stores every row once, each struct holding its row's key.
func TestGormShapeBatchesCollideInTransaction(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src := &takenFirst{}
		db := d.open(t, &gorm.Config{DisableForeignKeyConstraintWhenMigrating: true}, src.plugin(0))
		resetTables(t, db, &shapePost{}, &shapeComment{}, &shapeTag{}, "shape_post_tags")
		seed := shapePost{Name: "seed", Comments: []shapeComment{{Body: "seed"}}}
		mustCreate(t, db, &seed)
		shared := &shapeTag{Name: "shared"}
		posts := shapePosts(4, shared)
		// batch 1: 2 posts, 2 comments, 3 tags; batch 2: 2 posts, then its comments
		src.next(0, 0, 0, 0, 0, 0, 0, 0, 0, seed.Comments[0].ID)
		err := gormtype.Transaction(t.Context(), db, func(tx *gorm.DB) error { return tx.CreateInBatches(&posts, 2).Error })
		if err != nil {
			t.Fatalf("CreateInBatches in Transaction: %v", err)
		}
		src.checkDrawn(t)
		checkCount(t, db, 5, "shape_posts", "1 = 1")
		checkCount(t, db, 5, "shape_comments", "1 = 1")
		checkCount(t, db, 5, "shape_tags", "1 = 1")
		checkCount(t, db, 8, "shape_post_tags", "1 = 1")
		shapeCheckPosts(t, db, posts)
	})
}

// TestGormShapeBatchesCollidePlain: the same without Transaction: the
// Create fails with ErrKeyTaken and GORM's transaction rolls back every
// batch. As docs/gorm.md says, the rows keep the keys of the INSERTs that
// succeeded (every post, the first batch's comments); the failed comments'
// are unset.
func TestGormShapeBatchesCollidePlain(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src := &takenFirst{}
		db := d.open(t, &gorm.Config{DisableForeignKeyConstraintWhenMigrating: true}, src.plugin(0))
		resetTables(t, db, &shapePost{}, &shapeComment{}, &shapeTag{}, "shape_post_tags")
		seed := shapePost{Name: "seed", Comments: []shapeComment{{Body: "seed"}}}
		mustCreate(t, db, &seed)
		shared := &shapeTag{Name: "shared"}
		posts := shapePosts(4, shared)
		src.next(0, 0, 0, 0, 0, 0, 0, 0, 0, seed.Comments[0].ID)
		err := db.CreateInBatches(&posts, 2).Error
		checkRefused(t, err, gormtype.ErrKeyTaken, "shape_comments")
		src.checkDrawn(t)
		checkCount(t, db, 1, "shape_posts", "1 = 1")
		for i, p := range posts {
			if p.ID.IsZero() || (i < 2) == p.Comments[0].ID.IsZero() {
				t.Errorf("post %d holds %s, its comment %s; want the post's key kept, the comment's only in the first batch", i, p.ID, p.Comments[0].ID)
			}
		}
	})
}

type shapeCParent struct {
	Tenant string        `gorm:"primaryKey;size:20"`
	ID     gormtype.HUID `gorm:"primaryKey"`
	Name   string        `gorm:"size:50"`
	Kids   []shapeCKid   `gorm:"foreignKey:ParentTenant,ParentID;references:Tenant,ID"`
	Tags   []shapeTag    `gorm:"many2many:shape_cparent_tags"`
}

func (shapeCParent) TableName() string { return "shape_cparents" }

type shapeCKid struct {
	Tenant       string        `gorm:"primaryKey;size:20"`
	ID           gormtype.HUID `gorm:"primaryKey"`
	ParentTenant string        `gorm:"size:20"`
	ParentID     gormtype.HUID
	Name         string `gorm:"size:50"`
}

func (shapeCKid) TableName() string { return "shape_ckids" }

// TestGormShapeCompositeKeys: composite keys (tenant, id) with has-many
// and many2many; a kid's key taken in the same tenant, in Transaction and
// plain; then a Save of the loaded parent with a new kid.
func TestGormShapeCompositeKeys(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src := &takenFirst{}
		db := d.open(t, &gorm.Config{DisableForeignKeyConstraintWhenMigrating: true}, src.plugin(0))
		resetTables(t, db, &shapeCParent{}, &shapeCKid{}, &shapeTag{}, "shape_cparent_tags")
		seed := shapeCParent{Tenant: "t1", Name: "seed", Kids: []shapeCKid{{Tenant: "t1", Name: "k0"}}}
		mustCreate(t, db, &seed)
		p := shapeCParent{Tenant: "t1", Name: "p", Kids: []shapeCKid{{Tenant: "t1", Name: "k1"}, {Tenant: "t1", Name: "k2"}}, Tags: []shapeTag{{Name: "x"}}}
		src.next(0, seed.Kids[0].ID)
		err := db.Create(&p).Error
		checkRefused(t, err, gormtype.ErrKeyTaken, "shape_ckids")
		if !p.ID.IsZero() || !p.Kids[0].ID.IsZero() || !p.Kids[1].ID.IsZero() || !p.Tags[0].ID.IsZero() {
			t.Errorf("after failed Create: %v %v %v %v; want unset", p.ID, p.Kids[0].ID, p.Kids[1].ID, p.Tags[0].ID)
		}
		src.next(0, seed.Kids[0].ID)
		if err := gormtype.Transaction(t.Context(), db, func(tx *gorm.DB) error { return tx.Create(&p).Error }); err != nil {
			t.Fatalf("Transaction: %v", err)
		}
		src.checkDrawn(t)
		checkCount(t, db, 2, "shape_cparents", "1 = 1")
		checkCount(t, db, 3, "shape_ckids", "1 = 1")
		for _, k := range p.Kids {
			checkCount(t, db, 1, "shape_ckids", "tenant = 't1' AND id = ? AND name = ? AND parent_id = ? AND parent_tenant = 't1'", k.ID, k.Name, p.ID)
		}
		checkCount(t, db, 1, "shape_cparent_tags", "shape_c_parent_id = ? AND shape_c_parent_tenant = 't1' AND shape_tag_id = ?", p.ID, p.Tags[0].ID)
		// A kid in another tenant with the same id is not a collision.
		other := shapeCKid{Tenant: "t2", ID: p.Kids[0].ID, ParentTenant: "t1", ParentID: p.ID, Name: "other"} // a kid of p too
		if err := db.Create(&other).Error; err != nil {
			t.Errorf("kid in t2 with t1's id: %v", err)
		}
		// Save of the loaded parent with a new kid whose key is taken.
		var loaded shapeCParent
		if err := db.Preload("Kids").Preload("Tags").First(&loaded, "tenant = ? AND id = ?", "t1", p.ID).Error; err != nil {
			t.Fatal(err)
		}
		loaded.Name = "renamed"
		loaded.Kids = append(loaded.Kids, shapeCKid{Tenant: "t1", Name: "k3"})
		src.next(p.Kids[0].ID)
		if err := gormtype.Transaction(t.Context(), db, func(tx *gorm.DB) error { return tx.Save(&loaded).Error }); err != nil {
			t.Fatalf("Save in Transaction: %v", err)
		}
		src.checkDrawn(t)
		checkCount(t, db, 4, "shape_ckids", "tenant = 't1'")
		checkCount(t, db, 1, "shape_ckids", "tenant = 't1' AND id = ? AND name = 'k3' AND parent_id = ?", loaded.Kids[len(loaded.Kids)-1].ID, p.ID)
		checkCount(t, db, 1, "shape_ckids", "tenant = 't2'")
		checkCount(t, db, 1, "shape_cparents", "name = 'renamed'")
	})
}

// TestGormShapeConcurrent: one *gorm.DB, many goroutines creating posts
// with comments and tags in gormtype.Transaction while a third of the
// draws return taken keys; then plain Creates: every struct of a Create
// that succeeded holds its own row's key, every one of a failed Create
// holds none (a deadlock on MariaDB is an error too), and no row is stored twice.
func TestGormShapeConcurrent(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src := &takenFirst{}
		db := d.open(t, &gorm.Config{DisableForeignKeyConstraintWhenMigrating: true}, src.plugin(10))
		resetTables(t, db, &shapePost{}, &shapeComment{}, &shapeTag{}, "shape_post_tags")
		seed := shapePost{Name: "seed", Comments: []shapeComment{{Body: "seed"}}, Tags: []*shapeTag{{Name: "seed"}}}
		mustCreate(t, db, &seed)
		for range 6 {
			src.next(0, 0, seed.Comments[0].ID, 0, seed.ID, 0, seed.Tags[0].ID)
		}
		const n = 16
		posts := make([]shapePost, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			posts[i] = shapePost{Name: fmt.Sprintf("p%d", i), Comments: []shapeComment{{Body: fmt.Sprintf("c%d", i)}, {Body: fmt.Sprintf("d%d", i)}},
				Tags: []*shapeTag{{Name: fmt.Sprintf("t%d", i)}}}
			wg.Add(1)
			go func() {
				defer wg.Done()
				if i%2 == 0 {
					errs[i] = gormtype.Transaction(t.Context(), db, func(tx *gorm.DB) error { return tx.Create(&posts[i]).Error })
				} else {
					errs[i] = db.Create(&posts[i]).Error
				}
			}()
		}
		wg.Wait()
		src.forget()
		var ok []shapePost
		for i, p := range posts {
			switch {
			case errs[i] == nil:
				ok = append(ok, p)
			default:
				if !p.ID.IsZero() || !p.Comments[0].ID.IsZero() || !p.Comments[1].ID.IsZero() || !p.Tags[0].ID.IsZero() {
					t.Errorf("failed post %d holds keys %v %v %v %v", i, p.ID, p.Comments[0].ID, p.Comments[1].ID, p.Tags[0].ID)
				}
			}
		}
		shapeCheckPosts(t, db, ok)
		checkCount(t, db, int64(len(ok))+1, "shape_posts", "1 = 1")
		checkCount(t, db, 2*int64(len(ok))+1, "shape_comments", "1 = 1")
		checkCount(t, db, int64(len(ok))+1, "shape_tags", "1 = 1")
		checkCount(t, db, int64(len(ok))+1, "shape_post_tags", "1 = 1")
	}, "postgres", "mysql")
}

// TestGormShapePrepareStmt: PrepareStmt in the config and in a Session
// inside Transaction, with a taken comment key: the retry stores each row
// once with the struct's key.
func TestGormShapePrepareStmt(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src := &takenFirst{}
		db := d.open(t, &gorm.Config{PrepareStmt: true, DisableForeignKeyConstraintWhenMigrating: true}, src.plugin(0))
		resetTables(t, db, &shapePost{}, &shapeComment{}, &shapeTag{}, "shape_post_tags")
		seed := shapePost{Name: "seed", Comments: []shapeComment{{Body: "seed"}}}
		mustCreate(t, db, &seed)
		p := shapePosts(1, &shapeTag{Name: "s"})
		src.next(0, seed.Comments[0].ID)
		checkRefused(t, db.Create(&p[0]).Error, gormtype.ErrKeyTaken, "shape_comments")
		if !p[0].ID.IsZero() || !p[0].Comments[0].ID.IsZero() {
			t.Errorf("after a failed prepared Create: %v %v", p[0].ID, p[0].Comments[0].ID)
		}
		src.next(0, seed.Comments[0].ID)
		err := gormtype.Transaction(t.Context(), db, func(tx *gorm.DB) error {
			return tx.Session(&gorm.Session{PrepareStmt: true}).Create(&p[0]).Error
		})
		if err != nil {
			t.Fatal(err)
		}
		src.checkDrawn(t)
		shapeCheckPosts(t, db, p)
		checkCount(t, db, 2, "shape_posts", "1 = 1")
	})
}

type ShapeBase struct {
	ID        gormtype.HUID `gorm:"primaryKey"`
	CreatedAt time.Time
}

type shapeAudit struct {
	By    gormtype.NullHUID `sortid:"auto"`
	Trace gormtype.SCRU128  `sortid:"auto"`
}

type shapeEmb struct {
	*ShapeBase
	Audit shapeAudit  `gorm:"embedded;embeddedPrefix:audit_"`
	Name  string      `gorm:"size:50"`
	Notes []shapeNote `gorm:"foreignKey:EmbID;references:ID"`
}

func (shapeEmb) TableName() string { return "shape_embs" }

type shapeNote struct {
	ShapeBase
	EmbID gormtype.HUID
	Body  string `gorm:"size:50"`
}

func (shapeNote) TableName() string { return "shape_notes" }

// TestGormShapeEmbedded: keys and auto fields in embedded structs (a
// pointer one, and one with a prefix): a taken note key unsets them all,
// and the retry stores them as the structs hold them.
func TestGormShapeEmbedded(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src := &takenFirst{}
		db := d.open(t, &gorm.Config{DisableForeignKeyConstraintWhenMigrating: true}, src.plugin(0))
		resetTables(t, db, &shapeEmb{}, &shapeNote{})
		seed := shapeEmb{Name: "seed", Notes: []shapeNote{{Body: "n0"}}}
		mustCreate(t, db, &seed)
		e := shapeEmb{Name: "e", Notes: []shapeNote{{Body: "n1"}, {Body: "n2"}}}
		src.next(0, 0, seed.Notes[0].ID) // e.ID, e.Audit.By, then a note's
		checkRefused(t, db.Create(&e).Error, gormtype.ErrKeyTaken, "shape_notes")
		if (e.ShapeBase != nil && !e.ID.IsZero()) || e.Audit.By.Valid || !e.Audit.Trace.IsZero() || !e.Notes[0].ID.IsZero() || !e.Notes[1].ID.IsZero() {
			t.Errorf("after the failed Create: %+v %+v %+v", e.ShapeBase, e.Audit, e.Notes)
		}
		src.next(0, 0, seed.Notes[0].ID)
		if err := gormtype.Transaction(t.Context(), db, func(tx *gorm.DB) error { return tx.Create(&e).Error }); err != nil {
			t.Fatal(err)
		}
		src.checkDrawn(t)
		checkCount(t, db, 1, "shape_embs", "id = ? AND audit_by = ? AND audit_trace = ? AND name = 'e'", e.ID, e.Audit.By, e.Audit.Trace)
		for _, n := range e.Notes {
			checkCount(t, db, 1, "shape_notes", "id = ? AND emb_id = ? AND body = ?", n.ID, e.ID, n.Body)
		}
		var loaded shapeEmb
		if err := db.Preload("Notes").First(&loaded, e.ID).Error; err != nil || loaded.Audit != e.Audit || len(loaded.Notes) != 2 {
			t.Errorf("First(&loaded, e.ID): %v, %+v", err, loaded)
		}
	})
}

type shapeItem struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string        `gorm:"size:50"`
	Subs []shapeSub    `gorm:"foreignKey:ItemID"`
}

func (shapeItem) TableName() string { return "shape_schema.shape_items" }

type shapeSub struct {
	ID     gormtype.HUID `gorm:"primaryKey"`
	ItemID gormtype.HUID
	Name   string `gorm:"size:50"`
}

func (shapeSub) TableName() string { return "shape_schema.shape_subs" }

// TestGormShapeSchemaTable: tables in another schema (TableName
// "shape_schema.shape_items"; PostgreSQL) and db.Table of a copy (every dialect), with
// a taken key.
func TestGormShapeSchemaTable(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src := &takenFirst{}
		db := d.open(t, &gorm.Config{DisableForeignKeyConstraintWhenMigrating: true}, src.plugin(0))
		if d.name == "postgres" {
			mustExec(t, db, "CREATE SCHEMA IF NOT EXISTS shape_schema")
			resetTables(t, db, &shapeItem{}, &shapeSub{})
			seed := shapeItem{Name: "seed", Subs: []shapeSub{{Name: "s0"}}}
			mustCreate(t, db, &seed)
			it := shapeItem{Name: "i", Subs: []shapeSub{{Name: "s1"}}}
			src.next(0, seed.Subs[0].ID)
			checkRefused(t, db.Create(&it).Error, gormtype.ErrKeyTaken, "shape_schema.shape_subs")
			if !it.ID.IsZero() || !it.Subs[0].ID.IsZero() {
				t.Errorf("after the failed Create: %v %v", it.ID, it.Subs[0].ID)
			}
			src.next(seed.ID)
			if err := gormtype.Transaction(t.Context(), db, func(tx *gorm.DB) error { return tx.Create(&it).Error }); err != nil {
				t.Fatal(err)
			}
			src.checkDrawn(t)
			checkCount(t, db, 1, "shape_schema.shape_items", "id = ? AND name = 'i'", it.ID)
			checkCount(t, db, 1, "shape_schema.shape_subs", "id = ? AND item_id = ?", it.Subs[0].ID, it.ID)
		}
		resetTables(t, db, &shapeTag{})
		mustExec(t, db, "DROP TABLE IF EXISTS shape_tags_copy")
		if err := db.Table("shape_tags_copy").AutoMigrate(&shapeTag{}); err != nil {
			t.Fatal(err)
		}
		first := shapeTag{Name: "a"}
		if err := db.Table("shape_tags_copy").Create(&first).Error; err != nil {
			t.Fatal(err)
		}
		second := shapeTag{Name: "b"}
		src.next(first.ID)
		checkRefused(t, db.Table("shape_tags_copy").Create(&second).Error, gormtype.ErrKeyTaken, "shape_tags_copy")
		if !second.ID.IsZero() {
			t.Errorf("after the failed Create: %v", second.ID)
		}
		src.next(first.ID)
		if err := gormtype.Transaction(t.Context(), db, func(tx *gorm.DB) error { return tx.Table("shape_tags_copy").Create(&second).Error }); err != nil {
			t.Fatal(err)
		}
		checkCount(t, db, 1, "shape_tags_copy", "id = ? AND name = 'b'", second.ID)
		checkCount(t, db, 0, "shape_tags", "1 = 1")
	})
}

// TestGormShapeFirstOrCreate: FirstOrCreate with Where, Attrs and Assign
// whose Create's key is taken: ErrKeyTaken and the key unset, then the
// retry; found, Assign updates the found row only.
func TestGormShapeFirstOrCreate(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src := &takenFirst{}
		db := d.open(t, &gorm.Config{}, src.plugin(0))
		resetTables(t, db, &shapeAccount{})
		other := shapeAccount{Email: "o@x", Name: "o"}
		mustCreate(t, db, &other)
		var a shapeAccount
		src.next(other.ID)
		q := func(tx *gorm.DB) *gorm.DB {
			return tx.Where(shapeAccount{Email: "f@x"}).Attrs(shapeAccount{Name: "attr"}).Assign(map[string]any{"name": "assigned"})
		}
		checkRefused(t, q(db).FirstOrCreate(&a).Error, gormtype.ErrKeyTaken, "shape_accounts")
		if !a.ID.IsZero() {
			t.Errorf("after the failed FirstOrCreate: %v", a.ID)
		}
		src.next(other.ID)
		if err := gormtype.Transaction(t.Context(), db, func(tx *gorm.DB) error { return q(tx).FirstOrCreate(&a).Error }); err != nil {
			t.Fatal(err)
		}
		checkCount(t, db, 1, "shape_accounts", "id = ? AND email = 'f@x' AND name = 'assigned'", a.ID)
		var b shapeAccount
		if err := db.Where(shapeAccount{Email: "f@x"}).Assign(shapeAccount{Name: "again"}).FirstOrCreate(&b).Error; err != nil || b.ID != a.ID {
			t.Errorf("FirstOrCreate of the stored row: %v, id %v want %v", err, b.ID, a.ID)
		}
		checkCount(t, db, 1, "shape_accounts", "id = ? AND name = 'again'", a.ID)
		checkCount(t, db, 1, "shape_accounts", "id = ? AND name = 'o'", other.ID)
		var c shapeAccount
		if err := db.Where(shapeAccount{Email: "g@x"}).FirstOrInit(&c).Error; err != nil || !c.ID.IsZero() {
			t.Errorf("FirstOrInit of a new row: %v, %v", err, c.ID)
		}
		if err := db.Save(&c).Error; err != nil {
			t.Errorf("Save of the FirstOrInit row: %v", err)
		}
		checkCount(t, db, 1, "shape_accounts", "id = ? AND email = 'g@x'", c.ID)
		// A map condition on a zero ID is refused, not matched as NULL.
		var z shapeAccount
		err := db.Where(map[string]any{"id": gormtype.HUID(0)}).Attrs(shapeAccount{Email: "z@x"}).FirstOrCreate(&z).Error
		checkRefused(t, err, gormtype.ErrZeroID)
		checkCount(t, db, 0, "shape_accounts", "email = 'z@x'")
	})
}

type shapeSoft struct {
	ID        gormtype.HUID    `gorm:"primaryKey"`
	Trace     gormtype.SCRU128 `sortid:"auto"`
	Name      string           `gorm:"size:50"`
	DeletedAt gorm.DeletedAt
	Items     []shapeSoftItem `gorm:"foreignKey:SoftID"`
	Tags      []shapeTag      `gorm:"many2many:shape_soft_tags"`
}

func (shapeSoft) TableName() string { return "shape_softs" }

type shapeSoftItem struct {
	ID        gormtype.HUID `gorm:"primaryKey"`
	SoftID    gormtype.HUID
	Name      string `gorm:"size:50"`
	DeletedAt gorm.DeletedAt
}

func (shapeSoftItem) TableName() string { return "shape_soft_items" }

// TestGormShapeSoftDelete: soft-delete models with gormtype keys: a
// Select(clause.Associations) Delete touches the row's items and join
// rows only; a Save of the soft-deleted loaded row (GORM's fallback upsert)
// updates it and stores nothing twice; a Delete of a zero-key row deletes nothing.
func TestGormShapeSoftDelete(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{DisableForeignKeyConstraintWhenMigrating: true}, gormtype.AutoID{})
		resetTables(t, db, &shapeSoft{}, &shapeSoftItem{}, &shapeTag{}, "shape_soft_tags")
		a := shapeSoft{Name: "a", Items: []shapeSoftItem{{Name: "a1"}, {Name: "a2"}}, Tags: []shapeTag{{Name: "ta"}}}
		b := shapeSoft{Name: "b", Items: []shapeSoftItem{{Name: "b1"}}, Tags: []shapeTag{{Name: "tb"}}}
		mustCreate(t, db, &a)
		mustCreate(t, db, &b)
		if err := db.Select(clause.Associations).Delete(&a).Error; err != nil {
			t.Fatal(err)
		}
		checkCount(t, db, 1, "shape_softs", "deleted_at IS NOT NULL AND id = ?", a.ID)
		checkCount(t, db, 2, "shape_soft_items", "deleted_at IS NOT NULL AND soft_id = ?", a.ID)
		checkCount(t, db, 1, "shape_soft_items", "deleted_at IS NULL AND soft_id = ?", b.ID)
		checkCount(t, db, 1, "shape_soft_tags", "1 = 1")
		checkCount(t, db, 2, "shape_tags", "1 = 1")
		var loaded shapeSoft
		if err := db.Unscoped().First(&loaded, a.ID).Error; err != nil {
			t.Fatal(err)
		}
		loaded.Name = "a2"
		if err := db.Save(&loaded).Error; err != nil {
			t.Errorf("Save of a soft-deleted loaded row: %v", err)
		}
		checkCount(t, db, 1, "shape_softs", "id = ? AND name = 'a2'", a.ID)
		checkCount(t, db, 2, "shape_softs", "1 = 1")
		for _, z := range []*shapeSoft{{}, {Name: "b"}} {
			if err := db.Select(clause.Associations).Delete(z).Error; err == nil {
				t.Errorf("Delete of a zero-key row: err nil")
			}
		}
		checkCount(t, db, 1, "shape_softs", "deleted_at IS NULL")
		checkCount(t, db, 1, "shape_soft_items", "deleted_at IS NULL")
	})
}

// TestGormShapeReturning: Clauses(clause.Returning{}) on a Create whose
// key is taken, then retried (PostgreSQL, SQLite); on an allowed upsert
// (on email) with RETURNING name only, the struct gets the stored row's
// key.
func TestGormShapeReturning(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src := &takenFirst{}
		db := d.open(t, &gorm.Config{}, src.plugin(0))
		resetTables(t, db, &shapeAccount{})
		first := shapeAccount{Email: "a@x", Name: "a"}
		mustCreate(t, db, &first)
		b := shapeAccount{Email: "b@x", Name: "b"}
		src.next(first.ID)
		checkRefused(t, db.Clauses(clause.Returning{}).Create(&b).Error, gormtype.ErrKeyTaken, "shape_accounts")
		if !b.ID.IsZero() {
			t.Errorf("after the failed Create: %v", b.ID)
		}
		src.next(first.ID)
		if err := gormtype.Transaction(t.Context(), db, func(tx *gorm.DB) error { return tx.Clauses(clause.Returning{}).Create(&b).Error }); err != nil {
			t.Fatal(err)
		}
		checkCount(t, db, 1, "shape_accounts", "id = ? AND email = 'b@x'", b.ID)
		up := shapeAccount{Email: "a@x", Name: "a2"}
		err := db.Clauses(clause.Returning{Columns: []clause.Column{{Name: "name"}}},
			clause.OnConflict{Columns: []clause.Column{{Name: "email"}}, DoUpdates: clause.AssignmentColumns([]string{"name"})}).Create(&up).Error
		if err != nil || up.ID != first.ID {
			t.Errorf("upsert with RETURNING name: %v, id %v want %v", err, up.ID, first.ID)
		}
		checkCount(t, db, 1, "shape_accounts", "id = ? AND name = 'a2'", first.ID)
		checkCount(t, db, 2, "shape_accounts", "1 = 1")
		// Returning on Delete and Update.
		var gone []shapeAccount
		if err := db.Clauses(clause.Returning{}).Where("email = ?", "b@x").Delete(&gone).Error; err != nil || len(gone) != 1 || gone[0].ID != b.ID {
			t.Errorf("Delete RETURNING: %v %+v", err, gone)
		}
	}, "postgres", "sqlite")
}

// TestGormShapeSaveMixedSlice: Save of a slice of a loaded and a new row
// (GORM's upsert on the key): refused by name, nothing written, the new
// row's key unset; of loaded rows only: saved.
func TestGormShapeSaveMixedSlice(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		resetTables(t, db, &shapeTag{})
		old := shapeTag{Name: "old"}
		mustCreate(t, db, &old)
		old.Name = "renamed"
		rows := []shapeTag{old, {Name: "new"}}
		err := db.Save(&rows).Error
		checkRefused(t, err, gormtype.ErrRefused, "shape_tags")
		if !rows[1].ID.IsZero() {
			t.Errorf("new row holds %v", rows[1].ID)
		}
		checkCount(t, db, 1, "shape_tags", "name = 'old'")
		checkCount(t, db, 1, "shape_tags", "1 = 1")
		rows = rows[:1]
		if err := db.Save(&rows).Error; err != nil {
			t.Errorf("Save of loaded rows: %v", err)
		}
		checkCount(t, db, 1, "shape_tags", "id = ? AND name = 'renamed'", old.ID)
	})
}

type shapeOrder struct {
	ID    gormtype.HUID `gorm:"primaryKey"`
	Name  string        `gorm:"size:50"`
	Lines []shapeLine   `gorm:"foreignKey:OrderID"`
}

func (shapeOrder) TableName() string { return "shape_orders" }

// shapeLine's key is its order's key and a line number, as in a weak entity.
type shapeLine struct {
	OrderID gormtype.HUID `gorm:"primaryKey" sortid:"-"`
	Seq     int           `gorm:"primaryKey;autoIncrement:false"`
	Item    string        `gorm:"size:50"`
}

func (shapeLine) TableName() string { return "shape_lines" }

// TestGormShapeKeyPartIsForeignKey: a composite key whose HUID part is the
// foreign key of a has-many, tagged sortid:"-" as docs/gorm.md says:
// created or saved through the order, the lines get the order's key; a
// line created with its OrderID forgotten fails with ErrZeroID.
func TestGormShapeKeyPartIsForeignKey(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{DisableForeignKeyConstraintWhenMigrating: true}, gormtype.AutoID{})
		resetTables(t, db, &shapeOrder{}, &shapeLine{})
		o := shapeOrder{Name: "o", Lines: []shapeLine{{Seq: 1, Item: "a"}, {Seq: 2, Item: "b"}}}
		mustCreate(t, db, &o)
		checkCount(t, db, 2, "shape_lines", "order_id = ?", o.ID)
		var loaded shapeOrder
		if err := db.Preload("Lines").First(&loaded, o.ID).Error; err != nil {
			t.Fatal(err)
		}
		loaded.Lines = append(loaded.Lines, shapeLine{Seq: 3, Item: "c"})
		if err := db.Save(&loaded).Error; err != nil {
			t.Errorf("Save with a new line: %v", err)
		}
		checkCount(t, db, 3, "shape_lines", "order_id = ?", o.ID)
		forgot := shapeLine{Seq: 1, Item: "forgot its order"}
		checkRefused(t, db.Create(&forgot).Error, gormtype.ErrZeroID, "shapeLine.OrderID")
		checkCount(t, db, 3, "shape_lines", "1 = 1")
	})
}

type shapeStamp struct {
	ID    gormtype.HUID     `gorm:"primaryKey"`
	Trace gormtype.NullHUID `sortid:"auto"`
	Name  string            `gorm:"size:50"`
	Kids  []shapeStampKid   `gorm:"foreignKey:StampID"`
}

func (shapeStamp) TableName() string { return "shape_stamps" }

type shapeStampKid struct {
	ID      gormtype.HUID `gorm:"primaryKey"`
	StampID gormtype.HUID
	Name    string `gorm:"size:50"`
}

func (shapeStampKid) TableName() string { return "shape_stamp_kids" }

// TestGormShapeSaveUnchanged: on MariaDB an UPDATE that changes nothing
// reports no row, and GORM's Save then upserts the row (ON DUPLICATE KEY
// UPDATE). A loaded row stored with a NULL sortid:"auto" Null (a column
// added later), saved unchanged, alone or with a new kid, is stored as it
// is: AutoID leaves the rows of that upsert given by key alone.
func TestGormShapeSaveUnchanged(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{DisableForeignKeyConstraintWhenMigrating: true}, gormtype.AutoID{})
		resetTables(t, db, &shapeStamp{}, &shapeStampKid{})
		id := gormtype.NewHUID()
		mustExecArgs(t, db, "INSERT INTO shape_stamps (id, name) VALUES (?, 'old')", id)
		var loaded shapeStamp
		if err := db.First(&loaded, id).Error; err != nil {
			t.Fatal(err)
		}
		err := db.Save(&loaded).Error
		if err != nil {
			t.Errorf("Save of an unchanged loaded row: %v", err)
		}
		checkCount(t, db, 1, "shape_stamps", "1 = 1")
		loaded.Kids = []shapeStampKid{{Name: "k"}}
		err = db.Save(&loaded).Error
		checkCount(t, db, 1, "shape_stamps", "1 = 1")
		if err == nil {
			checkCount(t, db, 1, "shape_stamp_kids", "id = ? AND stamp_id = ?", loaded.Kids[0].ID, id)
		} else {
			t.Errorf("Save with a new kid: %v", err)
		}
	})
}

// TestGormShapeSubqueryVariants: the other places a subquery with a zero
// ID goes: IN (a query returns nothing, err nil), EXISTS, Having.
func TestGormShapeSubqueryVariants(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{DisableForeignKeyConstraintWhenMigrating: true}, gormtype.AutoID{})
		shapeSeed(t, db)
		var zero gormtype.SCRU128
		var kids []shapeKid
		err := db.Where("parent_id IN (?)", db.Model(&shapeParent{}).Select("id").Where("ref = ?", zero)).Find(&kids).Error
		if !errors.Is(err, gormtype.ErrZeroID) {
			t.Errorf("Find with a zero SCRU128 in an IN subquery: err %v, %d kids; want ErrZeroID", err, len(kids))
		}
		var n int64
		err = db.Model(&shapeKid{}).Where("EXISTS (?)", db.Model(&shapeParent{}).Select("1").Where(map[string]any{"id": gormtype.HUID(0)})).Count(&n).Error
		if !errors.Is(err, gormtype.ErrZeroID) {
			t.Errorf("Count with a zero HUID map in an EXISTS subquery: err %v, count %d; want ErrZeroID", err, n)
		}
		var groups []struct{ ParentID gormtype.HUID }
		err = db.Model(&shapeKid{}).Select("parent_id").Group("parent_id").Having(map[string]any{"parent_id": gormtype.HUID(0)}).Scan(&groups).Error
		if !errors.Is(err, gormtype.ErrZeroID) {
			t.Errorf("Having(map{parent_id: zero}): err %v, %d groups; want ErrZeroID", err, len(groups))
		}
	})
}
