package integration_test

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/glebarez/sqlite"
	"gorm.io/driver/mysql"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/sortid/sortid/gormtype"
	"github.com/sortid/sortid/idtype"
	"github.com/sortid/sortid/integration/internal/mysqltest"
	"github.com/sortid/sortid/integration/internal/pgtest"
)

// The collision suite makes AutoID's next fresh key equal an existing row's
// key (AutoID.GenerateHUID hands out taken keys first) on every GORM write
// path, and checks that the other row is untouched, the caller's row is
// stored under a fresh key and err is nil; on PostgreSQL and MariaDB in
// GORM's own transaction and in a caller's at READ COMMITTED and REPEATABLE
// READ, on SQLite in both kinds of transaction.

type colOrder struct {
	ID    gormtype.HUID `gorm:"primaryKey"`
	Name  string        `gorm:"size:50"`
	Lines []colLine     `gorm:"foreignKey:OrderID"`
	Tags  []colTag      `gorm:"many2many:col_order_tags"`
	Buyer *colAccount   `gorm:"foreignKey:BuyerID"`
	// BuyerID is the belongs-to key of Buyer.
	BuyerID gormtype.NullHUID
}

func (colOrder) TableName() string { return "col_orders" }

type colLine struct {
	ID      gormtype.HUID `gorm:"primaryKey"`
	OrderID gormtype.HUID `gorm:"index"`
	Item    string        `gorm:"size:50"`
}

func (colLine) TableName() string { return "col_lines" }

type colTag struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string        `gorm:"size:50"`
}

func (colTag) TableName() string { return "col_tags" }

// colAccount has a unique email and hooks that derive Slug and Mark from
// the key.
type colAccount struct {
	ID    gormtype.HUID `gorm:"primaryKey"`
	Email string        `gorm:"size:100;uniqueIndex"`
	Name  string        `gorm:"size:50"`
	Slug  string        `gorm:"size:50"`
	Mark  string        `gorm:"size:50"`
}

func (colAccount) TableName() string { return "col_accounts" }

func (a *colAccount) BeforeCreate(*gorm.DB) error {
	a.Slug = "acct-" + a.ID.String()
	return nil
}

func (a *colAccount) BeforeSave(*gorm.DB) error {
	a.Mark = "saved-" + a.ID.String()
	return nil
}

var colModels = []any{&colOrder{}, &colLine{}, &colTag{}, &colAccount{}}

// takenFirst is an AutoID key source that returns the keys put into it
// before fresh ones; a zero key in the queue stands for a fresh one.
type takenFirst struct {
	mu    sync.Mutex
	queue []gormtype.HUID
	draws int
}

func (s *takenFirst) generate() (idtype.HUID, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.draws++
	if len(s.queue) > 0 {
		h := s.queue[0]
		s.queue = s.queue[1:]
		if !h.IsZero() {
			return h.ID(), nil
		}
	}
	return idtype.GenerateHUID()
}

// next makes the coming draws return keys.
func (s *takenFirst) next(keys ...gormtype.HUID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, keys...)
	s.draws = 0
}

// pending reports how many forced keys were not drawn.
func (s *takenFirst) pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// collidingOnce returns an AutoID key source whose next draw after arm() is
// taken, and the key it collides with.
func collidingOnce() (gen func() (idtype.HUID, error), taken gormtype.HUID, arm func()) {
	src := &takenFirst{}
	taken = gormtype.NewHUID()
	return src.generate, taken, func() { src.next(taken) }
}

// colDialect is one server the GORM tests run on.
type colDialect struct {
	name string
	// isolations are the caller transactions to run each case in, besides
	// GORM's own.
	isolations []sql.IsolationLevel
}

var colDialects = []colDialect{
	{"postgres", []sql.IsolationLevel{sql.LevelReadCommitted, sql.LevelRepeatableRead}},
	{"mysql", []sql.IsolationLevel{sql.LevelReadCommitted, sql.LevelRepeatableRead}},
	{"sqlite", []sql.IsolationLevel{sql.LevelDefault}},
}

// open opens GORM with AutoID on the dialect's test database.
func (d colDialect) open(t *testing.T, plugin gormtype.AutoID) *gorm.DB {
	return gormOn(t, d.name, &gorm.Config{}, plugin)
}

