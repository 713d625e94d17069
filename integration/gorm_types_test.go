package integration_test

// The types suite: gormtype's ID types get the column type of each
// dialect from AutoMigrate (again on a second run), travel to the database
// and back unchanged in every kind of association and lookup, as JSON
// strings for HUIDs, and Between finds the rows made in a time window
// through the primary-key index.

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/sortid/sortid/gormtype"
	"github.com/sortid/sortid/idtype"
)

type typesAuthor struct {
	ID      gormtype.HUID `gorm:"primaryKey"`
	Name    string        `gorm:"size:50"`
	Books   []typesBook   `gorm:"foreignKey:AuthorID"`
	Profile *typesProfile `gorm:"foreignKey:AuthorID"`
	Tags    []typesTag    `gorm:"many2many:types_author_tags"`
}

func (typesAuthor) TableName() string { return "types_authors" }

type typesBook struct {
	ID       gormtype.SCRU128 `gorm:"primaryKey"`
	AuthorID gormtype.HUID    `gorm:"index"`
	Title    string           `gorm:"size:50"`
}

func (typesBook) TableName() string { return "types_books" }

type typesProfile struct {
	ID       gormtype.SCRU128Bytes `gorm:"primaryKey"`
	AuthorID gormtype.HUID
	Mentor   gormtype.NullHUID
}

func (typesProfile) TableName() string { return "types_profiles" }

type typesTag struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string        `gorm:"size:50"`
}

func (typesTag) TableName() string { return "types_tags" }

var typesModels = []any{&typesAuthor{}, &typesBook{}, &typesProfile{}, &typesTag{}}

// wantColumnTypes maps dialect → table.column → catalog type (gormtype's
// doc: bigint, uuid, bytea on PostgreSQL; bigint, binary(16) on MySQL;
// integer, blob on SQLite).
var wantColumnTypes = map[string]map[string]string{
	"postgres": {
		"types_authors.id": "bigint", "types_books.id": "uuid", "types_books.author_id": "bigint",
		"types_profiles.id": "bytea", "types_profiles.mentor": "bigint", "types_tags.id": "bigint",
	},
	"mysql": {
		"types_authors.id": "bigint", "types_books.id": "binary(16)", "types_books.author_id": "bigint",
		"types_profiles.id": "binary(16)", "types_profiles.mentor": "bigint", "types_tags.id": "bigint",
	},
	"sqlite": {
		"types_authors.id": "integer", "types_books.id": "blob", "types_books.author_id": "integer",
		"types_profiles.id": "blob", "types_profiles.mentor": "integer", "types_tags.id": "integer",
	},
}

// columnTypeQuery reads table.column and its type from each dialect's catalog.
var columnTypeQuery = map[string]string{
	"postgres": `SELECT table_name || '.' || column_name, data_type FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name LIKE 'types\_%'`,
	"mysql": `SELECT CONCAT(table_name, '.', column_name), IF(data_type = 'binary', column_type, data_type)
		FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name LIKE 'types\_%'`,
	"sqlite": `SELECT m.name || '.' || p.name, p.type FROM sqlite_master m, pragma_table_info(m.name) p
		WHERE m.type = 'table' AND m.name LIKE 'types\_%' ESCAPE '\'`,
}

// TestGormTypes: the column types, a second AutoMigrate, the round trip of
// every ID type and Between, on every dialect.
func TestGormTypes(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		resetTables(t, db, append(typesModels, "types_author_tags")...)
		t.Run("ColumnTypes", func(t *testing.T) { checkColumnTypes(t, db, d.name) })
		t.Run("MigrateAgain", func(t *testing.T) {
			if err := db.AutoMigrate(typesModels...); err != nil {
				t.Fatalf("second AutoMigrate: %v", err)
			}
			checkColumnTypes(t, db, d.name)
		})
		t.Run("RoundTrip", func(t *testing.T) { checkRoundTrip(t, db) })
		t.Run("Between", func(t *testing.T) { checkBetween(t, db) })
	})
}

func checkColumnTypes(t *testing.T, db *gorm.DB, dialect string) {
	t.Helper()
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
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for col, want := range wantColumnTypes[dialect] {
		if got[col] != want {
			t.Errorf("%s: column %s is %q, want %q", dialect, col, got[col], want)
		}
	}
}

