package integration_test

// The fill suite: AutoID gives every zero key and sortid:"auto" field of a
// Create a fresh ID, in the record and in every record GORM creates with
// it; keys the caller set stay; the IDs of one statement ascend with its
// rows; a field the database fills by its default is left to it.

import (
	"fmt"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/sortid/sortid/gormtype"
)

type fillAuthor struct {
	ID      gormtype.HUID `gorm:"primaryKey"`
	Name    string        `gorm:"size:50"`
	Books   []fillBook    `gorm:"foreignKey:AuthorID"`
	Profile *fillProfile  `gorm:"foreignKey:AuthorID"`
	Tags    []fillTag     `gorm:"many2many:fill_author_tags"`
}

func (fillAuthor) TableName() string { return "fill_authors" }

type fillBook struct {
	ID       gormtype.SCRU128 `gorm:"primaryKey"`
	AuthorID gormtype.HUID    `gorm:"index"`
	Title    string           `gorm:"size:50"`
}

func (fillBook) TableName() string { return "fill_books" }

type fillProfile struct {
	ID       gormtype.SCRU128Bytes `gorm:"primaryKey"`
	AuthorID gormtype.HUID
	Mentor   gormtype.NullHUID
}

func (fillProfile) TableName() string { return "fill_profiles" }

type fillTag struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string        `gorm:"size:50"`
}

func (fillTag) TableName() string { return "fill_tags" }

// TestGormFill: the keys of a record and of its has-many, has-one and
// many2many records, and of CreateInBatches, on every dialect.
func TestGormFill(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		resetTables(t, db, &fillAuthor{}, &fillBook{}, &fillProfile{}, &fillTag{}, "fill_author_tags")
		var author fillAuthor
		t.Run("Associations", func(t *testing.T) { author = checkFillAssociations(t, db) })
		t.Run("Batches", func(t *testing.T) { checkFillBatches(t, db, author.ID) })
	})
}

func checkFillAssociations(t *testing.T, db *gorm.DB) fillAuthor {
	presetBook := gormtype.NewSCRU128()
	mentor := gormtype.NewHUID()
	a := fillAuthor{
		Name:    "ursula",
		Books:   []fillBook{{Title: "one"}, {ID: presetBook, Title: "preset"}, {Title: "three"}},
		Profile: &fillProfile{Mentor: gormtype.NullHUID{V: mentor, Valid: true}},
		Tags:    []fillTag{{Name: "sf"}, {Name: "fantasy"}},
	}
	mustCreate(t, db, &a)
	if a.ID.IsZero() || a.Profile.ID.IsZero() || a.Profile.AuthorID != a.ID || a.Tags[0].ID.IsZero() || a.Tags[1].ID.IsZero() {
		t.Fatalf("keys not filled: %+v profile %+v", a, a.Profile)
	}
	if a.Profile.Mentor != (gormtype.NullHUID{V: mentor, Valid: true}) {
		t.Errorf("the mentor %s, not a key, became %+v", mentor, a.Profile.Mentor)
	}
	if a.Books[1].ID != presetBook {
		t.Errorf("preset book ID %s overwritten with %s", presetBook, a.Books[1].ID)
	}
	for _, b := range a.Books {
		if b.ID.IsZero() || b.AuthorID != a.ID {
			t.Errorf("book %+v: key not filled or wrong author", b)
		}
		checkCount(t, db, 1, "fill_books", "id = ? AND author_id = ? AND title = ?", b.ID, a.ID, b.Title)
	}
	if a.Books[0].ID.ID().Compare(a.Books[2].ID.ID()) >= 0 {
		t.Errorf("book IDs %s, %s not time-ordered", a.Books[0].ID, a.Books[2].ID)
	}
	checkCount(t, db, 1, "fill_profiles", "id = ? AND author_id = ? AND mentor = ?", a.Profile.ID, a.ID, mentor)
	for _, tag := range a.Tags {
		checkCount(t, db, 1, "fill_author_tags", "fill_author_id = ? AND fill_tag_id = ?", a.ID, tag.ID)
	}
	return a
}