// gormOn opens GORM with cfg and plugins (AutoID, or none) on the test
// database of dialect.
func gormOn(t *testing.T, dialect string, cfg *gorm.Config, plugins ...gorm.Plugin) *gorm.DB {
	t.Helper()
	switch dialect {
	case "postgres":
		return openGorm(t, postgres.Open(pgtest.URL(t)), cfg, plugins...)
	case "mysql":
		return openGorm(t, mysql.Open(mysqltest.DSN(t)), cfg, plugins...)
	}
	name := strings.NewReplacer("/", "_", "=", "_").Replace(t.Name())
	return openGorm(t, sqlite.Open("file:"+name+"?mode=memory&cache=shared&_pragma=busy_timeout(5000)"), cfg, plugins...)
}

// resetTables drops and migrates models.
func resetTables(t *testing.T, db *gorm.DB, models ...any) {
	t.Helper()
	if err := db.Migrator().DropTable(models...); err != nil {
		t.Fatal(err)
	}
	if err := db.AutoMigrate(models...); err != nil {
		t.Fatal(err)
	}
}

// colCase is one write path. It seeds rows with db, arms src with the keys
// to collide with, writes with w (GORM's own transaction or a caller's),
// and checks the outcome with db.
type colCase struct {
	name string
	run  func(t *testing.T, db, w *gorm.DB, src *takenFirst)
}

func TestGormCollisions(t *testing.T) {
	for _, d := range colDialects {
		t.Run(d.name, func(t *testing.T) {
			src := &takenFirst{}
			db := d.open(t, gormtype.AutoID{GenerateHUID: src.generate})
			txs := []struct {
				name string
				iso  *sql.TxOptions
			}{{"gorm-tx", nil}}
			for _, iso := range d.isolations {
				txs = append(txs, struct {
					name string
					iso  *sql.TxOptions
				}{"caller-tx-" + strings.ReplaceAll(iso.String(), " ", "-"), &sql.TxOptions{Isolation: iso}})
			}
			for _, c := range colCases {
				for _, tx := range txs {
					t.Run(c.name+"/"+tx.name, func(t *testing.T) {
						if err := db.Migrator().DropTable(append(colModels, "col_order_tags")...); err != nil {
							t.Fatal(err)
						}
						if err := db.AutoMigrate(colModels...); err != nil {
							t.Fatal(err)
						}
						if tx.iso == nil {
							c.run(t, db, db, src)
						} else {
							err := db.Transaction(func(w *gorm.DB) error {
								seed := db
								if d.name == "sqlite" {
									seed = w // an in-memory database is locked by the transaction
								}
								c.run(t, seed, w, src)
								return nil
							}, tx.iso)
							if err != nil {
								t.Fatalf("caller transaction: %v", err)
							}
						}
						if n := src.pending(); n != 0 {
							t.Errorf("%d forced keys were never drawn: the case did not collide", n)
						}
					})
				}
			}
		})
	}
}

// seedAccount stores an account with a caller-set key.
func seedAccount(t *testing.T, db *gorm.DB, email string) colAccount {
	t.Helper()
	a := colAccount{ID: gormtype.NewHUID(), Email: email, Name: "seed"}
	if err := db.Create(&a).Error; err != nil {
		t.Fatalf("seed %s: %v", email, err)
	}
	return a
}

// checkAccount checks that the stored row for want's key equals want.
func checkAccount(t *testing.T, db *gorm.DB, want colAccount) {
	t.Helper()
	var got colAccount
	if err := db.First(&got, "id = ?", want.ID).Error; err != nil {
		t.Fatalf("account %s: %v", want.ID, err)
	}
	if got != want {
		t.Errorf("stored account %+v, want %+v", got, want)
	}
}

// checkFresh checks that a row the caller created holds a key other than
// the taken ones and that its hook saw that key.
func checkFresh(t *testing.T, db *gorm.DB, a colAccount, taken ...colAccount) {
	t.Helper()
	for _, o := range taken {
		if a.ID == o.ID {
			t.Fatalf("new account kept the taken key %s", a.ID)
		}
	}
	if a.Slug != "acct-"+a.ID.String() || a.Mark != "saved-"+a.ID.String() {
		t.Errorf("Slug %q, Mark %q were derived from another key than %s", a.Slug, a.Mark, a.ID)
	}
	checkAccount(t, db, a)
}

