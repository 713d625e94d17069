package gormtype_test

// The shared models and helpers of the black-box tests. The tests are
// split by the guarantee they check: fill_test.go (which fields AutoID
// fills), retry_test.go, transaction_test.go, hooks_test.go,
// failed_test.go (a failed Create leaves fresh fields zero), zero_test.go
// (ErrZeroID), refuse_test.go, upsert_test.go, association_test.go,
// save_test.go, setup_test.go, types_test.go and null_test.go (Null[T]).

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/glebarez/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/sortid/sortid/gormtype"
	"github.com/sortid/sortid/idtype"
)

// Author, Book and Tag: a HUID key with a has-many of SCRU128 keys and a
// many2many of SCRU128Bytes keys, and a non-key auto field.
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

// Account has a unique email and hooks that derive Slug and Mark from the
// key: a retried Create must run them again.
type Account struct {
	ID    gormtype.HUID `gorm:"primaryKey"`
	Email string        `gorm:"uniqueIndex"`
	Name  string
	Slug  string
	Mark  string
}

func (a *Account) BeforeCreate(*gorm.DB) error {
	a.Slug = "acct-" + a.ID.String()
	return nil
}

func (a *Account) BeforeSave(*gorm.DB) error {
	a.Mark = "saved-" + a.ID.String()
	return nil
}

// Item has a HUID key, a unique auto-filled SCRU128 Ref and a unique Code.
type Item struct {
	ID   gormtype.HUID    `gorm:"primaryKey"`
	Ref  gormtype.SCRU128 `gorm:"uniqueIndex" sortid:"auto"`
	Code string           `gorm:"uniqueIndex"`
	Name string
}

// Purchase has every kind of association: a belongs-to Buyer, a has-many
// of Lines, a has-one Note and a many2many of Labels.
type Purchase struct {
	ID      gormtype.HUID `gorm:"primaryKey"`
	Name    string
	BuyerID gormtype.NullHUID
	Buyer   *Account `gorm:"foreignKey:BuyerID"`
	Lines   []Line   `gorm:"foreignKey:PurchaseID"`
	Note    *Note    `gorm:"foreignKey:PurchaseID"`
	Labels  []Label  `gorm:"many2many:purchase_labels"`
}

type Line struct {
	ID         gormtype.HUID `gorm:"primaryKey"`
	PurchaseID gormtype.HUID `gorm:"index"`
	Item       string
}

type Note struct {
	ID         gormtype.SCRU128Bytes `gorm:"primaryKey"`
	PurchaseID gormtype.HUID
	Text       string
}

type Label struct {
	ID   gormtype.SCRU128 `gorm:"primaryKey"`
	Name string
}

// Inv has a non-key auto field, for Save.
type Inv struct {
	ID    gormtype.HUID    `gorm:"primaryKey"`
	Trace gormtype.SCRU128 `sortid:"auto"`
	Total int
}

// purchaseModels are the tables of Purchase and its associations.
var purchaseModels = []any{&Purchase{}, &Account{}, &Line{}, &Note{}, &Label{}}

var dbSeq atomic.Int64

