package integration_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/sortid/sortid/gormtype"
	"github.com/sortid/sortid/idtype"
)

type gormAuthor struct {
	ID      gormtype.HUID `gorm:"primaryKey"`
	Name    string
	Books   []gormBook   `gorm:"foreignKey:AuthorID"`
	Profile *gormProfile `gorm:"foreignKey:AuthorID"`
	Tags    []gormTag    `gorm:"many2many:gorm_author_tags"`
}

func (gormAuthor) TableName() string { return "gorm_authors" }

type gormBook struct {
	ID       gormtype.SCRU128 `gorm:"primaryKey"`
	AuthorID gormtype.HUID    `gorm:"index"`
	Title    string
}

func (gormBook) TableName() string { return "gorm_books" }

type gormProfile struct {
	ID       gormtype.SCRU128Bytes `gorm:"primaryKey"`
	AuthorID gormtype.HUID
	Mentor   gormtype.NullHUID
}

func (gormProfile) TableName() string { return "gorm_profiles" }

type gormTag struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string
}

func (gormTag) TableName() string { return "gorm_tags" }

// gormModels are migrated by every dialect's suite.
var gormModels = []any{&gormAuthor{}, &gormBook{}, &gormProfile{}, &gormTag{}}

// wantColumnTypes maps dialect → table.column → catalog type.
var wantColumnTypes = map[string]map[string]string{
	"postgres": {
		"gorm_authors.id": "bigint", "gorm_books.id": "uuid", "gorm_books.author_id": "bigint",
		"gorm_profiles.id": "bytea", "gorm_profiles.mentor": "bigint", "gorm_tags.id": "bigint",
	},
	"mysql": {
		"gorm_authors.id": "bigint", "gorm_books.id": "binary(16)", "gorm_books.author_id": "bigint",
		"gorm_profiles.id": "binary(16)", "gorm_profiles.mentor": "bigint", "gorm_tags.id": "bigint",
	},
}

// columnTypeQuery reads table.column and its type from each dialect's catalog.
var columnTypeQuery = map[string]string{
	"postgres": `SELECT table_name || '.' || column_name, data_type FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name LIKE 'gorm\_%'`,
	"mysql": `SELECT CONCAT(table_name, '.', column_name), IF(data_type = 'binary', column_type, data_type)
		FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name LIKE 'gorm\_%'`,
}

func openGorm(t testing.TB, dialector gorm.Dialector, cfg *gorm.Config, plugins ...gorm.Plugin) *gorm.DB {
	t.Helper()
	cfg.Logger = logger.Discard
	db, err := gorm.Open(dialector, cfg)
	if err != nil {
		t.Fatalf("gorm.Open: %v", err)
	}
	for _, p := range plugins {
		if err := db.Use(p); err != nil {
			t.Fatalf("Use(%s): %v", p.Name(), err)
		}
	}
	sqlDB, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sqlDB.Close() })
	return db
}

// runGormSuite runs the dialect-independent checks on db, in order.
func runGormSuite(t *testing.T, db *gorm.DB, newDB func(gormtype.AutoID) *gorm.DB) {
	dialect := db.Dialector.Name()
	if err := db.AutoMigrate(gormModels...); err != nil {
		t.Fatalf("AutoMigrate: %v", err)
	}
	t.Run("ColumnTypes", func(t *testing.T) { checkColumnTypes(t, db, dialect) })
	t.Run("MigrateAgain", func(t *testing.T) {
		if err := db.AutoMigrate(gormModels...); err != nil {
			t.Fatalf("second AutoMigrate: %v", err)
		}
		checkColumnTypes(t, db, dialect)
	})
	var author gormAuthor
	t.Run("Associations", func(t *testing.T) { author = checkAssociations(t, db) })
	t.Run("Batches", func(t *testing.T) { checkBatches(t, db, author.ID) })
	t.Run("Between", func(t *testing.T) { checkBetween(t, db) })
	t.Run("Retry", func(t *testing.T) { checkRetry(t, newDB) })
}