func countAccounts(t *testing.T, db *gorm.DB) int64 {
	t.Helper()
	var n int64
	if err := db.Model(&colAccount{}).Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

// upserts are the clause.OnConflict forms a caller adds.
var upserts = []struct {
	name string
	oc   clause.OnConflict
}{
	{"DoNothing", clause.OnConflict{DoNothing: true}},
	{"UpdateAll", clause.OnConflict{UpdateAll: true}},
	{"EmailDoUpdates", clause.OnConflict{Columns: []clause.Column{{Name: "email"}}, DoUpdates: clause.AssignmentColumns([]string{"name"})}},
	{"EmailUpdateAll", clause.OnConflict{Columns: []clause.Column{{Name: "email"}}, UpdateAll: true}},
}

var colCases = func() []colCase {
	cases := []colCase{
		{"Create", func(t *testing.T, db, w *gorm.DB, src *takenFirst) {
			taken := seedAccount(t, db, "taken@x")
			src.next(taken.ID)
			a := colAccount{Email: "new@x", Name: "new"}
			if err := w.Create(&a).Error; err != nil {
				t.Fatalf("Create: %v", err)
			}
			checkFresh(t, w, a, taken)
			checkAccount(t, w, taken)
		}},
		{"CreateInBatches", func(t *testing.T, db, w *gorm.DB, src *takenFirst) {
			t1, t2 := seedAccount(t, db, "t1@x"), seedAccount(t, db, "t2@x")
			src.next(t1.ID, t2.ID)
			rows := make([]colAccount, 5)
			for i := range rows {
				rows[i] = colAccount{Email: fmt.Sprintf("b%d@x", i), Name: "batch"}
			}
			if err := w.CreateInBatches(&rows, 2).Error; err != nil {
				t.Fatalf("CreateInBatches: %v", err)
			}
			for _, r := range rows {
				checkFresh(t, w, r, t1, t2)
			}
			checkAccount(t, w, t1)
			checkAccount(t, w, t2)
		}},
		{"FirstOrCreate", func(t *testing.T, db, w *gorm.DB, src *takenFirst) {
			taken := seedAccount(t, db, "taken@x")
			src.next(taken.ID)
			var a colAccount
			if err := w.Where(colAccount{Email: "new@x"}).FirstOrCreate(&a).Error; err != nil {
				t.Fatalf("FirstOrCreate: %v", err)
			}
			checkFresh(t, w, a, taken)
			checkAccount(t, w, taken)
		}},
		{"SaveNewLineOfLoadedOrder", func(t *testing.T, db, w *gorm.DB, src *takenFirst) {
			other := colOrder{Name: "other", Lines: []colLine{{Item: "theirs"}}}
			mine := colOrder{Name: "mine", Lines: []colLine{{Item: "old"}}}
			if err := db.Create(&other).Error; err != nil {
				t.Fatal(err)
			}
			if err := db.Create(&mine).Error; err != nil {
				t.Fatal(err)
			}
			var loaded colOrder
			if err := w.Preload("Lines").First(&loaded, "id = ?", mine.ID).Error; err != nil {
				t.Fatal(err)
			}
			loaded.Lines = append(loaded.Lines, colLine{Item: "new"})
			src.next(other.Lines[0].ID)
			if err := w.Save(&loaded).Error; err != nil {
				t.Fatalf("Save: %v", err)
			}
			checkLines(t, w, other.ID, "theirs")
			checkLines(t, w, mine.ID, "old", "new")
			if got := loaded.Lines[1].ID; got == other.Lines[0].ID {
				t.Errorf("new line kept the taken key %s", got)
			}
		}},
		{"NestedCreate", func(t *testing.T, db, w *gorm.DB, src *takenFirst) {
			other := colOrder{Name: "other", Lines: []colLine{{Item: "theirs"}}, Tags: []colTag{{Name: "theirs"}}}
			if err := db.Create(&other).Error; err != nil {
				t.Fatal(err)
			}
			buyer := seedAccount(t, db, "buyer@x")
			// Keys are drawn for the order, its belongs-to buyer (taken,
			// then retried), and, the order's key being taken, for the
			// whole Create again: order, buyer, its two lines (one taken,
			// so both again), its tag (taken) and the tag again.
			src.next(other.ID, buyer.ID, 0, 0, 0, other.Lines[0].ID, 0, 0, 0, other.Tags[0].ID)
			o := colOrder{Name: "mine", Buyer: &colAccount{Email: "new@x"},
				Lines: []colLine{{Item: "a"}, {Item: "b"}}, Tags: []colTag{{Name: "x"}}}
			if err := w.Create(&o).Error; err != nil {
				t.Fatalf("Create with associations: %v", err)
			}
			checkLines(t, w, other.ID, "theirs")
			checkLines(t, w, o.ID, "a", "b")
			checkTags(t, w, other.ID, "theirs")
			checkTags(t, w, o.ID, "x")
			checkAccount(t, w, buyer)
			checkFresh(t, w, *o.Buyer, buyer)
		}},
		{"OtherUniqueKeyNotRetried", func(t *testing.T, db, w *gorm.DB, src *takenFirst) {
			seedAccount(t, db, "dup@x")
			src.next()
			err := w.Transaction(func(tx *gorm.DB) error { return tx.Create(&colAccount{Email: "dup@x"}).Error })
			if err == nil || !isUniqueViolation(err) {
				t.Fatalf("Create with a taken email: %v; want the database's unique violation", err)
			}
			if strings.Contains(err.Error(), "gormtype") || src.draws != 1 {
				t.Errorf("error %q after %d draws; want the driver's error after 1 draw", err, src.draws)
			}
		}},
	}
	for _, u := range upserts {
		for _, n := range []int{1, 2} {
			name := fmt.Sprintf("Upsert%s/%dRows", u.name, n)
			cases = append(cases, colCase{name + "/FreshKeyTaken", func(t *testing.T, db, w *gorm.DB, src *takenFirst) {
				taken := seedAccount(t, db, "taken@x")
				rows := []colAccount{{Email: "n1@x", Name: "new"}, {Email: "n2@x", Name: "new"}}[:n]
				if upsertRefused(w, u.oc, n) {
					checkRefused(t, w, w.Clauses(u.oc).Create(&rows).Error, 1)
					checkAccount(t, w, taken)
					return
				}
				src.next(taken.ID, taken.ID)
				if err := w.Clauses(u.oc).Create(&rows).Error; err != nil {
					t.Fatalf("upsert: %v", err)
				}
				checkAccount(t, w, taken)
				for _, r := range rows {
					checkFresh(t, w, r, taken)
				}
			}})
			cases = append(cases, colCase{name + "/EmailTaken", func(t *testing.T, db, w *gorm.DB, src *takenFirst) {
				existing := seedAccount(t, db, "old@x")
				taken := seedAccount(t, db, "taken@x")
				rows := []colAccount{{Email: "old@x", Name: "renamed"}, {Email: "n@x", Name: "new"}}[:n]
				if upsertRefused(w, u.oc, n) {
					checkRefused(t, w, w.Clauses(u.oc).Create(&rows).Error, 2)
					checkAccount(t, w, existing)
					return
				}
				src.next(taken.ID)
				if err := w.Clauses(u.oc).Create(&rows).Error; err != nil {
					t.Fatalf("upsert: %v", err)
				}
				checkAccount(t, w, taken)
				if n == 2 {
					checkFresh(t, w, rows[1], taken)
				}
				want := existing
				if !u.oc.DoNothing {
					want.Name = "renamed"
					if u.oc.UpdateAll {
						want.Slug, want.Mark = rows[0].Slug, rows[0].Mark
					}
				}
				checkAccount(t, w, want)
				// The struct holds the stored row's key: returned by
				// PostgreSQL and SQLite, read back on MySQL.
				if rows[0].ID != existing.ID {
					t.Errorf("upserted struct holds key %s, the stored row %s", rows[0].ID, existing.ID)
				}
				if k := countAccounts(t, w); k != int64(n)+1 {
					t.Errorf("%d accounts, want %d", k, n+1)
				}
			}})
		}
	}
	return cases
}()

func checkLines(t *testing.T, db *gorm.DB, order gormtype.HUID, items ...string) {
	t.Helper()
	var got []string
	if err := db.Model(&colLine{}).Where("order_id = ?", order).Order("item").Pluck("item", &got).Error; err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != strings.Join(sortedCopy(items), ",") {
		t.Errorf("order %s has lines %v, want %v", order, got, items)
	}
}

func checkTags(t *testing.T, db *gorm.DB, order gormtype.HUID, names ...string) {
	t.Helper()
	var got []string
	err := db.Table("col_tags").Joins("JOIN col_order_tags j ON j.col_tag_id = col_tags.id").
		Where("j.col_order_id = ?", order).Order("name").Pluck("name", &got).Error
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != strings.Join(sortedCopy(names), ",") {
		t.Errorf("order %s has tags %v, want %v", order, got, names)
	}
}

func sortedCopy(s []string) []string {
	c := append([]string(nil), s...)
	for i := range c {
		for j := i + 1; j < len(c); j++ {
			if c[j] < c[i] {
				c[i], c[j] = c[j], c[i]
			}
		}
	}
	return c
}

// upsertRefused reports whether AutoID refuses an upsert of rows fresh
// rows: on PostgreSQL and SQLite one aimed at no column (GORM aims UpdateAll
// at the key) or one that may skip a row (DO NOTHING), on MySQL one of
// several rows.
func upsertRefused(db *gorm.DB, oc clause.OnConflict, rows int) bool {
	if db.Dialector.Name() == "mysql" {
		return rows > 1
	}
	return len(oc.Columns) == 0 || oc.DoNothing
}

// checkRefused checks that err is AutoID's refusal and that the database
// holds the accounts it held before.
func checkRefused(t *testing.T, db *gorm.DB, err error, accounts int64) {
	t.Helper()
	if !errors.Is(err, gormtype.ErrRefused) || !strings.Contains(err.Error(), "NewHUID") {
		t.Fatalf("got %v; want ErrRefused naming the way out", err)
	}
	if n := countAccounts(t, db); n != accounts {
		t.Errorf("%d accounts after the refusal, want %d", n, accounts)
	}
}

// isUniqueViolation reports whether err is a driver's unique violation.
func isUniqueViolation(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "23505") || strings.Contains(msg, "Error 1062") || strings.Contains(msg, "UNIQUE constraint failed")
}

