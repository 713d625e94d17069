package gormtype_test

// Guarantees 1, 2 and 5 for associations: every record GORM creates with a
// Create (belongs-to, has-one, has-many, many2many, through Association
// too) is filled and retried like the row itself; a Save that mixes stored
// and new associated rows in one statement is refused (NEW), a Save of
// all-new ones works.

import (
	"fmt"
	"testing"

	"gorm.io/gorm"

	"github.com/sortid/sortid/gormtype"
	"github.com/sortid/sortid/idtype"
)

// checkPurchase asserts that p and all its associations hold keys, point
// at each other, and are stored so.
func checkPurchase(t *testing.T, db *gorm.DB, p Purchase) {
	t.Helper()
	if p.ID.IsZero() {
		t.Fatalf("purchase %s has no key", p.Name)
	}
	var got Purchase
	if err := db.Preload("Buyer").Preload("Lines").Preload("Note").Preload("Labels").First(&got, "id = ?", p.ID).Error; err != nil {
		t.Fatalf("load purchase: %v", err)
	}
	if p.Buyer != nil {
		checkFresh(t, db, *p.Buyer)
		if p.BuyerID != nullHUID(p.Buyer.ID) || got.Buyer == nil || got.Buyer.ID != p.Buyer.ID {
			t.Errorf("purchase's buyer %v, stored %+v; want %s", p.BuyerID, got.Buyer, p.Buyer.ID)
		}
	}
	if len(got.Lines) != len(p.Lines) {
		t.Errorf("%d lines stored, want %d", len(got.Lines), len(p.Lines))
	}
	for _, l := range p.Lines {
		if l.ID.IsZero() || l.PurchaseID != p.ID {
			t.Errorf("line %+v: no key, or not the purchase's", l)
		}
		checkCount(t, db, 1, "lines", "id = ? AND purchase_id = ? AND item = ?", l.ID, p.ID, l.Item)
	}
	if p.Note != nil {
		if p.Note.ID.IsZero() || got.Note == nil || *got.Note != *p.Note {
			t.Errorf("note %+v, stored %+v", p.Note, got.Note)
		}
	}
	if len(got.Labels) != len(p.Labels) {
		t.Errorf("%d labels stored, want %d", len(got.Labels), len(p.Labels))
	}
	for _, l := range p.Labels {
		if l.ID.IsZero() {
			t.Errorf("label %s has no key", l.Name)
		}
		checkCount(t, db, 1, "purchase_labels", "purchase_id = ? AND label_id = ?", p.ID, l.ID)
	}
}

// TestFillAssociations: each kind of association, alone and together, and
// a preset key among new ones.
func TestFillAssociations(t *testing.T) {
	t.Parallel()
	presetLine := gormtype.NewHUID()
	cases := []struct {
		name string
		p    func() Purchase
	}{
		{"belongs-to", func() Purchase { return Purchase{Name: "p", Buyer: &Account{Email: "b@x"}} }},
		{"has-one", func() Purchase { return Purchase{Name: "p", Note: &Note{Text: "n"}} }},
		{"has-many", func() Purchase { return Purchase{Name: "p", Lines: []Line{{Item: "a"}, {Item: "b"}}} }},
		{"has-many with a preset key", func() Purchase {
			return Purchase{Name: "p", Lines: []Line{{Item: "a"}, {ID: presetLine, Item: "preset"}}}
		}},
		{"many2many", func() Purchase { return Purchase{Name: "p", Labels: []Label{{Name: "x"}, {Name: "y"}}} }},
		{"all", func() Purchase {
			return Purchase{Name: "p", Buyer: &Account{Email: "b@x"}, Note: &Note{Text: "n"},
				Lines: []Line{{Item: "a"}, {Item: "b"}}, Labels: []Label{{Name: "x"}}}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			db := openDB(t, nil, gormtype.AutoID{}, purchaseModels...)
			p := c.p()
			if err := db.Create(&p).Error; err != nil {
				t.Fatalf("Create: %v", err)
			}
			checkPurchase(t, db, p)
			for _, l := range p.Lines {
				if l.Item == "preset" && l.ID != presetLine {
					t.Errorf("preset line key %s became %s", presetLine, l.ID)
				}
			}
		})
	}
}

