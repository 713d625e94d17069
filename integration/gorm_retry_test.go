package integration_test

// The retry suite: when AutoID's fresh key is taken (takenFirst hands out
// an existing row's key), the Create runs again with a new one, hooks
// included, and succeeds; the row that holds the key is untouched and the
// caller's row is stored once, under the key its struct holds. A violation
// of another key, or of a key the caller set, is not retried; a Create
// whose every key is taken fails with ErrKeyTaken.

import (
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"gorm.io/driver/postgres"
	"gorm.io/gorm"

	"github.com/sortid/sortid/gormtype"
	"github.com/sortid/sortid/idtype"
	"github.com/sortid/sortid/integration/internal/pgtest"
)

type retryOrder struct {
	ID    gormtype.HUID `gorm:"primaryKey"`
	Name  string        `gorm:"size:50"`
	Lines []retryLine   `gorm:"foreignKey:OrderID"`
	Tags  []retryTag    `gorm:"many2many:retry_order_tags"`
	Buyer *retryAccount `gorm:"foreignKey:BuyerID"`
	// BuyerID is the belongs-to key of Buyer.
	BuyerID gormtype.NullHUID
}

func (retryOrder) TableName() string { return "retry_orders" }

type retryLine struct {
	ID      gormtype.HUID `gorm:"primaryKey"`
	OrderID gormtype.HUID `gorm:"index"`
	Item    string        `gorm:"size:50"`
}

func (retryLine) TableName() string { return "retry_lines" }

type retryTag struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string        `gorm:"size:50"`
}

func (retryTag) TableName() string { return "retry_tags" }

// retryAccount has a unique email and hooks that derive Slug and Mark from
// the key: a retried Create must run them again with the new key.
type retryAccount struct {
	ID    gormtype.HUID `gorm:"primaryKey"`
	Email string        `gorm:"size:100;uniqueIndex"`
	Name  string        `gorm:"size:50"`
	Slug  string        `gorm:"size:50"`
	Mark  string        `gorm:"size:50"`
}

func (retryAccount) TableName() string { return "retry_accounts" }

func (a *retryAccount) BeforeCreate(*gorm.DB) error {
	a.Slug = "acct-" + a.ID.String()
	return nil
}

func (a *retryAccount) BeforeSave(*gorm.DB) error {
	a.Mark = "saved-" + a.ID.String()
	return nil
}

var retryModels = []any{&retryOrder{}, &retryLine{}, &retryTag{}, &retryAccount{}, "retry_order_tags"}

// seedAccount stores an account with a caller-set key.
func seedAccount(t *testing.T, db *gorm.DB, email string) retryAccount {
	t.Helper()
	a := retryAccount{ID: gormtype.NewHUID(), Email: email, Name: "seed"}
	mustCreate(t, db, &a)
	return a
}

// checkFresh checks that an account the caller created holds a key other
// than the taken ones, that its hooks saw that key, and that it is stored
// as its struct holds it.
func checkFresh(t *testing.T, db *gorm.DB, a retryAccount, taken ...retryAccount) {
	t.Helper()
	for _, o := range taken {
		if a.ID == o.ID {
			t.Fatalf("new account %s kept the taken key %s", a.Email, a.ID)
		}
	}
	if a.Slug != "acct-"+a.ID.String() || a.Mark != "saved-"+a.ID.String() {
		t.Errorf("Slug %q, Mark %q were derived from another key than %s", a.Slug, a.Mark, a.ID)
	}
	checkStored(t, db, a.ID, a)
}

// retryCase is one write path. It seeds rows with db, arms src with the
// keys to collide with, writes with w (GORM's own transaction or a
// caller's), and checks the outcome through w.
type retryCase struct {
	name string
	run  func(t *testing.T, dialect string, db, w *gorm.DB, src *takenFirst)
}

// TestGormRetryWritePaths: every GORM write path with a taken fresh key,
// in GORM's own transaction and in a caller's (at READ COMMITTED and
// REPEATABLE READ on PostgreSQL and MariaDB), on every dialect.
func TestGormRetryWritePaths(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src := &takenFirst{}
		db := d.open(t, &gorm.Config{}, src.plugin(0))
		txs := []struct {
			name string
			opts *sql.TxOptions
		}{{"gorm-tx", nil}}
		for _, iso := range d.isolations {
			txs = append(txs, struct {
				name string
				opts *sql.TxOptions
			}{"caller-tx-" + strings.ReplaceAll(iso.String(), " ", "-"), &sql.TxOptions{Isolation: iso}})
		}
		for _, c := range retryCases {
			for _, tx := range txs {
				t.Run(c.name+"/"+tx.name, func(t *testing.T) {
					resetTables(t, db, retryModels...)
					src.forget()
					if tx.opts == nil {
						c.run(t, d.name, db, db, src)
					} else {
						err := db.Transaction(func(w *gorm.DB) error {
							seed := db
							if d.name == "sqlite" {
								seed = w // an in-memory database is locked by the transaction
							}
							c.run(t, d.name, seed, w, src)
							return nil
						}, tx.opts)
						if err != nil {
							t.Fatalf("caller transaction: %v", err)
						}
					}
					src.checkDrawn(t)
				})
			}
		}
	})
}