// TestGormCollisionAfterSnapshot: in a caller's REPEATABLE READ (or
// SERIALIZABLE) transaction that has read already, another connection commits a row with the key
// AutoID draws next; the insert still gets a fresh key.
func TestGormCollisionAfterSnapshot(t *testing.T) {
	for _, c := range []struct {
		dialect string
		iso     sql.IsolationLevel
	}{
		{"postgres", sql.LevelRepeatableRead},
		{"postgres", sql.LevelSerializable},
		{"mysql", sql.LevelRepeatableRead}, // MariaDB's SERIALIZABLE read locks would block the other connection
	} {
		t.Run(c.dialect+"/"+strings.ReplaceAll(c.iso.String(), " ", "-"), func(t *testing.T) {
			src := &takenFirst{}
			db := gormOn(t, c.dialect, &gorm.Config{}, gormtype.AutoID{GenerateHUID: src.generate})
			resetTables(t, db, &colAccount{})
			var created colAccount
			err := db.Transaction(func(tx *gorm.DB) error {
				if n := countAccounts(t, tx); n != 0 { // takes the snapshot
					return fmt.Errorf("%d accounts before", n)
				}
				taken := seedAccount(t, db, "taken@x") // another connection
				src.next(taken.ID)
				created = colAccount{Email: "new@x"}
				if err := tx.Create(&created).Error; err != nil {
					return err
				}
				if created.ID == taken.ID {
					return errors.New("kept the taken key")
				}
				return nil
			}, &sql.TxOptions{Isolation: c.iso})
			if err != nil {
				t.Fatalf("%s transaction: %v", c.iso, err)
			}
			checkFresh(t, db, created)
		})
	}
}

