package integration_test

// The split suite: GORM saves an association's rows as one upsert on the
// key, which AutoID splits into a plain INSERT of the new rows (stored once
// each) and GORM's upsert of the stored ones; the stored rows are saved as
// GORM saves them, and rows given by key are stored or refused by name.

import (
	"context"
	"errors"
	"testing"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/sortid/sortid/gormtype"
)

type splitDoc struct {
	ID    gormtype.HUID `gorm:"primaryKey"`
	Name  string        `gorm:"size:50"`
	Lines []splitLine   `gorm:"foreignKey:DocID"`
}

func (splitDoc) TableName() string { return "split_docs" }

type splitLine struct {
	ID        gormtype.HUID `gorm:"primaryKey"`
	DocID     gormtype.HUID
	Item      string `gorm:"size:50"`
	Actor     string `gorm:"size:50"`
	UpdatedAt time.Time
}

func (splitLine) TableName() string { return "split_lines" }

// BeforeSave reads a setting the caller gave with db.Set.
func (l *splitLine) BeforeSave(tx *gorm.DB) error {
	if v, ok := tx.Get("actor"); ok {
		l.Actor = v.(string)
	}
	return nil
}

// TestGormSplitKeepsSettings: a full save of a loaded document with a new
// line saves the stored line as GORM does without the new one: its hook
// sees the caller's db.Set, and its struct gets the UpdatedAt stored.
func TestGormSplitKeepsSettings(t *testing.T) {
	t.Parallel()
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		resetTables(t, db, &splitDoc{}, &splitLine{})
		doc := splitDoc{Name: "d", Lines: []splitLine{{Item: "old"}}}
		mustCreate(t, db, &doc)
		var loaded splitDoc
		if err := db.Preload("Lines").First(&loaded, "id = ?", doc.ID).Error; err != nil {
			t.Fatal(err)
		}
		before := loaded.Lines[0].UpdatedAt
		time.Sleep(5 * time.Millisecond)
		loaded.Lines[0].Item = "edited"
		loaded.Lines = append(loaded.Lines, splitLine{Item: "new"})
		if err := db.Session(&gorm.Session{FullSaveAssociations: true}).Set("actor", "alice").Save(&loaded).Error; err != nil {
			t.Fatalf("Save: %v", err)
		}
		checkCount(t, db, 1, "split_lines", "id = ? AND item = 'edited' AND actor = 'alice'", doc.Lines[0].ID)
		checkCount(t, db, 1, "split_lines", "id = ? AND item = 'new' AND actor = 'alice'", loaded.Lines[1].ID)
		if !loaded.Lines[0].UpdatedAt.After(before) {
			t.Errorf("the stored line's struct kept UpdatedAt %v; the Save stored a later one", before)
		}
	})
}

type splitOwner struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string        `gorm:"size:50"`
	Pets []*splitPet   `gorm:"foreignKey:OwnerID"`
}

func (splitOwner) TableName() string { return "split_owners" }

type splitPet struct {
	ID      gormtype.HUID `gorm:"primaryKey"`
	OwnerID gormtype.NullHUID
	Owner   *splitOwner
	Name    string `gorm:"size:50"`
}

func (splitPet) TableName() string { return "split_pets" }

// TestGormSplitCycle: an owner created with a stored pet and a new one,
// both pointing back to it, is saved once: GORM's guard against saving
// associations in a circle still holds for the stored rows.
func TestGormSplitCycle(t *testing.T) {
	t.Parallel()
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{DisableForeignKeyConstraintWhenMigrating: true}, gormtype.AutoID{})
		resetTables(t, db, &splitOwner{}, &splitPet{})
		stored := splitPet{Name: "stored"}
		mustCreate(t, db, &stored)
		owner := &splitOwner{Name: "o"}
		stored.Owner = owner
		owner.Pets = []*splitPet{&stored, {Name: "new", Owner: owner}}
		done := make(chan error, 1)
		go func() { done <- db.Create(owner).Error }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("Create: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("Create of an owner whose pets point back to it did not return")
		}
		checkCount(t, db, 1, "split_owners", "1 = 1")
		checkCount(t, db, 2, "split_pets", "owner_id = ?", owner.ID)
	})
}

type splitSlotDoc struct {
	ID    gormtype.HUID   `gorm:"primaryKey"`
	Lines []splitSlotLine `gorm:"foreignKey:DocID"`
}

func (splitSlotDoc) TableName() string { return "split_slot_docs" }

type splitSlotLine struct {
	Slot  int           `gorm:"primaryKey;autoIncrement:false"`
	ID    gormtype.HUID `gorm:"primaryKey"`
	DocID gormtype.HUID
	Item  string `gorm:"size:50"`
}