// TestFillNestedAssociationsAscend: the has-many rows of one statement get
// ascending keys, and a many2many of SCRU128Bytes keys is filled.
func TestFillNestedAssociationsAscend(t *testing.T) {
	t.Parallel()
	db := openSQLite(t, gormtype.AutoID{})
	authors := []Author{
		{Name: "a", Books: []Book{{Title: "a1"}, {Title: "a2"}, {Title: "a3"}}, Tags: []Tag{{Name: "x"}}},
		{Name: "b", Books: []Book{{Title: "b1"}}},
	}
	if err := db.Create(&authors).Error; err != nil {
		t.Fatalf("Create: %v", err)
	}
	a := authors[0]
	for i := 1; i < len(a.Books); i++ {
		if a.Books[i-1].ID.ID().Compare(a.Books[i].ID.ID()) >= 0 {
			t.Errorf("book keys %s, %s do not ascend", a.Books[i-1].ID, a.Books[i].ID)
		}
	}
	var got Author
	if err := db.Preload("Books").Preload("Tags").First(&got, "id = ?", a.ID).Error; err != nil {
		t.Fatal(err)
	}
	if got.Ref != a.Ref || len(got.Books) != 3 || len(got.Tags) != 1 || got.Tags[0].ID != a.Tags[0].ID || a.Tags[0].ID.IsZero() {
		t.Errorf("loaded %+v, want %+v", got, a)
	}
	checkCount(t, db, 1, "books", "author_id = ?", authors[1].ID)
}

// TestRetryAssociationCollisions: a taken key of the purchase or of any of
// its associated records is retried; the other purchase's records stay as
// they were and every new record is stored once.
func TestRetryAssociationCollisions(t *testing.T) {
	t.Parallel()
	// Draws: HUIDs for the purchase, its buyer, its lines; SCRU128s for
	// its note, its labels.
	cases := []struct {
		name  string
		table string
		arm   func(src *keySource, other Purchase)
	}{
		{"purchase", "purchases", func(src *keySource, o Purchase) { src.next(o.ID) }},
		{"belongs-to", "accounts", func(src *keySource, o Purchase) { src.next(0, o.Buyer.ID) }},
		{"has-many", "lines", func(src *keySource, o Purchase) { src.next(0, 0, o.Lines[0].ID) }},
		{"has-one", "notes", func(src *keySource, o Purchase) { src.nextSCRU128(o.Note.ID.ID()) }},
		{"many2many", "labels", func(src *keySource, o Purchase) { src.nextSCRU128(idtype.SCRU128{}, o.Labels[0].ID.ID()) }},
	}
	for _, c := range cases {
		for _, inTx := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/caller's transaction=%v", c.name, inTx), func(t *testing.T) {
				t.Parallel()
				src := &keySource{}
				db := openDB(t, nil, src.plugin(0), purchaseModels...)
				other := Purchase{Name: "other", Buyer: &Account{Email: "ob@x"}, Note: &Note{Text: "theirs"},
					Lines: []Line{{Item: "theirs"}}, Labels: []Label{{Name: "theirs"}}}
				mustCreate(t, db, &other)
				c.arm(src, other)
				p := Purchase{Name: "mine", Buyer: &Account{Email: "b@x"}, Note: &Note{Text: "mine"},
					Lines: []Line{{Item: "a"}, {Item: "b"}}, Labels: []Label{{Name: "x"}}}
				create := func(tx *gorm.DB) error { return retried(tx, func(tx *gorm.DB) error { return tx.Create(&p).Error }) }
				var err error
				if inTx {
					err = db.Transaction(create)
				} else {
					err = create(db)
				}
				if err != nil {
					t.Fatalf("Create with a taken %s key: %v", c.name, err)
				}
				src.checkDrawn(t, c.table, 1)
				checkPurchase(t, db, other)
				checkPurchase(t, db, p)
				checkCount(t, db, 2, "purchases", "1 = 1")
				checkCount(t, db, 2, "accounts", "1 = 1")
				checkCount(t, db, 3, "lines", "1 = 1")
				checkCount(t, db, 2, "notes", "1 = 1")
				checkCount(t, db, 2, "labels", "1 = 1")
				checkCount(t, db, 2, "purchase_labels", "1 = 1")
			})
		}
	}
}