// snapAccount's hook reads in the Create's transaction, taking its
// snapshot, and then lets another connection take the key AutoID drew.
type snapAccount struct {
	ID    gormtype.HUID `gorm:"primaryKey"`
	Email string
	take  func(gormtype.HUID)
}

func (snapAccount) TableName() string { return "col_snap_accounts" }

func (a *snapAccount) BeforeCreate(tx *gorm.DB) error {
	var n int64
	if err := tx.Model(&snapAccount{}).Count(&n).Error; err != nil {
		return err
	}
	a.take(a.ID)
	return nil
}

// TestGormOwnTransactionSnapshot: in the transaction GORM opens for a
// single-row Create, a key taken by a row committed after the transaction's
// first statement (the hook's read) is retried under READ COMMITTED and
// REPEATABLE READ alike: AutoID runs the Create again in a new transaction.
// The other row is untouched.
func TestGormOwnTransactionSnapshot(t *testing.T) {
	for _, iso := range []string{"READ COMMITTED", "REPEATABLE READ"} {
		t.Run(iso, func(t *testing.T) {
			src := &takenFirst{}
			db := colDialects[0].open(t, gormtype.AutoID{GenerateHUID: src.generate})
			sqlDB, err := db.DB()
			if err != nil {
				t.Fatal(err)
			}
			sqlDB.SetMaxOpenConns(1)
			if err := db.Exec("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL " + iso).Error; err != nil {
				t.Fatal(err)
			}
			resetTables(t, db, &snapAccount{})
			other := pgtest.StdDB(t)
			taken := gormtype.NewHUID()
			src.next(taken)
			var once sync.Once
			a := snapAccount{Email: "new@x", take: func(h gormtype.HUID) {
				once.Do(func() { takeKey(t, other, h) })
			}}
			if err := db.Create(&a).Error; err != nil || a.ID == taken || src.pending() != 0 {
				t.Fatalf("Create: %v, key %s (taken %s)", err, a.ID, taken)
			}
			var email string
			if err := other.QueryRow("SELECT email FROM col_snap_accounts WHERE id = $1", int64(taken)).Scan(&email); err != nil || email != "other@x" {
				t.Errorf("the other row: %q, %v", email, err)
			}
		})
	}
}