// openDB opens a new in-memory SQLite database of its own for the test,
// with cfg (nil: the default config), plugin (nil: none) and the tables of
// models. It has one connection: a caller's transaction must do its
// reads through its own *gorm.DB.
func openDB(t testing.TB, cfg *gorm.Config, plugin gorm.Plugin, models ...any) *gorm.DB {
	t.Helper()
	if cfg == nil {
		cfg = &gorm.Config{}
	}
	cfg.Logger = logger.Discard
	name := fmt.Sprintf("%s_%d", strings.NewReplacer("/", "_", "=", "_", " ", "_").Replace(t.Name()), dbSeq.Add(1))
	db, err := gorm.Open(sqlite.Open("file:"+name+"?mode=memory&cache=shared"), cfg)
	if err != nil {
		t.Fatalf("open sqlite: %v", err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		t.Fatal(err)
	}
	sqlDB.SetMaxOpenConns(1)
	t.Cleanup(func() { _ = sqlDB.Close() })
	if plugin != nil {
		if err := db.Use(plugin); err != nil {
			t.Fatalf("Use(%s): %v", plugin.Name(), err)
		}
	}
	if len(models) > 0 {
		if err := db.AutoMigrate(models...); err != nil {
			t.Fatalf("AutoMigrate: %v", err)
		}
	}
	return db
}

// openSQLite opens a database with plugin and the Author, Book and Tag
// tables.
func openSQLite(t testing.TB, plugin gormtype.AutoID) *gorm.DB {
	t.Helper()
	return openDB(t, nil, plugin, &Author{}, &Book{}, &Tag{})
}

// checkRefused is the one checker of AutoID's errors: err must wrap
// sentinel, and its message must name every one of mustMention (the
// table, the field or column, the way out), in any case, as whole words
// where they begin or end with a letter; a trailing * makes a prefix.
func checkRefused(t testing.TB, err, sentinel error, mustMention ...string) {
	t.Helper()
	if !errors.Is(err, sentinel) {
		t.Errorf("error %v; want one wrapping %q", err, sentinel)
		return
	}
	for _, m := range mustMention {
		if !mentions(err.Error(), m) {
			t.Errorf("error %q does not name %q", err, m)
		}
	}
}

var (
	wordStart = regexp.MustCompile(`^\w`)
	wordEnd   = regexp.MustCompile(`\w$`)
)

// mentions reports whether msg names word: see checkRefused.
func mentions(msg, word string) bool {
	word, prefix := strings.CutSuffix(word, "*")
	expr := regexp.QuoteMeta(word)
	if wordStart.MatchString(word) {
		expr = `\b` + expr
	}
	if !prefix && wordEnd.MatchString(word) {
		expr += `\b`
	}
	return regexp.MustCompile("(?i)" + expr).MatchString(msg)
}

// keySource is AutoID's generators for the tests: each hands out the keys
// queued for it first, then fresh ones (a zero key in a queue stands for a
// fresh one), and counts its draws. It records the OnCollision calls.
type keySource struct {
	mu         sync.Mutex
	huids      []idtype.HUID
	scrus      []idtype.SCRU128
	huidDraws  int
	scruDraws  int
	collisions []collision
}

type collision struct {
	ctx   context.Context
	table string
	err   error
}

func (s *keySource) huid() (idtype.HUID, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.huidDraws++
	if len(s.huids) > 0 {
		h := s.huids[0]
		s.huids = s.huids[1:]
		if h != 0 {
			return h, nil
		}
	}
	return idtype.GenerateHUID()
}

func (s *keySource) scru() (idtype.SCRU128, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scruDraws++
	if len(s.scrus) > 0 {
		id := s.scrus[0]
		s.scrus = s.scrus[1:]
		if id != (idtype.SCRU128{}) {
			return id, nil
		}
	}
	return idtype.GenerateSCRU128()
}

func (s *keySource) onCollision(ctx context.Context, table string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.collisions = append(s.collisions, collision{ctx, table, err})
}

// plugin returns AutoID with the source's generators and OnCollision.
func (s *keySource) plugin(retries int) gormtype.AutoID {
	return gormtype.AutoID{Retries: retries, GenerateHUID: s.huid, GenerateSCRU128: s.scru, OnCollision: s.onCollision}
}

// next makes the coming HUID draws return keys, and resets the counts.
func (s *keySource) next(keys ...gormtype.HUID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range keys {
		s.huids = append(s.huids, k.ID())
	}
	s.huidDraws, s.scruDraws, s.collisions = 0, 0, nil
}

// nextSCRU128 makes the coming SCRU128 draws return ids, and resets the
// counts.
func (s *keySource) nextSCRU128(ids ...idtype.SCRU128) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scrus = append(s.scrus, ids...)
	s.huidDraws, s.scruDraws, s.collisions = 0, 0, nil
}