// TestRetryAssociationAppend: records added through Association are
// filled, and a taken key of theirs is retried.
func TestRetryAssociationAppend(t *testing.T) {
	t.Parallel()
	src := &keySource{}
	db := openDB(t, nil, src.plugin(0), purchaseModels...)
	other := Purchase{Name: "other", Lines: []Line{{Item: "theirs"}}, Labels: []Label{{Name: "theirs"}}}
	mustCreate(t, db, &other)
	mine := Purchase{Name: "mine"}
	mustCreate(t, db, &mine)

	src.next(other.Lines[0].ID)
	line := Line{Item: "new"}
	if err := retried(db, func(tx *gorm.DB) error { return tx.Model(&Purchase{ID: mine.ID}).Association("Lines").Append(&line) }); err != nil {
		t.Fatalf("Append line: %v", err)
	}
	src.checkDrawn(t, "lines", 1)
	src.nextSCRU128(other.Labels[0].ID.ID())
	label := Label{Name: "new"}
	if err := retried(db, func(tx *gorm.DB) error { return tx.Model(&Purchase{ID: mine.ID}).Association("Labels").Append(&label) }); err != nil {
		t.Fatalf("Append label: %v", err)
	}
	src.checkDrawn(t, "labels", 1)
	mine.Lines, mine.Labels = []Line{line}, []Label{label}
	checkPurchase(t, db, mine)
	checkPurchase(t, db, other)
}

// TestSaveAllNewAssociations: Save of a loaded author whose books are all
// new fills and stores them, with or without FullSaveAssociations.
func TestSaveAllNewAssociations(t *testing.T) {
	t.Parallel()
	for _, full := range []bool{false, true} {
		t.Run(fmt.Sprint("FullSaveAssociations=", full), func(t *testing.T) {
			t.Parallel()
			db := openSQLite(t, gormtype.AutoID{})
			a := Author{Name: "a"}
			mustCreate(t, db, &a)
			var loaded Author
			if err := db.Preload("Books").First(&loaded, "id = ?", a.ID).Error; err != nil {
				t.Fatal(err)
			}
			loaded.Books = []Book{{Title: "n1"}, {Title: "n2"}}
			if err := db.Session(&gorm.Session{FullSaveAssociations: full}).Save(&loaded).Error; err != nil {
				t.Fatalf("Save: %v", err)
			}
			for _, b := range loaded.Books {
				if b.ID.IsZero() || b.AuthorID != a.ID {
					t.Errorf("book %+v: no key, or not the author's", b)
				}
				checkCount(t, db, 1, "books", "id = ? AND author_id = ? AND title = ?", b.ID, a.ID, b.Title)
			}
			checkCount(t, db, 2, "books", "1 = 1")
		})
	}
}

// TestSaveLoadedAssociationsDrawsNothing: Save of a loaded author with
// its loaded books writes them under their keys and draws no ID.
func TestSaveLoadedAssociationsDrawsNothing(t *testing.T) {
	t.Parallel()
	src := &keySource{}
	db := openDB(t, nil, src.plugin(0), &Author{}, &Book{}, &Tag{})
	a := Author{Name: "a", Books: []Book{{Title: "b1"}, {Title: "b2"}}}
	mustCreate(t, db, &a)
	var loaded Author
	if err := db.Preload("Books").First(&loaded, "id = ?", a.ID).Error; err != nil {
		t.Fatal(err)
	}
	loaded.Name = "renamed"
	src.next()
	if err := db.Save(&loaded).Error; err != nil {
		t.Fatalf("Save: %v", err)
	}
	if h, s := src.draws(); h+s != 0 {
		t.Errorf("Save of loaded rows drew %d IDs", h+s)
	}
	checkCount(t, db, 1, "authors", "id = ? AND name = 'renamed' AND ref = ?", a.ID, a.Ref)
	checkCount(t, db, 2, "books", "author_id = ?", a.ID)
}