// takeKey commits a row with key h on another connection.
func takeKey(t *testing.T, other *sql.DB, h gormtype.HUID) {
	if _, err := other.Exec("INSERT INTO col_snap_accounts (id, email) VALUES ($1, 'other@x')", int64(h)); err != nil {
		t.Errorf("take %s: %v", h, err)
	}
}

// TestGormKeyTakenEveryTime: when every key drawn for a Create is taken,
// it fails with ErrKeyTaken, which is a gorm.ErrDuplicatedKey, and stores
// nothing: one row and a batch, in GORM's own transaction, in a caller's
// and without one, on every dialect.
func TestGormKeyTakenEveryTime(t *testing.T) {
	for _, d := range colDialects {
		for _, skip := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/SkipDefaultTransaction=%v", d.name, skip), func(t *testing.T) {
				src := &takenFirst{}
				db := gormOn(t, d.name, &gorm.Config{SkipDefaultTransaction: skip}, gormtype.AutoID{Retries: 1, GenerateHUID: src.generate})
				resetTables(t, db, &colAccount{})
				taken := seedAccount(t, db, "taken@x")
				for _, w := range []func(func(*gorm.DB) error) error{
					func(f func(*gorm.DB) error) error { return f(db) },
					func(f func(*gorm.DB) error) error { return db.Transaction(f) },
				} {
					for _, rows := range [][]colAccount{{{Email: "one@x"}}, {{Email: "a@x"}, {Email: "b@x"}}} {
						src.next(taken.ID, taken.ID, taken.ID, taken.ID)
						err := w(func(tx *gorm.DB) error { return tx.Create(&rows).Error })
						if !errors.Is(err, gormtype.ErrKeyTaken) || !errors.Is(err, gorm.ErrDuplicatedKey) || src.draws != 2*len(rows) {
							t.Fatalf("Create of %d rows: %v after %d draws; want ErrKeyTaken after %d", len(rows), err, src.draws, 2*len(rows))
						}
						src.queue = nil
					}
				}
				if n := countAccounts(t, db); n != 1 {
					t.Errorf("%d accounts, want only the taken one", n)
				}
			})
		}
	}
}

// TestGormNoRetryNeverUpserts: with retries off, a taken fresh key is the
// caller's error, never an upsert of the row that holds it.
func TestGormNoRetryNeverUpserts(t *testing.T) {
	for _, d := range colDialects {
		t.Run(d.name, func(t *testing.T) {
			src := &takenFirst{}
			db := d.open(t, gormtype.AutoID{Retries: -1, GenerateHUID: src.generate})
			resetTables(t, db, &colAccount{})
			for _, u := range upserts {
				taken := seedAccount(t, db, "taken-"+u.name+"@x")
				src.next(taken.ID)
				err := db.Clauses(u.oc).Create(&colAccount{Email: "new-" + u.name + "@x", Name: "new"}).Error
				if refused := upsertRefused(db, u.oc, 1); refused != errors.Is(err, gormtype.ErrRefused) || !refused && (err == nil || !isUniqueViolation(err)) {
					t.Errorf("%s with a taken key and no retries: %v; want a unique violation, or the refusal", u.name, err)
				}
				checkAccount(t, db, taken)
			}
		})
	}
}