func (splitSlotLine) TableName() string { return "split_slot_lines" }

// TestGormSplitCompositeKey: a stored line whose composite key has a zero
// part AutoID does not fill (Slot 0) is a stored row, saved by GORM's
// upsert beside a new line, with and without FullSaveAssociations.
func TestGormSplitCompositeKey(t *testing.T) {
	t.Parallel()
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		for _, full := range []bool{false, true} {
			resetTables(t, db, &splitSlotDoc{}, &splitSlotLine{})
			doc := splitSlotDoc{Lines: []splitSlotLine{{Slot: 0, Item: "old"}}}
			mustCreate(t, db, &doc)
			var loaded splitSlotDoc
			if err := db.Preload("Lines").First(&loaded, "id = ?", doc.ID).Error; err != nil {
				t.Fatal(err)
			}
			loaded.Lines[0].Item = "edited"
			loaded.Lines = append(loaded.Lines, splitSlotLine{Slot: 1, Item: "new"})
			if err := db.Session(&gorm.Session{FullSaveAssociations: full}).Save(&loaded).Error; err != nil {
				t.Fatalf("FullSaveAssociations=%v: Save: %v", full, err)
			}
			want := map[bool]string{true: "edited", false: "old"}[full]
			checkCount(t, db, 1, "split_slot_lines", "slot = 0 AND id = ? AND item = ?", doc.Lines[0].ID, want)
			checkCount(t, db, 1, "split_slot_lines", "slot = 1 AND id = ? AND item = 'new'", loaded.Lines[1].ID)
		}
	})
}

type splitTag struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string        `gorm:"size:50"`
}

func (splitTag) TableName() string { return "split_tags" }

type splitPost struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Tags []*splitTag   `gorm:"many2many:split_post_tags"`
}

func (splitPost) TableName() string { return "split_posts" }

// TestGormSplitSharedNewTag: a new tag shared by two new posts is stored
// once with a join row for each post, also when its key is taken and
// Transaction runs the Create again.
func TestGormSplitSharedNewTag(t *testing.T) {
	t.Parallel()
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src := &takenFirst{}
		db := d.open(t, &gorm.Config{}, src.plugin(0))
		resetTables(t, db, &splitPost{}, &splitTag{}, "split_post_tags")
		other := splitTag{ID: gormtype.NewHUID(), Name: "other"}
		mustCreate(t, db, &other)
		tag := &splitTag{Name: "shared"}
		posts := []splitPost{{Tags: []*splitTag{tag}}, {Tags: []*splitTag{tag}}}
		src.next(0, 0, other.ID) // the posts' keys, then the tag's is taken
		attempts := 0
		err := gormtype.Transaction(context.Background(), db, func(tx *gorm.DB) error {
			attempts++
			return tx.Create(&posts).Error
		})
		if err != nil || attempts != 2 {
			t.Fatalf("Transaction: %v after %d attempts; want success after 2", err, attempts)
		}
		src.checkDrawn(t)
		checkCount(t, db, 1, "split_tags", "id = ? AND name = 'shared'", tag.ID)
		checkCount(t, db, 2, "split_tags", "1 = 1")
		for _, p := range posts {
			checkCount(t, db, 1, "split_post_tags", "split_post_id = ? AND split_tag_id = ?", p.ID, tag.ID)
		}
		checkCount(t, db, 2, "split_post_tags", "1 = 1")
	})
}

type splitBoss struct {
	ID    gormtype.HUID    `gorm:"primaryKey"`
	Trace gormtype.SCRU128 `sortid:"auto"`
	Name  string           `gorm:"size:50"`
}

func (splitBoss) TableName() string { return "split_bosses" }

type splitWorker struct {
	ID     gormtype.HUID `gorm:"primaryKey"`
	BossID gormtype.HUID
	Boss   *splitBoss
	Name   string `gorm:"size:50"`
}

func (splitWorker) TableName() string { return "split_workers" }

