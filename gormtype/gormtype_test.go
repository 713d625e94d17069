package gormtype_test

import (
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/glebarez/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/sortid/sortid/gormtype"
	"github.com/sortid/sortid/idtype"
)

type Author struct {
	ID    gormtype.HUID `gorm:"primaryKey"`
	Name  string
	Books []Book
	Tags  []Tag            `gorm:"many2many:author_tags"`
	Ref   gormtype.SCRU128 `sortid:"auto"`
}

type Book struct {
	ID       gormtype.SCRU128 `gorm:"primaryKey"`
	AuthorID gormtype.HUID
	Title    string
	Parent   gormtype.NullSCRU128Bytes
}

type Tag struct {
	ID   gormtype.SCRU128Bytes `gorm:"primaryKey"`
	Name string
}

func openSQLite(t *testing.T, plugin gormtype.AutoID) *gorm.DB {
	t.Helper()
	db, err := gorm.Open(sqlite.Open("file:"+strings.ReplaceAll(t.Name(), "/", "_")+"?mode=memory&cache=shared"),
		&gorm.Config{Logger: logger.Discard})
	if err != nil {
		t.Fatalf("open sqlite: %v", err)
	}
	if err := db.Use(plugin); err != nil {
		t.Fatalf("Use(AutoID): %v", err)
	}
	if err := db.AutoMigrate(&Author{}, &Book{}, &Tag{}); err != nil {
		t.Fatalf("AutoMigrate: %v", err)
	}
	sqlDB, _ := db.DB()
	t.Cleanup(func() { _ = sqlDB.Close() })
	return db
}

func TestJSONAndText(t *testing.T) {
	t.Parallel()
	h := gormtype.HUID(idtype.MustParseHUID("9223372036854775807"))
	s := gormtype.SCRU128(idtype.MustParseSCRU128("00QBTG0FERFTCCNFISUBO489DI"))
	cases := []struct {
		name string
		v    any
		want string
	}{
		{"HUID", h, `"9223372036854775807"`},
		{"NullHUID", gormtype.NullHUID{HUID: h, Valid: true}, `"9223372036854775807"`},
		{"NullHUID null", gormtype.NullHUID{}, `null`},
		{"SCRU128", s, `"00QBTG0FERFTCCNFISUBO489DI"`},
		{"SCRU128Bytes", gormtype.SCRU128Bytes(s), `"00QBTG0FERFTCCNFISUBO489DI"`},
		{"NullSCRU128", gormtype.NullSCRU128{SCRU128: s, Valid: true}, `"00QBTG0FERFTCCNFISUBO489DI"`},
		{"NullSCRU128Bytes null", gormtype.NullSCRU128Bytes{}, `null`},
		{"model", Book{ID: s, AuthorID: h}, `{"ID":"00QBTG0FERFTCCNFISUBO489DI","AuthorID":"9223372036854775807","Title":"","Parent":null}`},
	}
	for _, c := range cases {
		got, err := json.Marshal(c.v)
		if err != nil || string(got) != c.want {
			t.Errorf("%s: json.Marshal = %s, %v; want %s", c.name, got, err, c.want)
		}
	}
	var back Book
	if err := json.Unmarshal([]byte(cases[len(cases)-1].want), &back); err != nil || back.ID != s || back.AuthorID != h {
		t.Errorf("json.Unmarshal(model) = %+v, %v", back, err)
	}
	var bad gormtype.HUID
	if err := json.Unmarshal([]byte(`"-1"`), &bad); !errors.Is(err, idtype.ErrInvalidHUID) {
		t.Errorf("Unmarshal(-1) error = %v, want ErrInvalidHUID", err)
	}
	if txt, err := h.MarshalText(); err != nil || string(txt) != "9223372036854775807" {
		t.Errorf("HUID.MarshalText = %s, %v", txt, err)
	}
}