// checkRoundTrip stores an author with every kind of association and
// loads it back by each ID type: Preload, Find by a slice of keys, First
// by a bytes key, Where with a struct; the HUIDs marshal as JSON strings.
func checkRoundTrip(t *testing.T, db *gorm.DB) {
	presetBook := gormtype.NewSCRU128()
	a := typesAuthor{
		Name:    "ursula",
		Books:   []typesBook{{Title: "one"}, {ID: presetBook, Title: "preset"}, {Title: "three"}},
		Profile: &typesProfile{Mentor: gormtype.NullHUID{V: gormtype.NewHUID(), Valid: true}},
		Tags:    []typesTag{{Name: "sf"}, {Name: "fantasy"}},
	}
	mustCreate(t, db, &a)
	var got typesAuthor
	if err := db.Preload("Books", func(tx *gorm.DB) *gorm.DB { return tx.Order("title") }).
		Preload("Profile").Preload("Tags", func(tx *gorm.DB) *gorm.DB { return tx.Order("name") }).
		Where("id = ?", a.ID).First(&got).Error; err != nil {
		t.Fatalf("Where + Preload: %v", err)
	}
	if got.ID != a.ID || got.Name != a.Name || len(got.Books) != 3 || got.Profile == nil || *got.Profile != *a.Profile || len(got.Tags) != 2 {
		t.Fatalf("loaded %+v (profile %+v), want %+v (profile %+v)", got, got.Profile, a, a.Profile)
	}
	byTitle := map[string]typesBook{}
	for _, b := range a.Books {
		byTitle[b.Title] = b
	}
	for _, b := range got.Books {
		if b != byTitle[b.Title] {
			t.Errorf("loaded book %+v, stored %+v", b, byTitle[b.Title])
		}
	}
	if got.Tags[0] != a.Tags[1] || got.Tags[1] != a.Tags[0] {
		t.Errorf("loaded tags %+v, stored %+v", got.Tags, a.Tags)
	}

	var books []typesBook
	ids := []gormtype.SCRU128{a.Books[0].ID, presetBook}
	if err := db.Order("title").Find(&books, ids).Error; err != nil || len(books) != 2 || books[0] != a.Books[0] || books[1] != a.Books[1] {
		t.Errorf("Find(&books, SCRU128 keys) = %+v, %v; want %+v", books, err, a.Books[:2])
	}
	var profile typesProfile
	if err := db.First(&profile, "id = ?", a.Profile.ID).Error; err != nil || profile != *a.Profile {
		t.Errorf("First profile by its SCRU128Bytes key = %+v, %v; want %+v", profile, err, *a.Profile)
	}
	var tags []typesTag
	if err := db.Find(&tags, []gormtype.HUID{a.Tags[0].ID, a.Tags[1].ID}).Error; err != nil || len(tags) != 2 {
		t.Errorf("Find(&tags, HUID keys) = %+v, %v", tags, err)
	}
	var back typesBook
	if err := db.Where(&typesBook{ID: a.Books[2].ID}).First(&back).Error; err != nil || back != a.Books[2] {
		t.Errorf("First by a struct condition = %+v, %v; want %+v", back, err, a.Books[2])
	}
	var n int64
	if err := db.Model(&typesTag{}).Where("id IN ?", []gormtype.HUID{a.Tags[0].ID, a.Tags[1].ID}).Count(&n).Error; err != nil || n != 2 {
		t.Errorf("count of 2 tags by key = %d, %v", n, err)
	}
	checkJSON(t, got)
}