var retryCases = func() []retryCase {
	cases := []retryCase{
		{"Create", func(t *testing.T, _ string, db, w *gorm.DB, src *takenFirst) {
			taken := seedAccount(t, db, "taken@x")
			src.next(taken.ID)
			a := retryAccount{Email: "new@x", Name: "new"}
			if err := retried(w, func(tx *gorm.DB) error { return tx.Create(&a).Error }); err != nil {
				t.Fatalf("Create: %v", err)
			}
			if n := src.drawn(); n != 2 {
				t.Errorf("%d draws for one collision, want 2", n)
			}
			checkFresh(t, w, a, taken)
			checkStored(t, w, taken.ID, taken)
		}},
		{"CreateInBatches", func(t *testing.T, _ string, db, w *gorm.DB, src *takenFirst) {
			t1, t2 := seedAccount(t, db, "t1@x"), seedAccount(t, db, "t2@x")
			src.next(t1.ID, t2.ID)
			rows := make([]retryAccount, 5)
			for i := range rows {
				rows[i] = retryAccount{Email: fmt.Sprintf("b%d@x", i), Name: "batch"}
			}
			if err := retried(w, func(tx *gorm.DB) error { return tx.CreateInBatches(&rows, 2).Error }); err != nil {
				t.Fatalf("CreateInBatches: %v", err)
			}
			for _, r := range rows {
				checkFresh(t, w, r, t1, t2)
			}
			checkStored(t, w, t1.ID, t1)
			checkStored(t, w, t2.ID, t2)
			checkCount(t, w, 7, "retry_accounts", "1 = 1")
		}},
		{"FirstOrCreate", func(t *testing.T, _ string, db, w *gorm.DB, src *takenFirst) {
			taken := seedAccount(t, db, "taken@x")
			src.next(taken.ID)
			var a retryAccount
			if err := retried(w, func(tx *gorm.DB) error { return tx.Where(retryAccount{Email: "new@x"}).FirstOrCreate(&a).Error }); err != nil {
				t.Fatalf("FirstOrCreate: %v", err)
			}
			checkFresh(t, w, a, taken)
			checkStored(t, w, taken.ID, taken)
		}},
		{"SaveNewLineOfLoadedOrder", func(t *testing.T, _ string, db, w *gorm.DB, src *takenFirst) {
			other := retryOrder{Name: "other", Lines: []retryLine{{Item: "theirs"}}}
			mine := retryOrder{Name: "mine", Lines: []retryLine{{Item: "old"}}}
			mustCreate(t, db, &other)
			mustCreate(t, db, &mine)
			var loaded retryOrder
			if err := w.Preload("Lines").First(&loaded, "id = ?", mine.ID).Error; err != nil {
				t.Fatal(err)
			}
			loaded.Lines = append(loaded.Lines, retryLine{Item: "new"})
			src.next(other.Lines[0].ID)
			if err := retried(w, func(tx *gorm.DB) error { return tx.Save(&loaded).Error }); err != nil {
				t.Fatalf("Save: %v", err)
			}
			checkLines(t, w, other.ID, "theirs")
			checkLines(t, w, mine.ID, "old", "new")
			if got := loaded.Lines[1].ID; got == other.Lines[0].ID || got.IsZero() {
				t.Errorf("new line holds key %s (taken %s)", got, other.Lines[0].ID)
			}
			checkCount(t, w, 1, "retry_lines", "id = ? AND item = 'new'", loaded.Lines[1].ID)
			checkCount(t, w, 1, "retry_lines", "id = ? AND item = 'old'", mine.Lines[0].ID)
		}},
		{"NestedCreate", func(t *testing.T, _ string, db, w *gorm.DB, src *takenFirst) {
			other := retryOrder{Name: "other", Lines: []retryLine{{Item: "theirs"}}, Tags: []retryTag{{Name: "theirs"}}}
			mustCreate(t, db, &other)
			buyer := seedAccount(t, db, "buyer@x")
			// Keys are drawn for the order, its belongs-to buyer (taken,
			// then retried), and, the order's key being taken, for the
			// whole Create again: order, buyer, its two lines (one taken,
			// so both again), its tag (taken) and the tag again.
			src.next(other.ID, buyer.ID, 0, 0, 0, other.Lines[0].ID, 0, 0, 0, other.Tags[0].ID)
			o := retryOrder{Name: "mine", Buyer: &retryAccount{Email: "new@x"},
				Lines: []retryLine{{Item: "a"}, {Item: "b"}}, Tags: []retryTag{{Name: "x"}}}
			if err := retried(w, func(tx *gorm.DB) error { return tx.Create(&o).Error }); err != nil {
				t.Fatalf("Create with associations: %v", err)
			}
			checkLines(t, w, other.ID, "theirs")
			checkLines(t, w, o.ID, "a", "b")
			checkTags(t, w, other.ID, "theirs")
			checkTags(t, w, o.ID, "x")
			checkStored(t, w, buyer.ID, buyer)
			checkFresh(t, w, *o.Buyer, buyer)
			checkCount(t, w, 1, "retry_orders", "id = ? AND buyer_id = ? AND name = 'mine'", o.ID, o.Buyer.ID)
		}},
		{"OtherUniqueKeyNotRetried", func(t *testing.T, _ string, db, w *gorm.DB, src *takenFirst) {
			seedAccount(t, db, "dup@x")
			src.next()
			dup := retryAccount{Email: "dup@x"}
			err := w.Transaction(func(tx *gorm.DB) error { return retried(tx, func(tx *gorm.DB) error { return tx.Create(&dup).Error }) })
			if !isUniqueViolation(err) {
				t.Fatalf("Create with a taken email: %v; want the database's unique violation", err)
			}
			if strings.Contains(err.Error(), "gormtype") || src.drawn() != 1 {
				t.Errorf("error %q after %d draws; want the driver's error after 1 draw", err, src.drawn())
			}
			if !dup.ID.IsZero() {
				t.Errorf("the failed Create left the fresh key %s in the struct; want zero", dup.ID)
			}
		}},
	}
	for _, u := range upsertForms {
		for _, n := range []int{1, 2} {
			name := fmt.Sprintf("Upsert%s/%dRows", u.name, n)
			cases = append(cases, retryCase{name + "/FreshKeyTaken", func(t *testing.T, dialect string, db, w *gorm.DB, src *takenFirst) {
				taken := seedAccount(t, db, "taken@x")
				rows := []retryAccount{{Email: "n1@x", Name: "new"}, {Email: "n2@x", Name: "new"}}[:n]
				if !upsertAllowed(dialect, u.oc, n) {
					checkRefused(t, retried(w, func(tx *gorm.DB) error { return tx.Clauses(u.oc).Create(&rows).Error }), gormtype.ErrRefused, "retry_accounts", "NewHUID")
					checkStored(t, w, taken.ID, taken)
					checkCount(t, w, 1, "retry_accounts", "1 = 1")
					return
				}
				src.next(taken.ID, taken.ID)
				if err := retried(w, func(tx *gorm.DB) error { return tx.Clauses(u.oc).Create(&rows).Error }); err != nil {
					t.Fatalf("upsert: %v", err)
				}
				checkStored(t, w, taken.ID, taken)
				for _, r := range rows {
					checkFresh(t, w, r, taken)
				}
			}})
			// The email of the first row is taken, and the fresh key of
			// the second: the upsert updates the row of the email and
			// stores the second row under a new key.
			cases = append(cases, retryCase{name + "/EmailTaken", func(t *testing.T, dialect string, db, w *gorm.DB, src *takenFirst) {
				existing := seedAccount(t, db, "old@x")
				taken := seedAccount(t, db, "taken@x")
				rows := []retryAccount{{Email: "old@x", Name: "renamed"}, {Email: "n@x", Name: "new"}}[:n]
				if !upsertAllowed(dialect, u.oc, n) {
					checkRefused(t, retried(w, func(tx *gorm.DB) error { return tx.Clauses(u.oc).Create(&rows).Error }), gormtype.ErrRefused, "retry_accounts", "NewHUID")
					checkStored(t, w, existing.ID, existing)
					checkCount(t, w, 2, "retry_accounts", "1 = 1")
					return
				}
				src.next(taken.ID)
				if err := retried(w, func(tx *gorm.DB) error { return tx.Clauses(u.oc).Create(&rows).Error }); err != nil {
					t.Fatalf("upsert: %v", err)
				}
				checkStored(t, w, taken.ID, taken)
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
				checkStored(t, w, existing.ID, want)
				// The struct holds the stored row's key: returned by
				// PostgreSQL and SQLite, read back on MySQL.
				if rows[0].ID != existing.ID {
					t.Errorf("upserted struct holds key %s, the stored row %s", rows[0].ID, existing.ID)
				}
				checkCount(t, w, int64(n)+1, "retry_accounts", "1 = 1") // the existing, the taken and the new rows
			}})
		}
	}
	return cases
}()