func TestColumnTypesSQLite(t *testing.T) {
	t.Parallel()
	db := openSQLite(t, gormtype.AutoID{})
	want := map[string]map[string]string{
		"authors": {"id": "integer", "ref": "blob"},
		"books":   {"id": "blob", "author_id": "integer", "parent": "blob"},
		"tags":    {"id": "blob"},
	}
	for table, cols := range want {
		types, err := db.Migrator().ColumnTypes(table)
		if err != nil {
			t.Fatalf("ColumnTypes(%s): %v", table, err)
		}
		for _, ct := range types {
			if w, ok := cols[ct.Name()]; ok && !strings.EqualFold(ct.DatabaseTypeName(), w) {
				t.Errorf("%s.%s is %s, want %s", table, ct.Name(), ct.DatabaseTypeName(), w)
			}
		}
	}
}

func TestAutoFillSQLite(t *testing.T) {
	t.Parallel()
	db := openSQLite(t, gormtype.AutoID{})
	preset := gormtype.NewHUID()
	authors := []Author{
		{Name: "a", Books: []Book{{Title: "a1"}, {Title: "a2"}}, Tags: []Tag{{Name: "x"}}},
		{ID: preset, Name: "preset"},
	}
	if err := db.Create(&authors).Error; err != nil {
		t.Fatalf("Create: %v", err)
	}
	a := authors[0]
	if a.ID.IsZero() || a.Ref.IsZero() || authors[1].ID != preset || authors[1].Ref.IsZero() {
		t.Fatalf("IDs not filled or preset overwritten: %+v", authors)
	}
	if a.Books[0].ID.IsZero() || a.Books[0].AuthorID != a.ID || a.Tags[0].ID.IsZero() {
		t.Fatalf("association IDs not filled: %+v", a)
	}
	if a.Books[0].ID.ID().Compare(a.Books[1].ID.ID()) >= 0 {
		t.Errorf("book IDs %s, %s are not increasing", a.Books[0].ID, a.Books[1].ID)
	}
	var got Author
	if err := db.Preload("Books").Preload("Tags").First(&got, "id = ?", a.ID).Error; err != nil {
		t.Fatalf("First with Preload: %v", err)
	}
	if got.ID != a.ID || got.Ref != a.Ref || len(got.Books) != 2 || len(got.Tags) != 1 || got.Tags[0].ID != a.Tags[0].ID {
		t.Errorf("loaded %+v, want %+v", got, a)
	}
	var books []Book
	if err := db.Find(&books, []gormtype.SCRU128{a.Books[1].ID}).Error; err != nil || len(books) != 1 || books[0].ID != a.Books[1].ID {
		t.Errorf("Find by IDs = %+v, %v", books, err)
	}
	var one Book
	if err := db.First(&one, "id = ?", a.Books[0].ID).Error; err != nil || one.ID != a.Books[0].ID {
		t.Errorf("First by one SCRU128 = %+v, %v", one, err)
	}
}

// manualKey's key is tagged sortid:"-": AutoID leaves it as the caller
// set it, zero included.
type manualKey struct {
	ID   gormtype.HUID `gorm:"primaryKey" sortid:"-"`
	Name string
}

func TestOptOutTagLeavesKeyAlone(t *testing.T) {
	t.Parallel()
	db := openSQLite(t, gormtype.AutoID{})
	if err := db.AutoMigrate(&manualKey{}); err != nil {
		t.Fatal(err)
	}
	rows := []manualKey{{Name: "zero"}, {ID: 7, Name: "seven"}}
	if err := db.Create(&rows).Error; err != nil {
		t.Fatalf("Create: %v", err)
	}
	var got []manualKey
	if err := db.Order("id").Find(&got).Error; err != nil || len(got) != 2 || got[0].ID != 0 || got[1].ID != 7 {
		t.Errorf("stored %+v, %v; want the keys 0 and 7 as set", got, err)
	}
}

func TestSaveAndBatchesSQLite(t *testing.T) {
	t.Parallel()
	db := openSQLite(t, gormtype.AutoID{})
	a := Author{Name: "saved"}
	if err := db.Save(&a).Error; err != nil || a.ID.IsZero() {
		t.Fatalf("Save new row: ID %v, err %v", a.ID, err)
	}
	books := make([]Book, 250)
	for i := range books {
		books[i].AuthorID = a.ID
	}
	if err := db.CreateInBatches(&books, 100).Error; err != nil {
		t.Fatalf("CreateInBatches: %v", err)
	}
	for i := 1; i < len(books); i++ {
		if books[i-1].ID.ID().Compare(books[i].ID.ID()) >= 0 {
			t.Fatalf("book %d ID %s not above %s", i, books[i].ID, books[i-1].ID)
		}
	}
	var n int64
	db.Model(&Book{}).Where("author_id = ?", a.ID).Count(&n)
	if n != int64(len(books)) {
		t.Errorf("count = %d, want %d", n, len(books))
	}
}