// checkJSON checks that every HUID of a loaded model is a JSON string, and
// a SCRU128 its 26-character form.
func checkJSON(t *testing.T, a typesAuthor) {
	t.Helper()
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

// checkBetween: Between on a HUID key finds the rows made in the window
// and no other; on a SCRU128 key it finds the books made in it, on a
// SCRU128Bytes key the profiles.
func checkBetween(t *testing.T, db *gorm.DB) {
	mustCreate(t, db, &typesTag{ID: mustHUID(time.Now().Add(-time.Minute)), Name: "before"})
	time.Sleep(2 * time.Millisecond)
	from := time.Now().Truncate(time.Millisecond)
	in := make([]typesTag, 20)
	mustCreate(t, db, &in)
	to := time.Now().Truncate(time.Millisecond).Add(time.Millisecond)
	time.Sleep(2 * time.Millisecond)
	mustCreate(t, db, &typesTag{Name: "after"})

	var got []typesTag
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
	var books []typesBook
	if err := db.Scopes(gormtype.Between("types_books.id", from.Add(-time.Hour), to)).Find(&books).Error; err != nil || len(books) != 3 {
		t.Errorf("Between on a SCRU128 key = %d rows, %v; want the 3 books", len(books), err)
	}
	var all, found, none int64
	err := db.Model(&typesProfile{}).Count(&all).Error
	if err == nil {
		err = db.Model(&typesProfile{}).Scopes(gormtype.Between("id", from.Add(-time.Hour), to)).Count(&found).Error
	}
	if err == nil {
		err = db.Table("types_profiles").Scopes(gormtype.BetweenSCRU128Bytes("id", to, to.Add(time.Hour))).Count(&none).Error
	}
	if err != nil || all == 0 || found != all || none != 0 {
		t.Errorf("Between on a SCRU128Bytes key: %d of %d rows in the last hour, %d after it, %v; want all and none", found, all, none, err)
	}
	checkBetweenFromEpoch(t, db, to)
}

// checkBetweenFromEpoch: a window from the first millisecond of each ID
// type (whose lowest ID is the zero one, never bound) finds every row.
func checkBetweenFromEpoch(t *testing.T, db *gorm.DB, to time.Time) {
	scru128Epoch := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		model any
		from  time.Time
	}{
		{&typesTag{}, time.UnixMilli(idtype.HUIDEpochMillis)},
		{&typesBook{}, scru128Epoch},
		{&typesProfile{}, scru128Epoch},
	} {
		var all, found int64
		err := db.Model(c.model).Count(&all).Error
		if err == nil {
			err = db.Model(c.model).Scopes(gormtype.Between("id", c.from, to.Add(time.Hour))).Count(&found).Error
		}
		if err != nil || found != all || all == 0 {
			t.Errorf("Between(id) on %T from %s = %d rows, %v; want all %d", c.model, c.from, found, err, all)
		}
	}
}

// TestGormBetweenUsesPrimaryKeyIndex: on PostgreSQL the plan of Between on
// the key is an index scan of the primary key.
func TestGormBetweenUsesPrimaryKeyIndex(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		resetTables(t, db, &typesTag{})
		from := time.Now().Add(-time.Minute)
		stmt := db.Session(&gorm.Session{DryRun: true}).Scopes(gormtype.Between("id", from, time.Now())).
			Find(&[]typesTag{}).Statement
		var plan []string
		err := db.Transaction(func(tx *gorm.DB) error {
			if err := tx.Exec("SET LOCAL enable_seqscan = off").Error; err != nil {
				return err
			}
			return tx.Raw("EXPLAIN "+stmt.SQL.String(), stmt.Vars...).Scan(&plan).Error
		})
		if err != nil {
			t.Fatalf("EXPLAIN: %v", err)
		}
		if joined := strings.Join(plan, "\n"); !strings.Contains(joined, "Index") || !strings.Contains(joined, "types_tags_pkey") {
			t.Errorf("plan of %s does not use types_tags_pkey:\n%s", stmt.SQL.String(), joined)
		}
	}, "postgres")
}

type typesTraced struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string        `gorm:"size:50"`
}

func (typesTraced) TableName() string { return "types_traced" }

// TestGormBetweenNeedsModel: Between picks its bounds by the model's
// field; a Find into maps has none, which is ErrUnknownColumn naming the
// ways out (db.Model, BetweenHUID), and BetweenHUID finds the rows.
func TestGormBetweenNeedsModel(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		resetTables(t, db, &typesTraced{})
		mustCreate(t, db, &typesTraced{ID: mustHUID(time.Now().Add(-time.Hour)), Name: "before"})
		from := time.Now().Add(-time.Minute)
		mustCreate(t, db, &[]typesTraced{{Name: "a"}, {Name: "b"}})
		to := time.Now().Add(time.Minute)

		var rows []map[string]any
		err := db.Table("types_traced").Scopes(gormtype.Between("id", from, to)).Find(&rows).Error
		checkRefused(t, err, gormtype.ErrUnknownColumn, `"id"`, "db.Model", "BetweenHUID")
		rows = nil
		if err := db.Table("types_traced").Scopes(gormtype.BetweenHUID("id", from, to)).Order("name").Find(&rows).Error; err != nil {
			t.Fatalf("BetweenHUID: %v", err)
		}
		var names []string
		for _, r := range rows {
			names = append(names, fmt.Sprint(r["name"]))
		}
		if strings.Join(names, ",") != "a,b" {
			t.Errorf("BetweenHUID found %v, want [a b]", names)
		}
	})
}