func checkLines(t *testing.T, db *gorm.DB, order gormtype.HUID, items ...string) {
	t.Helper()
	var got []string
	if err := db.Model(&retryLine{}).Where("order_id = ?", order).Order("item").Pluck("item", &got).Error; err != nil {
		t.Fatal(err)
	}
	if want := slices.Sorted(slices.Values(items)); !slices.Equal(got, want) {
		t.Errorf("order %s has lines %v, want %v", order, got, want)
	}
}

func checkTags(t *testing.T, db *gorm.DB, order gormtype.HUID, names ...string) {
	t.Helper()
	var got []string
	err := db.Table("retry_tags").Joins("JOIN retry_order_tags j ON j.retry_tag_id = retry_tags.id").
		Where("j.retry_order_id = ?", order).Order("name").Pluck("name", &got).Error
	if err != nil {
		t.Fatal(err)
	}
	if want := slices.Sorted(slices.Values(names)); !slices.Equal(got, want) {
		t.Errorf("order %s has tags %v, want %v", order, got, want)
	}
}

// retryInv has a fresh field besides its key.
type retryInv struct {
	ID    gormtype.HUID    `gorm:"primaryKey"`
	Trace gormtype.SCRU128 `sortid:"auto"`
	Name  string           `gorm:"size:50"`
}

func (retryInv) TableName() string { return "retry_invs" }

// TestGormRetryKeyTakenEveryTime: when every key drawn for a Create is
// taken, it fails with ErrKeyTaken, which is a gorm.ErrDuplicatedKey
// naming the table, after Retries+1 draws per row, stores nothing, and
// leaves the fresh fields of the structs zero: one row and a batch, in
// GORM's own transaction, in a caller's and without one, on every dialect.
func TestGormRetryKeyTakenEveryTime(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		for _, skip := range []bool{false, true} {
			t.Run(fmt.Sprintf("SkipDefaultTransaction=%v", skip), func(t *testing.T) {
				src := &takenFirst{}
				db := d.open(t, &gorm.Config{SkipDefaultTransaction: skip}, src.plugin(1))
				resetTables(t, db, &retryInv{})
				taken := retryInv{ID: gormtype.NewHUID(), Trace: gormtype.NewSCRU128(), Name: "taken"}
				mustCreate(t, db, &taken)
				for _, inTx := range []bool{false, true} {
					for _, rows := range [][]retryInv{{{Name: "one"}}, {{Name: "a"}, {Name: "b"}}} {
						src.forget()
						src.next(taken.ID, taken.ID, taken.ID, taken.ID)
						create := func(tx *gorm.DB) error { return retried(tx, func(tx *gorm.DB) error { return tx.Create(&rows).Error }) }
						var err error
						if inTx {
							err = db.Transaction(create)
						} else {
							err = create(db)
						}
						if !checkRefused(t, err, gormtype.ErrKeyTaken, "retry_invs") || !errors.Is(err, gorm.ErrDuplicatedKey) || src.drawn() != 2*len(rows) {
							t.Fatalf("Create of %d rows (caller's transaction %v): %v after %d draws; want ErrKeyTaken, a gorm.ErrDuplicatedKey, after %d",
								len(rows), inTx, err, src.drawn(), 2*len(rows))
						}
						for _, r := range rows {
							if !r.ID.IsZero() || !r.Trace.IsZero() {
								t.Errorf("row %s after ErrKeyTaken: ID %s, Trace %s; want both zero, as before the call", r.Name, r.ID, r.Trace)
							}
						}
					}
				}
				checkCount(t, db, 1, "retry_invs", "1 = 1")
				checkStored(t, db, taken.ID, taken)
			})
		}
	})
}