func TestHUIDKeysAscendWithTheSlice(t *testing.T) {
	t.Parallel()
	// A generator whose HUIDs descend: AutoID must still hand them out in
	// ascending order of the rows, and leave preset keys where they are.
	next := gormtype.NewHUID().ID() + 1_000_000
	descending := func() (idtype.HUID, error) { next -= 7; return next, nil }
	db := openSQLite(t, gormtype.AutoID{GenerateHUID: descending})
	preset := gormtype.NewHUID()
	authors := make([]Author, 300)
	authors[150].ID = preset
	if err := db.CreateInBatches(&authors, 100).Error; err != nil {
		t.Fatalf("CreateInBatches: %v", err)
	}
	if authors[150].ID != preset {
		t.Fatalf("preset key %v became %v", preset, authors[150].ID)
	}
	for _, batch := range [][]Author{authors[0:100], authors[100:150], authors[151:200], authors[200:300]} {
		for i := 1; i < len(batch); i++ {
			if batch[i-1].ID >= batch[i].ID {
				t.Fatalf("keys of one batch do not ascend with the rows: %v then %v", batch[i-1].ID, batch[i].ID)
			}
		}
	}
	var stored []gormtype.HUID
	if err := db.Model(&Author{}).Order("id").Pluck("id", &stored).Error; err != nil || len(stored) != len(authors) {
		t.Fatalf("stored keys: %d, %v; want %d", len(stored), err, len(authors))
	}
}

func TestRetryOnCollisionSQLite(t *testing.T) {
	t.Parallel()
	taken := gormtype.NewHUID()
	cases := []struct {
		name     string
		retries  int
		draws    []idtype.HUID
		wantErr  bool
		wantUsed int
	}{
		{"retried", 0, []idtype.HUID{taken.ID(), taken.ID(), 0}, false, 3},
		{"bounded", 1, []idtype.HUID{taken.ID(), taken.ID(), taken.ID()}, true, 2},
		{"disabled", -1, []idtype.HUID{taken.ID(), 0}, true, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			used := 0
			gen := func() (idtype.HUID, error) {
				h := c.draws[used]
				used++
				if h == 0 {
					return idtype.GenerateHUID()
				}
				return h, nil
			}
			db := openSQLite(t, gormtype.AutoID{Retries: c.retries, GenerateHUID: gen})
			if err := db.Create(&Author{ID: taken, Name: "first"}).Error; err != nil {
				t.Fatalf("Create first: %v", err)
			}
			a := Author{Name: "second"}
			err := db.Create(&a).Error
			if (err != nil) != c.wantErr || used != c.wantUsed {
				t.Errorf("Create: err %v, %d draws; want error %v, %d draws", err, used, c.wantErr, c.wantUsed)
			}
			if !c.wantErr && (a.ID == taken || a.ID.IsZero()) {
				t.Errorf("ID after retry = %v", a.ID)
			}
		})
	}
}

func TestNoRetryForOtherUniqueViolation(t *testing.T) {
	t.Parallel()
	type Account struct {
		ID    gormtype.HUID `gorm:"primaryKey"`
		Email string        `gorm:"uniqueIndex"`
	}
	draws := 0
	gen := func() (idtype.HUID, error) { draws++; return idtype.GenerateHUID() }
	db := openSQLite(t, gormtype.AutoID{GenerateHUID: gen})
	if err := db.AutoMigrate(&Account{}); err != nil {
		t.Fatal(err)
	}
	if err := db.Create(&Account{Email: "a@x"}).Error; err != nil {
		t.Fatal(err)
	}
	err := db.Create(&Account{Email: "a@x"}).Error
	if err == nil || draws != 2 {
		t.Errorf("duplicate email: err %v after %d draws; want an error after 2 draws", err, draws)
	}
}