func checkColumnTypes(t *testing.T, db *gorm.DB, dialect string) {
	rows, err := db.Raw(columnTypeQuery[dialect]).Rows()
	if err != nil {
		t.Fatalf("read catalog: %v", err)
	}
	defer rows.Close()
	got := map[string]string{}
	for rows.Next() {
		var col, typ string
		if err := rows.Scan(&col, &typ); err != nil {
			t.Fatal(err)
		}
		got[col] = strings.ToLower(typ)
	}
	for col, want := range wantColumnTypes[dialect] {
		if got[col] != want {
			t.Errorf("%s: column %s is %q, want %q", dialect, col, got[col], want)
		}
	}
}

func checkAssociations(t *testing.T, db *gorm.DB) gormAuthor {
	presetBook := gormtype.NewSCRU128()
	mentor := gormtype.NewHUID()
	a := gormAuthor{
		Name:    "ursula",
		Books:   []gormBook{{Title: "one"}, {ID: presetBook, Title: "preset"}, {Title: "three"}},
		Profile: &gormProfile{Mentor: gormtype.NullHUID{HUID: mentor, Valid: true}},
		Tags:    []gormTag{{Name: "sf"}, {Name: "fantasy"}},
	}
	if err := db.Create(&a).Error; err != nil {
		t.Fatalf("Create with associations: %v", err)
	}
	if a.ID.IsZero() || a.Profile.ID.IsZero() || a.Profile.AuthorID != a.ID || a.Tags[0].ID.IsZero() || a.Tags[1].ID.IsZero() {
		t.Fatalf("keys not filled: %+v profile %+v", a, a.Profile)
	}
	if a.Books[1].ID != presetBook {
		t.Errorf("preset book ID %s overwritten with %s", presetBook, a.Books[1].ID)
	}
	for _, b := range a.Books {
		if b.ID.IsZero() || b.AuthorID != a.ID {
			t.Errorf("book %+v: key not filled or wrong author", b)
		}
	}
	if a.Books[0].ID.ID().Compare(a.Books[2].ID.ID()) >= 0 {
		t.Errorf("book IDs %s, %s not time-ordered", a.Books[0].ID, a.Books[2].ID)
	}
	var got gormAuthor
	if err := db.Preload("Books", func(tx *gorm.DB) *gorm.DB { return tx.Order("title") }).
		Preload("Profile").Preload("Tags").Where("id = ?", a.ID).First(&got).Error; err != nil {
		t.Fatalf("Where + Preload: %v", err)
	}
	if got.ID != a.ID || len(got.Books) != 3 || got.Profile == nil || got.Profile.ID != a.Profile.ID ||
		got.Profile.Mentor != a.Profile.Mentor || len(got.Tags) != 2 {
		t.Fatalf("loaded %+v (profile %+v), want %+v", got, got.Profile, a)
	}
	if got.Books[1].ID != presetBook || got.Books[1].Title != "preset" {
		t.Errorf("loaded preset book %+v", got.Books[1])
	}
	var books []gormBook
	ids := []gormtype.SCRU128{a.Books[0].ID, presetBook}
	if err := db.Find(&books, ids).Error; err != nil || len(books) != 2 || books[0].ID == books[1].ID ||
		(books[0].ID != ids[0] && books[0].ID != ids[1]) || (books[1].ID != ids[0] && books[1].ID != ids[1]) {
		t.Errorf("Find(&books, ids) = %+v, %v", books, err)
	}
	var profile gormProfile
	if err := db.First(&profile, "id = ?", a.Profile.ID).Error; err != nil || profile.AuthorID != a.ID {
		t.Errorf("First profile by bytes ID = %+v, %v", profile, err)
	}
	var tags []gormTag
	if err := db.Find(&tags, []gormtype.HUID{a.Tags[0].ID, a.Tags[1].ID}).Error; err != nil || len(tags) != 2 {
		t.Errorf("Find(&tags, ids) = %+v, %v", tags, err)
	}
	checkJSON(t, got)
	return a
}