// retryObserved is the table of TestGormRetryOnCollision alone: the test
// runs in parallel with others.
type retryObserved struct {
	ID    gormtype.HUID `gorm:"primaryKey"`
	Email string        `gorm:"size:100;uniqueIndex"`
}

func (retryObserved) TableName() string { return "retry_observed" }

// TestGormRetryOnCollision: in GORM's transaction and a caller's,
// AutoID.OnCollision is called once per collision of a fresh key, with the
// table and the driver's unique violation: twice for a Create that
// collides twice and then succeeds, Retries+1 times for one that ends with
// ErrKeyTaken, once for a plain Create or with Retries < 0, never without
// a collision.
func TestGormRetryOnCollision(t *testing.T) {
	t.Parallel()
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src := &takenFirst{}
		log := &collisionLog{}
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{GenerateHUID: src.generate, OnCollision: log.record})
		off := d.open(t, &gorm.Config{}, gormtype.AutoID{Retries: -1, GenerateHUID: src.generate, OnCollision: log.record})
		resetTables(t, db, &retryObserved{})
		a, b := retryObserved{ID: gormtype.NewHUID(), Email: "a"}, retryObserved{ID: gormtype.NewHUID(), Email: "b"}
		mustCreate(t, db, []*retryObserved{&a, &b})
		check := func(step string, wantCalls int) {
			t.Helper()
			tables, errs := log.take()
			if len(tables) != wantCalls {
				t.Errorf("%s: %d OnCollision calls, want %d", step, len(tables), wantCalls)
			}
			for i, table := range tables {
				if table != "retry_observed" || !isUniqueViolation(errs[i]) {
					t.Errorf("%s: call %d with table %q, error %v", step, i+1, table, errs[i])
				}
			}
		}

		src.next(a.ID, b.ID)
		if err := retried(db, func(tx *gorm.DB) error { return tx.Create(&retryObserved{Email: "c@example.com"}).Error }); err != nil {
			t.Fatalf("two collisions, then a fresh key: %v", err)
		}
		check("two collisions", 2)

		err := db.Transaction(func(tx *gorm.DB) error {
			src.next(a.ID)
			return retried(tx, func(tx *gorm.DB) error { return tx.Create(&retryObserved{Email: "d@example.com"}).Error })
		})
		if err != nil {
			t.Fatalf("a collision in a caller's transaction: %v", err)
		}
		check("caller's transaction", 1)

		src.next(a.ID, a.ID, a.ID, a.ID)
		err = retried(db, func(tx *gorm.DB) error { return tx.Create(&retryObserved{Email: "e@example.com"}).Error })
		checkRefused(t, err, gormtype.ErrKeyTaken, "retry_observed")
		check("every key taken", gormtype.DefaultRetries+1)

		src.next(a.ID)
		if err := retried(off, func(tx *gorm.DB) error { return tx.Create(&retryObserved{Email: "f@example.com"}).Error }); !errors.Is(err, gormtype.ErrKeyTaken) {
			t.Errorf("Retries < 0 with a taken key: %v; want ErrKeyTaken after one attempt", err)
		}
		check("Retries < 0", 1)

		src.next(a.ID)
		if err := db.Create(&retryObserved{Email: "f@example.com"}).Error; !errors.Is(err, gormtype.ErrKeyTaken) {
			t.Errorf("a plain Create with a taken key: %v; want ErrKeyTaken", err)
		}
		check("plain Create", 1)

		mustCreate(t, db, &retryObserved{Email: "g@example.com"})
		check("no collision", 0)
		src.checkDrawn(t)
		checkCount(t, db, 5, "retry_observed", "1 = 1")
	})
}

// TestGormRetryTranslateError: with gorm.Config{TranslateError: true} a
// taken fresh key is still retried, under every upsert form too, and a
// violation of another unique key reaches the caller translated
// (gorm.ErrDuplicatedKey) after one draw.
func TestGormRetryTranslateError(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src := &takenFirst{}
		db := d.open(t, &gorm.Config{TranslateError: true}, src.plugin(0))
		t.Run("Create", func(t *testing.T) {
			resetTables(t, db, &retryAccount{})
			taken := seedAccount(t, db, "taken@x")
			src.next(taken.ID)
			a := retryAccount{Email: "new@x", Name: "new"}
			if err := retried(db, func(tx *gorm.DB) error { return tx.Create(&a).Error }); err != nil {
				t.Fatalf("Create with TranslateError: %v", err)
			}
			src.checkDrawn(t)
			checkFresh(t, db, a, taken)
			checkStored(t, db, taken.ID, taken)
		})
		for _, u := range upsertForms {
			t.Run(u.name, func(t *testing.T) {
				resetTables(t, db, &retryAccount{})
				taken := seedAccount(t, db, "taken@x")
				src.forget()
				src.next(taken.ID)
				a := retryAccount{Email: "new@x", Name: "new"}
				err := retried(db, func(tx *gorm.DB) error { return tx.Clauses(u.oc).Create(&a).Error })
				checkStored(t, db, taken.ID, taken)
				if !upsertAllowed(d.name, u.oc, 1) {
					checkRefused(t, err, gormtype.ErrRefused, "retry_accounts", "NewHUID")
					checkCount(t, db, 1, "retry_accounts", "1 = 1")
					return
				}
				if err != nil {
					t.Fatalf("upsert: %v", err)
				}
				src.checkDrawn(t)
				checkFresh(t, db, a, taken)
				checkCount(t, db, 1, "retry_accounts", "email = 'new@x'")
			})
		}
		t.Run("OtherKeyTranslated", func(t *testing.T) {
			resetTables(t, db, &retryAccount{})
			seedAccount(t, db, "dup@x")
			src.forget()
			src.next()
			err := retried(db, func(tx *gorm.DB) error { return tx.Create(&retryAccount{Email: "dup@x"}).Error })
			if !errors.Is(err, gorm.ErrDuplicatedKey) || errors.Is(err, gormtype.ErrKeyTaken) || src.drawn() != 1 {
				t.Errorf("duplicate email: %v after %d draws; want gorm.ErrDuplicatedKey after 1", err, src.drawn())
			}
		})
	})
}