// TestSaveMixedAssociationsSplit: GORM saves the stored and the new rows
// of an association as one upsert on the primary key, which a fresh key
// could turn into an update of another row. AutoID sends the new rows as a
// plain INSERT apart, so a taken key is retried and the other row is left
// alone, and the stored rows go through GORM's upsert unchanged.
func TestSaveMixedAssociationsSplit(t *testing.T) {
	t.Parallel()
	for _, full := range []bool{false, true} {
		t.Run(fmt.Sprint("FullSaveAssociations=", full), func(t *testing.T) {
			t.Parallel()
			src := &keySource{}
			db := openDB(t, nil, src.plugin(0), &Author{}, &Book{}, &Tag{})
			other := Author{Name: "other", Books: []Book{{Title: "theirs"}}}
			a := Author{Name: "a", Books: []Book{{Title: "old"}}}
			mustCreate(t, db, &other)
			mustCreate(t, db, &a)
			var loaded Author
			if err := db.Preload("Books").First(&loaded, "id = ?", a.ID).Error; err != nil {
				t.Fatal(err)
			}
			loaded.Books = append(loaded.Books, Book{Title: "new"})
			src.nextSCRU128(other.Books[0].ID.ID())
			err := retried(db, func(tx *gorm.DB) error {
				return tx.Session(&gorm.Session{FullSaveAssociations: full}).Save(&loaded).Error
			})
			if err != nil {
				t.Fatalf("Save of stored and new books: %v", err)
			}
			if len(src.calls()) != 1 {
				t.Errorf("%d collisions reported, want the one forced", len(src.calls()))
			}
			fresh := loaded.Books[1].ID
			if fresh.IsZero() || fresh == other.Books[0].ID {
				t.Errorf("new book holds %s; want a fresh key other than the taken %s", fresh, other.Books[0].ID)
			}
			checkCount(t, db, 1, "books", "id = ? AND author_id = ? AND title = 'theirs'", other.Books[0].ID, other.ID)
			checkCount(t, db, 1, "books", "id = ? AND author_id = ? AND title = 'old'", a.Books[0].ID, a.ID)
			checkCount(t, db, 1, "books", "id = ? AND author_id = ? AND title = 'new'", fresh, a.ID)
			checkCount(t, db, 3, "books", "1 = 1")
		})
	}
}

// TestAssociationKeysComeFromTheGenerator: AutoID's generator makes the
// keys of association records too, the row's first: it is filled before
// its hooks and the Creates of its associations.
func TestAssociationKeysComeFromTheGenerator(t *testing.T) {
	t.Parallel()
	base := gormtype.NewHUID().ID()
	var n idtype.HUID
	gen := func() (idtype.HUID, error) { n++; return base + n, nil }
	db := openDB(t, nil, gormtype.AutoID{GenerateHUID: gen}, purchaseModels...)
	p := Purchase{Name: "p", Buyer: &Account{Email: "b@x"}, Lines: []Line{{Item: "a"}, {Item: "b"}}}
	if err := db.Create(&p).Error; err != nil {
		t.Fatal(err)
	}
	want := []gormtype.HUID{gormtype.HUID(base + 1), gormtype.HUID(base + 2), gormtype.HUID(base + 3), gormtype.HUID(base + 4)}
	got := []gormtype.HUID{p.ID, p.Buyer.ID, p.Lines[0].ID, p.Lines[1].ID}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("keys of purchase, buyer, lines = %v; want %v, drawn in that order", got, want)
	}
	checkPurchase(t, db, p)
}