// checkFillBatches: CreateInBatches of 1000 rows fills every key but the
// preset one, uniquely; within a batch the keys ascend with the slice.
func checkFillBatches(t *testing.T, db *gorm.DB, author gormtype.HUID) {
	tags := make([]fillTag, 1000)
	books := make([]fillBook, 1000)
	preset := gormtype.NewHUID()
	tags[500].ID = preset
	for i := range books {
		tags[i].Name = fmt.Sprint("t", i)
		books[i].AuthorID = author
	}
	if err := db.CreateInBatches(&tags, 300).Error; err != nil {
		t.Fatalf("CreateInBatches(tags): %v", err)
	}
	if err := db.CreateInBatches(&books, 300).Error; err != nil {
		t.Fatalf("CreateInBatches(books): %v", err)
	}
	if tags[500].ID != preset {
		t.Errorf("preset tag ID %s overwritten with %s", preset, tags[500].ID)
	}
	seen := map[gormtype.HUID]bool{}
	for i, tag := range tags {
		if tag.ID.IsZero() || seen[tag.ID] {
			t.Fatalf("tag %d ID %s zero or repeated", i, tag.ID)
		}
		seen[tag.ID] = true
		if i > 0 && i != 500 && i != 501 && tag.ID.Time().Before(tags[i-1].ID.Time()) {
			t.Fatalf("tag %d made at %v, before tag %d", i, tag.ID.Time(), i-1)
		}
		// Within a batch of 300 the filled keys ascend with the slice.
		if i%300 != 0 && i != 500 && i != 501 && tag.ID <= tags[i-1].ID {
			t.Fatalf("tag %d ID %s not above tag %d's %s in the same batch", i, tag.ID, i-1, tags[i-1].ID)
		}
	}
	for i := 1; i < len(books); i++ {
		if books[i].ID.ID().Compare(books[i-1].ID.ID()) <= 0 {
			t.Fatalf("book %d ID %s not above %s", i, books[i].ID, books[i-1].ID)
		}
	}
	checkCount(t, db, 1002, "fill_tags", "1 = 1")  // and the author's two
	checkCount(t, db, 1003, "fill_books", "1 = 1") // and the author's three
	checkCount(t, db, 3, "fill_tags", "id IN ?", []gormtype.HUID{tags[0].ID, preset, tags[999].ID})
}

type fillServerSide struct {
	ID   gormtype.HUID    `gorm:"primaryKey;default:huid_generate()"`
	Ref  gormtype.SCRU128 `gorm:"default:scru128_generate()"`
	Name string
}

func (fillServerSide) TableName() string { return "fill_server_side" }

// TestGormFillLeavesDatabaseDefaults: fields with a database default
// (sortid's SQL functions on PostgreSQL) are made by the database, and the
// structs get them back, for one row and a batch.
func TestGormFillLeavesDatabaseDefaults(t *testing.T) {
	t.Parallel()
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src := &takenFirst{}
		db := d.open(t, &gorm.Config{}, src.plugin(0))
		resetTables(t, db, &fillServerSide{})
		rows := []fillServerSide{{Name: "a"}, {Name: "b"}}
		src.next()
		mustCreate(t, db, &rows)
		one := fillServerSide{Name: "c"}
		mustCreate(t, db, &one)
		if n := src.drawn(); n != 0 {
			t.Errorf("AutoID drew %d HUIDs for fields with a database default", n)
		}
		for _, r := range append(rows, one) {
			if r.ID.IsZero() || r.Ref.IsZero() {
				t.Fatalf("row %+v did not get its database-made IDs back", r)
			}
			checkStored(t, db, r.ID, r)
			if d := time.Since(r.ID.Time()); d < 0 || d > time.Minute {
				t.Errorf("HUID %s made at %v, not just now", r.ID, r.ID.Time())
			}
		}
	}, "postgres")
}