// TestGormRetryPrepareStmt: collisions with PrepareStmt: true, in GORM's
// own transaction (one row and a batch) and in a caller's.
func TestGormRetryPrepareStmt(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src := &takenFirst{}
		db := d.open(t, &gorm.Config{PrepareStmt: true}, src.plugin(0))
		resetTables(t, db, &retryAccount{})
		taken := seedAccount(t, db, "taken@x")
		for i, w := range []func(func(*gorm.DB) error) error{
			func(f func(*gorm.DB) error) error { return f(db) },
			func(f func(*gorm.DB) error) error { return db.Transaction(f) },
		} {
			src.next(taken.ID)
			one := retryAccount{Email: fmt.Sprintf("one%d@x", i)}
			batch := []retryAccount{{Email: fmt.Sprintf("b%da@x", i)}, {Email: fmt.Sprintf("b%db@x", i)}}
			err := w(func(tx *gorm.DB) error {
				if err := retried(tx, func(tx *gorm.DB) error { return tx.Create(&one).Error }); err != nil {
					return fmt.Errorf("one row: %w", err)
				}
				src.next(taken.ID)
				return retried(tx, func(tx *gorm.DB) error { return tx.Create(&batch).Error })
			})
			if err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
			src.checkDrawn(t)
			checkFresh(t, db, one, taken)
			checkFresh(t, db, batch[0], taken)
			checkFresh(t, db, batch[1], taken)
		}
		checkStored(t, db, taken.ID, taken)
		checkCount(t, db, 7, "retry_accounts", "1 = 1")
	}, "postgres", "mysql")
}

// retryPair has a composite primary key: a caller-set tenant and a fresh ID.
type retryPair struct {
	Tenant int64         `gorm:"primaryKey;autoIncrement:false"`
	ID     gormtype.HUID `gorm:"primaryKey"`
	Name   string        `gorm:"size:50"`
}

func (retryPair) TableName() string { return "retry_pairs" }

// TestGormRetryCompositeKey: a taken (tenant, id) is retried, in GORM's
// transaction and in a caller's; RowsAffected counts the rows stored.
func TestGormRetryCompositeKey(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src := &takenFirst{}
		db := d.open(t, &gorm.Config{}, src.plugin(0))
		resetTables(t, db, &retryPair{})
		other := retryPair{Tenant: 1, Name: "other"}
		mustCreate(t, db, &other)
		for _, tx := range []string{"gorm", "caller"} {
			src.next(other.ID)
			rows := []retryPair{{Tenant: 1, Name: "a-" + tx}, {Tenant: 1, Name: "b-" + tx}}
			var res *gorm.DB
			var err error
			create := func(w *gorm.DB) error { res = w.Create(&rows); return res.Error }
			if tx == "gorm" {
				err = retried(db, create)
			} else {
				err = db.Transaction(func(w *gorm.DB) error { return retried(w, create) })
			}
			if err != nil || res.RowsAffected != 2 {
				t.Fatalf("%s tx: Create: %v, RowsAffected %d; want 2", tx, err, res.RowsAffected)
			}
			src.checkDrawn(t)
			for _, r := range rows {
				if r.ID == other.ID {
					t.Errorf("%s kept the taken key", r.Name)
				}
				checkCount(t, db, 1, "retry_pairs", "tenant = 1 AND id = ? AND name = ?", r.ID, r.Name)
			}
		}
		checkCount(t, db, 1, "retry_pairs", "tenant = 1 AND id = ? AND name = 'other'", other.ID)
		checkCount(t, db, 5, "retry_pairs", "1 = 1")
	})
}

// TestGormRetryMixedKeys: a statement that mixes a key the caller set and
// a fresh one cannot tell from the error whose key was taken: the Create
// returns the driver's unique violation after one draw, not ErrKeyTaken,
// stores nothing and leaves the fresh key zero, whether the fresh key or
// the caller's was taken; without a collision both rows are stored.
func TestGormRetryMixedKeys(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src := &takenFirst{}
		db := d.open(t, &gorm.Config{}, src.plugin(0))
		resetTables(t, db, &retryAccount{})
		taken := seedAccount(t, db, "taken@x")
		for _, c := range []struct {
			name  string
			set   gormtype.HUID
			fresh gormtype.HUID // the first fresh key drawn
		}{
			{"fresh key taken", gormtype.NewHUID(), taken.ID},
			{"caller's key taken", taken.ID, 0},
		} {
			src.forget()
			src.next(c.fresh)
			rows := []retryAccount{{ID: c.set, Email: "set@x"}, {Email: "fresh@x"}}
			err := retried(db, func(tx *gorm.DB) error { return tx.Create(&rows).Error })
			if !isUniqueViolation(err) || errors.Is(err, gormtype.ErrKeyTaken) || src.drawn() != 1 {
				t.Errorf("%s: Create: %v after %d draws; want the driver's unique violation after 1", c.name, err, src.drawn())
			}
			if rows[0].ID != c.set || !rows[1].ID.IsZero() {
				t.Errorf("%s: keys after the failed Create %s, %s; want the caller's %s and zero", c.name, rows[0].ID, rows[1].ID, c.set)
			}
			checkStored(t, db, taken.ID, taken)
			checkCount(t, db, 1, "retry_accounts", "1 = 1")
		}
		src.next()
		rows := []retryAccount{{ID: gormtype.NewHUID(), Email: "set@x"}, {Email: "fresh@x"}}
		if res := db.Create(&rows); res.Error != nil || res.RowsAffected != 2 {
			t.Errorf("Create: %v, RowsAffected %d; want 2", res.Error, res.RowsAffected)
		}
		checkFresh(t, db, rows[1], taken)
		checkCount(t, db, 3, "retry_accounts", "1 = 1")
	})
}