// checkJSON checks that every HUID of a loaded model is a JSON string.
func checkJSON(t *testing.T, a gormAuthor) {
	js, err := json.Marshal(a)
	if err != nil {
		t.Fatalf("json.Marshal: %v", err)
	}
	var m struct {
		ID    any
		Books []struct{ ID, AuthorID any }
		Tags  []struct{ ID any }
	}
	if err := json.Unmarshal(js, &m); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"author": a.ID.String(), "book author": a.ID.String(), "tag": a.Tags[0].ID.String(), "book": a.Books[0].ID.String()}
	got := map[string]any{"author": m.ID, "book author": m.Books[0].AuthorID, "tag": m.Tags[0].ID, "book": m.Books[0].ID}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("JSON %s ID = %#v (%T), want the string %q; JSON: %s", k, got[k], got[k], w, js)
		}
	}
}

func checkBatches(t *testing.T, db *gorm.DB, author gormtype.HUID) {
	tags := make([]gormTag, 1000)
	books := make([]gormBook, 1000)
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
	var n int64
	if err := db.Model(&gormTag{}).Where("id IN ?", []gormtype.HUID{tags[0].ID, preset, tags[999].ID}).Count(&n).Error; err != nil || n != 3 {
		t.Errorf("count of 3 tags by ID = %d, %v", n, err)
	}
	var back gormBook
	if err := db.Where(&gormBook{ID: books[999].ID}).First(&back).Error; err != nil || back.ID != books[999].ID {
		t.Errorf("First by struct condition = %+v, %v", back, err)
	}
}

func checkBetween(t *testing.T, db *gorm.DB) {
	before := gormTag{ID: gormtype.HUID(mustHUID(time.Now().Add(-time.Minute))), Name: "before"}
	if err := db.Create(&before).Error; err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Millisecond)
	from := time.Now().Truncate(time.Millisecond)
	in := make([]gormTag, 20)
	if err := db.Create(&in).Error; err != nil {
		t.Fatal(err)
	}
	to := time.Now().Truncate(time.Millisecond).Add(time.Millisecond)
	time.Sleep(2 * time.Millisecond)
	if err := db.Create(&gormTag{Name: "after"}).Error; err != nil {
		t.Fatal(err)
	}
	var got []gormTag
	if err := db.Scopes(gormtype.Between("id", from, to)).Find(&got).Error; err != nil {
		t.Fatalf("Between: %v", err)
	}
	want := map[gormtype.HUID]bool{}
	for _, tag := range in {
		want[tag.ID] = true
	}
	if len(got) != len(in) {
		t.Errorf("Between returned %d rows, want %d", len(got), len(in))
	}
	for _, tag := range got {
		if !want[tag.ID] {
			t.Errorf("Between returned %+v, made outside the window", tag)
		}
	}
	var books []gormBook
	if err := db.Scopes(gormtype.Between("gorm_books.id", from.Add(-time.Hour), to)).Find(&books).Error; err != nil || len(books) == 0 {
		t.Errorf("Between on SCRU128 = %d rows, %v", len(books), err)
	}
}

func mustHUID(at time.Time) idtype.HUID {
	h, err := idtype.HUIDFromParts(at, 1)
	if err != nil {
		panic(err)
	}
	return h
}

// checkRetry makes the first HUID drawn collide with an existing row.
func checkRetry(t *testing.T, newDB func(gormtype.AutoID) *gorm.DB) {
	taken := gormtype.NewHUID()
	draws := 0
	gen := func() (idtype.HUID, error) {
		draws++
		if draws == 1 {
			return taken.ID(), nil
		}
		return idtype.GenerateHUID()
	}
	db := newDB(gormtype.AutoID{GenerateHUID: gen})
	if err := db.Create(&gormTag{ID: taken, Name: "taken"}).Error; err != nil {
		t.Fatal(err)
	}
	tag := gormTag{Name: "collides once"}
	if err := db.Create(&tag).Error; err != nil {
		t.Fatalf("Create after a collision: %v", err)
	}
	if tag.ID == taken || draws != 2 {
		t.Errorf("ID %s after %d draws; want a fresh ID after 2", tag.ID, draws)
	}
	err := db.Transaction(func(tx *gorm.DB) error {
		draws = 0
		if err := tx.Create(&gormTag{Name: "in tx"}).Error; err != nil {
			return err
		}
		return tx.Create(&gormTag{Name: "still usable"}).Error
	})
	if err != nil || draws != 3 {
		t.Errorf("collision inside a transaction: %v after %d draws", err, draws)
	}
}