// TestGormSplitPartialPreload: a worker loaded with its boss's id and name
// only, then renamed and saved, is refused with ErrZeroID (the boss's zero
// Trace), and nothing changes; saved without the boss (Omit("Boss")), as
// the error says, it is stored.
func TestGormSplitPartialPreload(t *testing.T) {
	t.Parallel()
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{DisableForeignKeyConstraintWhenMigrating: true}, gormtype.AutoID{})
		resetTables(t, db, &splitBoss{}, &splitWorker{})
		w := splitWorker{Name: "w", Boss: &splitBoss{Name: "b"}}
		mustCreate(t, db, &w)
		var loaded splitWorker
		if err := db.Preload("Boss", func(tx *gorm.DB) *gorm.DB { return tx.Select("id", "name") }).First(&loaded, "id = ?", w.ID).Error; err != nil {
			t.Fatal(err)
		}
		loaded.Name = "renamed"
		checkRefused(t, db.Save(&loaded).Error, gormtype.ErrZeroID, "splitBoss", "Trace", `Omit("<association>")`)
		checkCount(t, db, 1, "split_workers", "id = ? AND name = 'w'", w.ID)
		if err := db.Omit("Boss").Save(&loaded).Error; err != nil {
			t.Fatalf("Save without associations: %v", err)
		}
		checkStored(t, db, w.Boss.ID, *w.Boss)
		checkCount(t, db, 1, "split_workers", "id = ? AND boss_id = ? AND name = 'renamed'", w.ID, w.Boss.ID)
	})
}

// splitMadeBoss and friends have keys the database makes (auto-increment)
// and a fresh Trace.
type splitMadeBoss struct {
	ID    uint             `gorm:"primaryKey"`
	Trace gormtype.SCRU128 `sortid:"auto"`
	Name  string           `gorm:"size:50"`
}

func (splitMadeBoss) TableName() string { return "split_made_bosses" }

type splitMadeTeam struct {
	ID      uint             `gorm:"primaryKey"`
	BossID  uint             `gorm:"index"`
	Boss    *splitMadeBoss   `gorm:"foreignKey:BossID"`
	Members []splitMadeBoss  `gorm:"many2many:split_made_members"`
	Lines   []splitMadeLine  `gorm:"foreignKey:TeamID"`
	Trace   gormtype.SCRU128 `sortid:"auto"`
}

func (splitMadeTeam) TableName() string { return "split_made_teams" }

type splitMadeLine struct {
	ID     uint             `gorm:"primaryKey"`
	TeamID uint             `gorm:"index"`
	Trace  gormtype.SCRU128 `sortid:"auto"`
}

func (splitMadeLine) TableName() string { return "split_made_lines" }

// TestGormSplitMadeKeys: new association rows whose keys the database
// makes (belongs-to, many2many, has-many) get their sortid:"auto" fields
// filled and stored, as rows created alone do.
func TestGormSplitMadeKeys(t *testing.T) {
	t.Parallel()
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{DisableForeignKeyConstraintWhenMigrating: true}, gormtype.AutoID{})
		resetTables(t, db, &splitMadeBoss{}, &splitMadeTeam{}, &splitMadeLine{}, "split_made_members")
		team := splitMadeTeam{Boss: &splitMadeBoss{Name: "b"}, Members: []splitMadeBoss{{Name: "m"}}, Lines: []splitMadeLine{{}}}
		mustCreate(t, db, &team)
		for _, r := range []struct {
			table string
			id    uint
			trace gormtype.SCRU128
		}{
			{"split_made_bosses", team.Boss.ID, team.Boss.Trace},
			{"split_made_bosses", team.Members[0].ID, team.Members[0].Trace},
			{"split_made_lines", team.Lines[0].ID, team.Lines[0].Trace},
			{"split_made_teams", team.ID, team.Trace},
		} {
			if r.trace.IsZero() {
				t.Errorf("%s row %d: Trace not filled", r.table, r.id)
			}
			checkCount(t, db, 1, r.table, "id = ? AND trace = ?", r.id, r.trace)
		}
	})
}

type splitPtrAccount struct {
	ID    *gormtype.HUID `gorm:"primaryKey"`
	Email string         `gorm:"size:100;uniqueIndex"`
	Name  string         `gorm:"size:50"`
}

func (splitPtrAccount) TableName() string { return "split_ptr_accounts" }

// TestGormSplitUpsertPointerKey: an allowed upsert of a row whose key is
// a nil pointer or the caller's pointer to a zero HUID: after it updated
// a stored row the struct holds that row's key; after a failure later in
// the Transaction the key is unset again, like every key AutoID filled;
// the caller's HUID is never written.
func TestGormSplitUpsertPointerKey(t *testing.T) {
	t.Parallel()
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		resetTables(t, db, &splitPtrAccount{})
		onEmail := clause.OnConflict{Columns: []clause.Column{{Name: "email"}}, DoUpdates: clause.AssignmentColumns([]string{"name"})}
		failed := errors.New("a later step failed")
		stored := splitPtrAccount{Email: "s@x", Name: "s"}
		mustCreate(t, db, &stored)
		for _, start := range []*gormtype.HUID{nil, new(gormtype.HUID)} {
			a := splitPtrAccount{ID: start, Email: "n@x", Name: "a"}
			err := gormtype.Transaction(context.Background(), db, func(tx *gorm.DB) error {
				if err := tx.Clauses(onEmail).Create(&a).Error; err != nil {
					return err
				}
				return failed
			})
			if !errors.Is(err, failed) {
				t.Fatalf("Transaction: %v; want %v", err, failed)
			}
			if a.ID != start || start != nil && !start.IsZero() {
				t.Errorf("after the rollback the struct's key is %v, the caller's %v; want the caller's, zero", a.ID, start)
			}
			b := splitPtrAccount{ID: start, Email: "s@x", Name: "renamed"}
			if err := db.Clauses(onEmail).Create(&b).Error; err != nil {
				t.Fatalf("upsert on a stored email: %v", err)
			}
			if b.ID == nil || *b.ID != *stored.ID || start != nil && !start.IsZero() {
				t.Errorf("after the upsert the struct's key is %v, the caller's %v; want the stored %s, and zero", b.ID, start, *stored.ID)
			}
		}
		checkCount(t, db, 1, "split_ptr_accounts", "1 = 1")
	}, "postgres", "sqlite")
}