// TestGormRetryOffNeverUpserts: with retries off, a taken fresh key is
// ErrKeyTaken after one attempt, never an upsert of the row that holds it.
func TestGormRetryOffNeverUpserts(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src := &takenFirst{}
		db := d.open(t, &gorm.Config{}, src.plugin(-1))
		resetTables(t, db, &retryAccount{})
		for _, u := range upsertForms {
			taken := seedAccount(t, db, "taken-"+u.name+"@x")
			src.next(taken.ID)
			err := retried(db, func(tx *gorm.DB) error {
				return tx.Clauses(u.oc).Create(&retryAccount{Email: "new-" + u.name + "@x", Name: "new"}).Error
			})
			if !upsertAllowed(d.name, u.oc, 1) {
				checkRefused(t, err, gormtype.ErrRefused, "retry_accounts", "NewHUID")
			} else if !isUniqueViolation(err) || !errors.Is(err, gormtype.ErrKeyTaken) {
				t.Errorf("%s with a taken key and no retries: %v; want ErrKeyTaken with the driver's message", u.name, err)
			}
			checkStored(t, db, taken.ID, taken)
			checkCount(t, db, 0, "retry_accounts", "email = ?", "new-"+u.name+"@x")
		}
	})
}

// TestGormRetryConcurrent: many goroutines share one *gorm.DB; every fifth
// key drawn is taken. Every Create succeeds and stores its rows once.
func TestGormRetryConcurrent(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		var mu sync.Mutex
		var count int
		var taken retryAccount
		gen := func() (idtype.HUID, error) {
			mu.Lock()
			defer mu.Unlock()
			count++
			if count%5 == 0 && !taken.ID.IsZero() {
				return taken.ID.ID(), nil
			}
			return idtype.GenerateHUID()
		}
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{Retries: 30, GenerateHUID: gen})
		resetTables(t, db, &retryAccount{})
		seeded := seedAccount(t, db, "taken@x")
		mu.Lock()
		taken = seeded
		mu.Unlock()
		var wg sync.WaitGroup
		errs := make(chan error, 64)
		for g := range 8 {
			wg.Go(func() {
				for i := range 8 {
					var err error
					switch i % 3 {
					case 0:
						err = retried(db, func(tx *gorm.DB) error { return tx.Create(&retryAccount{Email: fmt.Sprintf("g%d-%d@x", g, i)}).Error })
					case 1:
						err = retried(db, func(tx *gorm.DB) error {
							return tx.Create(&[]retryAccount{{Email: fmt.Sprintf("g%d-%da@x", g, i)}, {Email: fmt.Sprintf("g%d-%db@x", g, i)}}).Error
						})
					default:
						err = db.Transaction(func(tx *gorm.DB) error {
							return retried(tx, func(tx *gorm.DB) error { return tx.Create(&retryAccount{Email: fmt.Sprintf("g%d-%d@x", g, i)}).Error })
						})
					}
					if err != nil {
						errs <- err
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		checkStored(t, db, seeded.ID, seeded)
		checkCount(t, db, 1+8*11, "retry_accounts", "1 = 1")
	}, "postgres", "mysql")
}

// TestGormRetryLibPQ: lib/pq under gorm.io/driver/postgres: AutoID reads
// its errors' key through pgretry, so a batch's taken key is retried and
// the other row is untouched.
func TestGormRetryLibPQ(t *testing.T) {
	src := &takenFirst{}
	db := openGorm(t, postgres.New(postgres.Config{DriverName: "postgres", DSN: pgtest.URL(t)}), &gorm.Config{}, src.plugin(0))
	resetTables(t, db, &retryAccount{})
	taken := seedAccount(t, db, "taken@x")
	rows := []retryAccount{{Email: "a@x"}, {Email: "b@x"}}
	err := db.Transaction(func(tx *gorm.DB) error {
		src.next(taken.ID)
		return retried(tx, func(tx *gorm.DB) error { return tx.Create(&rows).Error })
	})
	if err != nil || src.drawn() != 4 {
		t.Errorf("batch through lib/pq with a taken key: %v after %d draws; want a retry, 4 draws", err, src.drawn())
	}
	src.checkDrawn(t)
	checkStored(t, db, taken.ID, taken)
	for _, r := range rows {
		checkFresh(t, db, r, taken)
	}
}

// Models keyed by each kind of gormtype ID field.
type retryPtrKey struct {
	ID   *gormtype.HUID `gorm:"primaryKey"`
	Name string         `gorm:"size:50"`
}

func (retryPtrKey) TableName() string { return "retry_ptr_keys" }

type retryNullKey struct {
	ID   gormtype.NullHUID `gorm:"primaryKey"`
	Name string            `gorm:"size:50"`
}

func (retryNullKey) TableName() string { return "retry_null_keys" }

type retryUUIDKey struct {
	ID   gormtype.SCRU128 `gorm:"primaryKey"`
	Name string           `gorm:"size:50"`
}

func (retryUUIDKey) TableName() string { return "retry_uuid_keys" }

type retryBytesKey struct {
	ID   gormtype.SCRU128Bytes `gorm:"primaryKey"`
	Name string                `gorm:"size:50"`
}

func (retryBytesKey) TableName() string { return "retry_bytes_keys" }

// TestGormRetryKeyKinds: a pointer HUID key, a NullHUID key, a SCRU128 key
// (uuid on PostgreSQL, binary(16) elsewhere) and a SCRU128Bytes key, each
// forced to collide once, in GORM's transaction and in a caller's: the row
// is stored once under a fresh key and the other row is untouched.
func TestGormRetryKeyKinds(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src := &takenFirst{}
		db := d.open(t, &gorm.Config{}, src.plugin(0))
		resetTables(t, db, &retryPtrKey{}, &retryNullKey{}, &retryUUIDKey{}, &retryBytesKey{})
		for _, inTx := range []bool{false, true} {
			run := func(f func(w *gorm.DB)) {
				if !inTx {
					f(db)
					return
				}
				if err := db.Transaction(func(w *gorm.DB) error { f(w); return nil }); err != nil {
					t.Fatal(err)
				}
			}
			run(func(w *gorm.DB) {
				other := retryPtrKey{Name: "other"}
				mustCreate(t, w, &other)
				src.next(*other.ID)
				mine := retryPtrKey{Name: "mine"}
				if err := retried(w, func(tx *gorm.DB) error { return tx.Create(&mine).Error }); err != nil || mine.ID == nil || *mine.ID == *other.ID {
					t.Errorf("pointer key (tx %v): %v, key %v", inTx, err, mine.ID)
				}
			})
			run(func(w *gorm.DB) {
				other := retryNullKey{Name: "other"}
				mustCreate(t, w, &other)
				src.next(other.ID.V)
				mine := retryNullKey{Name: "mine"}
				if err := retried(w, func(tx *gorm.DB) error { return tx.Create(&mine).Error }); err != nil || !mine.ID.Valid || mine.ID == other.ID {
					t.Errorf("NullHUID key (tx %v): %v, key %v", inTx, err, mine.ID)
				}
			})
			run(func(w *gorm.DB) {
				other := retryUUIDKey{Name: "other"}
				mustCreate(t, w, &other)
				src.nextSCRU128(other.ID.ID())
				mine := retryUUIDKey{Name: "mine"}
				if err := retried(w, func(tx *gorm.DB) error { return tx.Create(&mine).Error }); err != nil || mine.ID == other.ID {
					t.Errorf("SCRU128 key (tx %v): %v, key %v", inTx, err, mine.ID)
				}
			})
			run(func(w *gorm.DB) {
				other := retryBytesKey{Name: "other"}
				mustCreate(t, w, &other)
				src.nextSCRU128(other.ID.ID())
				mine := retryBytesKey{Name: "mine"}
				if err := retried(w, func(tx *gorm.DB) error { return tx.Create(&mine).Error }); err != nil || mine.ID == other.ID {
					t.Errorf("SCRU128Bytes key (tx %v): %v, key %v", inTx, err, mine.ID)
				}
			})
		}
		src.checkDrawn(t)
		for _, m := range []any{&retryPtrKey{}, &retryNullKey{}, &retryUUIDKey{}, &retryBytesKey{}} {
			var names []string
			if err := db.Model(m).Order("name").Pluck("name", &names).Error; err != nil {
				t.Fatal(err)
			}
			if strings.Join(names, ",") != "mine,mine,other,other" {
				t.Errorf("%T: names %v", m, names)
			}
		}
	})
}