func TestBetweenSQLite(t *testing.T) {
	t.Parallel()
	db := openSQLite(t, gormtype.AutoID{})
	old := Author{ID: gormtype.HUID(must(idtype.HUIDFromParts(time.Now().Add(-time.Hour), 7))), Name: "old"}
	if err := db.Create(&old).Error; err != nil {
		t.Fatal(err)
	}
	from := time.Now()
	fresh := []Author{{Name: "n1"}, {Name: "n2"}}
	if err := db.Create(&fresh).Error; err != nil {
		t.Fatal(err)
	}
	to := time.Now().Add(time.Millisecond)
	var got []Author
	if err := db.Scopes(gormtype.Between("id", from.Truncate(time.Millisecond), to)).Order("id").Find(&got).Error; err != nil {
		t.Fatalf("Between: %v", err)
	}
	if len(got) != 2 || !sameHUIDs(got, fresh) {
		t.Errorf("Between = %+v, want the 2 new rows", got)
	}
	err := db.Scopes(gormtype.Between("name", from, to)).Find(&got).Error
	if !errors.Is(err, gormtype.ErrUnknownColumn) {
		t.Errorf("Between on a non-ID column: %v, want ErrUnknownColumn", err)
	}
	err = db.Scopes(gormtype.Between("id", to, from)).Find(&got).Error
	if !errors.Is(err, idtype.ErrInvalidRange) {
		t.Errorf("Between with to < from: %v, want ErrInvalidRange", err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// sameHUIDs reports whether a and b hold the same IDs in any order: HUIDs
// of one millisecond are not ordered among themselves.
func sameHUIDs(a, b []Author) bool {
	ids := map[gormtype.HUID]int{}
	for _, x := range a {
		ids[x.ID]++
	}
	for _, x := range b {
		ids[x.ID]--
	}
	for _, n := range ids {
		if n != 0 {
			return false
		}
	}
	return len(a) == len(b)
}

// traced has ID fields under Go names that differ from their columns, one
// of them a pointer.
type traced struct {
	ID      gormtype.HUID     `gorm:"primaryKey"`
	TraceID gormtype.SCRU128  `sortid:"auto"`
	Parent  *gormtype.SCRU128 `sortid:"auto"`
	Other   *gormtype.HUID
}

func TestPointerAndGoNamedFields(t *testing.T) {
	t.Parallel()
	db := openSQLite(t, gormtype.AutoID{})
	if err := db.AutoMigrate(&traced{}); err != nil {
		t.Fatal(err)
	}
	from := time.Now().Truncate(time.Millisecond)
	preset := gormtype.NewSCRU128()
	rows := []traced{{}, {Parent: &preset}}
	if err := db.Create(&rows).Error; err != nil {
		t.Fatalf("Create: %v", err)
	}
	if rows[0].Parent == nil || rows[0].Parent.IsZero() || *rows[1].Parent != preset {
		t.Errorf("pointer fields after Create: %v, %v; want a fresh ID and the preset %s", rows[0].Parent, rows[1].Parent, preset)
	}
	if rows[0].Other != nil {
		t.Errorf("untagged non-key pointer filled: %v", rows[0].Other)
	}
	var back traced
	if err := db.First(&back, "id = ?", rows[0].ID).Error; err != nil || back.Parent == nil || *back.Parent != *rows[0].Parent {
		t.Errorf("stored pointer field = %v, %v; want %s", back.Parent, err, rows[0].Parent)
	}
	to := time.Now().Add(time.Millisecond)
	for _, col := range []string{"TraceID", "trace_id", "traceds.trace_id", "Parent"} {
		var got []traced
		if err := db.Scopes(gormtype.Between(col, from, to)).Find(&got).Error; err != nil || len(got) != 2 {
			t.Errorf("Between(%q) = %d rows, %v; want 2", col, len(got), err)
		}
	}
}

// TestNoPgxInBuild: a MySQL or SQLite user of gormtype does not build pgx;
// PostgreSQL's error fields are read through pgretry's interface.
func TestNoPgxInBuild(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "github.com/jackc/") {
			t.Errorf("gormtype builds %s", pkg)
		}
	}
}