// draws returns the HUID and SCRU128 draws since the last next.
func (s *keySource) draws() (huids, scrus int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.huidDraws, s.scruDraws
}

// calls returns the OnCollision calls since the last next.
func (s *keySource) calls() []collision {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]collision(nil), s.collisions...)
}

// checkDrawn asserts that every queued key was drawn (the case collided)
// and that OnCollision was called wantCollisions times, each with table
// and a unique violation.
func (s *keySource) checkDrawn(t testing.TB, table string, wantCollisions int) {
	t.Helper()
	s.mu.Lock()
	pending := len(s.huids) + len(s.scrus)
	s.mu.Unlock()
	if pending != 0 {
		t.Errorf("%d queued keys were never drawn: the case did not collide as planned", pending)
	}
	calls := s.calls()
	if len(calls) != wantCollisions {
		t.Errorf("%d OnCollision calls, want %d", len(calls), wantCollisions)
	}
	for i, c := range calls {
		if c.table != table || c.err == nil || !strings.Contains(c.err.Error(), "UNIQUE constraint failed") {
			t.Errorf("OnCollision call %d: table %q, error %v; want %q and the driver's unique violation", i+1, c.table, c.err, table)
		}
	}
}

// seedAccount stores an account with a caller-set key.
func seedAccount(t testing.TB, db *gorm.DB, email string) Account {
	t.Helper()
	a := Account{ID: gormtype.NewHUID(), Email: email, Name: "seed"}
	if err := db.Create(&a).Error; err != nil {
		t.Fatalf("seed %s: %v", email, err)
	}
	return a
}

// checkAccount asserts that the stored row with want's key equals want.
func checkAccount(t testing.TB, db *gorm.DB, want Account) {
	t.Helper()
	var got Account
	if err := db.First(&got, "id = ?", want.ID).Error; err != nil {
		t.Fatalf("account %s: %v", want.ID, err)
	}
	if got != want {
		t.Errorf("stored account %+v, want %+v", got, want)
	}
}

// checkFresh asserts that a holds a key other than the taken ones, that
// its hooks saw that key, and that it is stored as it is.
func checkFresh(t testing.TB, db *gorm.DB, a Account, taken ...Account) {
	t.Helper()
	if a.ID.IsZero() {
		t.Fatalf("account %s has no key", a.Email)
	}
	for _, o := range taken {
		if a.ID == o.ID {
			t.Fatalf("account %s kept the taken key %s", a.Email, a.ID)
		}
	}
	if a.Slug != "acct-"+a.ID.String() || a.Mark != "saved-"+a.ID.String() {
		t.Errorf("Slug %q, Mark %q were derived from another key than %s", a.Slug, a.Mark, a.ID)
	}
	checkAccount(t, db, a)
}

// count counts the rows of table matching where.
func count(t testing.TB, db *gorm.DB, table, where string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := db.Table(table).Where(where, args...).Count(&n).Error; err != nil {
		t.Fatalf("count %s: %v", table, err)
	}
	return n
}

// checkCount asserts that table holds want rows matching where.
func checkCount(t testing.TB, db *gorm.DB, want int64, table, where string, args ...any) {
	t.Helper()
	if n := count(t, db, table, where, args...); n != want {
		t.Errorf("%s has %d rows where %s %v, want %d", table, n, where, args, want)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// nullHUID returns h as a valid NullHUID, through Scan: the tests outside
// null_test.go do not name the Null types' fields.
func nullHUID(h gormtype.HUID) gormtype.NullHUID {
	var n gormtype.NullHUID
	if err := n.Scan(int64(h)); err != nil {
		panic(err)
	}
	return n
}

// retried runs fn in gormtype.Transaction, which runs it again after a
// collision of a key AutoID filled.
func retried(db *gorm.DB, fn func(tx *gorm.DB) error) error {
	return gormtype.Transaction(db.Statement.Context, db, fn)
}