// retryBuyer has a unique email and no hooks; retryPurchase belongs to one
// and has pets.
type retryBuyer struct {
	ID    gormtype.HUID `gorm:"primaryKey"`
	Email string        `gorm:"size:100;uniqueIndex"`
}

func (retryBuyer) TableName() string { return "retry_buyers" }

type retryPurchase struct {
	ID      gormtype.HUID `gorm:"primaryKey"`
	Name    string        `gorm:"size:50"`
	BuyerID gormtype.HUID
	Buyer   *retryBuyer `gorm:"foreignKey:BuyerID"`
	Items   []retryItem `gorm:"foreignKey:PurchaseID"`
}

func (retryPurchase) TableName() string { return "retry_purchases" }

type retryItem struct {
	ID         gormtype.HUID `gorm:"primaryKey"`
	PurchaseID gormtype.HUID `gorm:"index"`
	Name       string        `gorm:"size:50"`
}

func (retryItem) TableName() string { return "retry_items" }

// TestGormRetryWithoutTransaction: with SkipDefaultTransaction and no
// caller transaction, (a) CreateInBatches whose second batch collides and
// (b) a Create whose belongs-to buyer is stored before the purchase's key
// collides: every row is stored exactly once and the purchase points at
// its buyer.
func TestGormRetryWithoutTransaction(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src := &takenFirst{}
		db := d.open(t, &gorm.Config{SkipDefaultTransaction: true, DisableForeignKeyConstraintWhenMigrating: true}, src.plugin(0))
		resetTables(t, db, &retryBuyer{}, &retryPurchase{}, &retryItem{})
		taken := retryBuyer{ID: gormtype.NewHUID(), Email: "taken@x"}
		mustCreate(t, db, &taken)
		rows := make([]retryBuyer, 5)
		for i := range rows {
			rows[i] = retryBuyer{Email: string(rune('a'+i)) + "@x"}
		}
		src.next(0, 0, taken.ID)
		if err := retried(db, func(tx *gorm.DB) error { return tx.CreateInBatches(&rows, 2).Error }); err != nil {
			t.Fatalf("CreateInBatches: %v", err)
		}
		src.checkDrawn(t)
		for _, r := range rows {
			checkCount(t, db, 1, "retry_buyers", "id = ? AND email = ?", r.ID, r.Email)
		}
		other := retryPurchase{Name: "other", Buyer: &retryBuyer{Email: "ob@x"}}
		mustCreate(t, db, &other)
		// The purchase's key is drawn first, and taken; its buyer, stored
		// by the statement before the purchase's INSERT, stays stored.
		src.next(other.ID)
		p := retryPurchase{Name: "mine", Buyer: &retryBuyer{Email: "buyer@x"}, Items: []retryItem{{Name: "p"}}}
		if err := retried(db, func(tx *gorm.DB) error { return tx.Create(&p).Error }); err != nil {
			t.Fatalf("Create: %v", err)
		}
		src.checkDrawn(t)
		checkCount(t, db, 1, "retry_buyers", "email = 'buyer@x'")
		checkCount(t, db, 1, "retry_buyers", "id = ? AND email = 'buyer@x'", p.Buyer.ID)
		checkCount(t, db, 1, "retry_purchases", "id = ? AND buyer_id = ? AND name = 'mine'", p.ID, p.Buyer.ID)
		checkCount(t, db, 1, "retry_purchases", "id = ? AND name = 'other'", other.ID)
		checkCount(t, db, 1, "retry_items", "purchase_id = ?", p.ID)
		checkCount(t, db, 8, "retry_buyers", "1 = 1")
	})
}