// splitTracedTag has a fresh Trace besides its key.
type splitTracedTag struct {
	ID    gormtype.HUID    `gorm:"primaryKey"`
	Trace gormtype.SCRU128 `sortid:"auto"`
}

func (splitTracedTag) TableName() string { return "split_traced_tags" }

type splitTracedPost struct {
	ID   gormtype.HUID    `gorm:"primaryKey"`
	Tags []splitTracedTag `gorm:"many2many:split_traced_post_tags"`
}

func (splitTracedPost) TableName() string { return "split_traced_posts" }

// TestGormSplitAttachMany2Many: a stored tag given by key is refused as a
// belongs-to owner is; Omit("Tags.*") links it, in Create and in
// Association("Tags").Append, and leaves it as it was.
func TestGormSplitAttachMany2Many(t *testing.T) {
	t.Parallel()
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		resetTables(t, db, &splitTracedPost{}, &splitTracedTag{}, "split_traced_post_tags")
		tag := splitTracedTag{}
		mustCreate(t, db, &tag)
		post := splitTracedPost{Tags: []splitTracedTag{{ID: tag.ID}}}
		checkRefused(t, db.Create(&post).Error, gormtype.ErrZeroID, "splitTracedTag", "Trace", `Omit("<association>.*")`)
		if err := db.Omit("Tags.*").Create(&post).Error; err != nil {
			t.Fatalf(`Create with Omit("Tags.*"): %v`, err)
		}
		other := splitTracedPost{}
		mustCreate(t, db, &other)
		if err := db.Model(&other).Omit("Tags.*").Association("Tags").Append(&splitTracedTag{ID: tag.ID}); err != nil {
			t.Fatalf(`Append with Omit("Tags.*"): %v`, err)
		}
		for _, p := range []splitTracedPost{post, other} {
			checkCount(t, db, 1, "split_traced_post_tags", "split_traced_post_id = ? AND split_traced_tag_id = ?", p.ID, tag.ID)
		}
		checkStored(t, db, tag.ID, tag)
		checkCount(t, db, 1, "split_traced_tags", "1 = 1")
	})
}

// TestGormSplitZeroPointerKeys: association rows whose keys point to a zero
// HUID, or are a Valid NullHUID of zero, which GORM takes as one key and
// saves once for all, are refused with ErrZeroID naming the association;
// nothing is stored. With nil keys every row is stored. It shares the
// flows suite's tables, so it runs before the parallel tests.
func TestGormSplitZeroPointerKeys(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{DisableForeignKeyConstraintWhenMigrating: true}, gormtype.AutoID{})
		resetTables(t, db, &flowPtrParent{}, &flowPtrKid{}, &flowNullTag{}, "flow_ptr_parent_tags")
		for _, p := range []flowPtrParent{
			{Kids: []flowPtrKid{{ID: new(gormtype.HUID)}, {ID: new(gormtype.HUID)}}},
			{Tags: []flowNullTag{{ID: gormtype.NullHUID{Valid: true}}, {ID: gormtype.NullHUID{Valid: true}}}},
		} {
			checkRefused(t, db.Create(&p).Error, gormtype.ErrZeroID, "flowPtrParent", "nil")
		}
		checkCount(t, db, 0, "flow_ptr_parents", "1 = 1")
		p := flowPtrParent{Kids: []flowPtrKid{{}, {}}, Tags: []flowNullTag{{}, {}}}
		mustCreate(t, db, &p)
		checkCount(t, db, 2, "flow_ptr_kids", "parent_id = ?", p.ID)
		checkCount(t, db, 2, "flow_ptr_parent_tags", "flow_ptr_parent_id = ?", p.ID)
	})
}