// TestGormRetryAfterSnapshot: in a caller's REPEATABLE READ (or
// SERIALIZABLE) transaction that has read already, another connection
// commits a row with the key AutoID draws next; the insert still gets a
// fresh key.
func TestGormRetryAfterSnapshot(t *testing.T) {
	levels := map[string][]sql.IsolationLevel{
		"postgres": {sql.LevelRepeatableRead, sql.LevelSerializable},
		"mysql":    {sql.LevelRepeatableRead}, // MariaDB's SERIALIZABLE read locks would block the other connection
	}
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		for _, iso := range levels[d.name] {
			t.Run(strings.ReplaceAll(iso.String(), " ", "-"), func(t *testing.T) {
				src := &takenFirst{}
				db := d.open(t, &gorm.Config{}, src.plugin(0))
				resetTables(t, db, &retryAccount{})
				var created, taken retryAccount
				err := db.Transaction(func(tx *gorm.DB) error {
					if n := countRows(t, tx, "retry_accounts", "1 = 1"); n != 0 { // takes the snapshot
						return fmt.Errorf("%d accounts before", n)
					}
					taken = seedAccount(t, db, "taken@x") // another connection
					src.next(taken.ID)
					created = retryAccount{Email: "new@x"}
					return retried(tx, func(tx *gorm.DB) error { return tx.Create(&created).Error })
				}, &sql.TxOptions{Isolation: iso})
				if err != nil {
					t.Fatalf("%s transaction: %v", iso, err)
				}
				src.checkDrawn(t)
				checkFresh(t, db, created, taken)
				checkStored(t, db, taken.ID, taken)
			})
		}
	}, "postgres", "mysql")
}

// retrySnapAccount's hook reads in the Create's transaction, taking its
// snapshot, and then lets another connection take the key AutoID drew.
type retrySnapAccount struct {
	ID    gormtype.HUID `gorm:"primaryKey"`
	Email string
	take  func(gormtype.HUID)
}

func (retrySnapAccount) TableName() string { return "retry_snap_accounts" }

func (a *retrySnapAccount) BeforeCreate(tx *gorm.DB) error {
	var n int64
	if err := tx.Model(&retrySnapAccount{}).Count(&n).Error; err != nil {
		return err
	}
	a.take(a.ID)
	return nil
}

// TestGormRetryOwnTransactionSnapshot: in the transaction GORM opens for a
// single-row Create, a key taken by a row committed after the
// transaction's first statement (the hook's read) is retried under READ
// COMMITTED and REPEATABLE READ alike: AutoID runs the Create again in a
// new transaction. The other row is untouched.
func TestGormRetryOwnTransactionSnapshot(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		for _, iso := range []string{"READ COMMITTED", "REPEATABLE READ"} {
			t.Run(iso, func(t *testing.T) {
				src := &takenFirst{}
				db := d.open(t, &gorm.Config{}, src.plugin(0))
				sqlDB, err := db.DB()
				if err != nil {
					t.Fatal(err)
				}
				sqlDB.SetMaxOpenConns(1)
				mustExec(t, db, "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL "+iso)
				resetTables(t, db, &retrySnapAccount{})
				other := pgtest.StdDB(t)
				taken := gormtype.NewHUID()
				src.next(taken)
				var once sync.Once
				a := retrySnapAccount{Email: "new@x", take: func(h gormtype.HUID) {
					once.Do(func() {
						if _, err := other.Exec("INSERT INTO retry_snap_accounts (id, email) VALUES ($1, 'other@x')", int64(h)); err != nil {
							t.Errorf("take %s: %v", h, err)
						}
					})
				}}
				if err := retried(db, func(tx *gorm.DB) error { return tx.Create(&a).Error }); err != nil || a.ID == taken {
					t.Fatalf("Create: %v, key %s (taken %s)", err, a.ID, taken)
				}
				src.checkDrawn(t)
				checkCount(t, db, 1, "retry_snap_accounts", "id = ? AND email = 'other@x'", taken)
				checkCount(t, db, 1, "retry_snap_accounts", "id = ? AND email = 'new@x'", a.ID)
			})
		}
	}, "postgres")
}
