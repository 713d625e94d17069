package gormtype_test

// Guarantee 2, retry: when the driver says a unique key with a fresh
// column is taken, the Create fails with ErrKeyTaken, and
// gormtype.Transaction runs its function again with new values, up to
// Retries times (0: DefaultRetries; negative: never), then returns
// ErrKeyTaken; OnCollision is called once per collision; a violation of
// another key is returned as is.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"gorm.io/gorm"

	"github.com/sortid/sortid/gormtype"
	"github.com/sortid/sortid/idtype"
)

// TestRetryBounds: how many times a Create with taken keys is tried, what
// it returns and how often OnCollision is called, by Retries.
func TestRetryBounds(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		retries    int
		taken      int // draws that return the taken key
		wantDraws  int
		wantErr    error // nil: success
		collisions int
	}{
		{"no collision", 0, 0, 1, nil, 0},
		{"default retries (3, as documented), succeeds on the last", 0, 3, 4, nil, 3},
		{"default retries, used up", 0, 4, 4, gormtype.ErrKeyTaken, 4},
		{"one retry, succeeds", 1, 1, 2, nil, 1},
		{"one retry, used up", 1, 5, 2, gormtype.ErrKeyTaken, 2},
		{"five retries", 5, 5, 6, nil, 5},
		{"five retries, used up", 5, 6, 6, gormtype.ErrKeyTaken, 6},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			src := &keySource{}
			db := openDB(t, nil, src.plugin(c.retries), &Account{})
			taken := seedAccount(t, db, "taken@x")
			queue := make([]gormtype.HUID, c.taken)
			for i := range queue {
				queue[i] = taken.ID
			}
			src.next(queue...)
			a := Account{Email: "new@x"}
			err := retried(db, func(tx *gorm.DB) error { return tx.Create(&a).Error })
			if h, _ := src.draws(); h != c.wantDraws {
				t.Errorf("%d draws, want %d", h, c.wantDraws)
			}
			if got := len(src.calls()); got != c.collisions {
				t.Errorf("%d OnCollision calls, want %d", got, c.collisions)
			}
			checkAccount(t, db, taken)
			if c.wantErr == nil {
				if err != nil {
					t.Fatalf("Create: %v", err)
				}
				checkFresh(t, db, a, taken)
				return
			}
			checkRefused(t, err, gormtype.ErrKeyTaken, "accounts")
			if !errors.Is(err, gorm.ErrDuplicatedKey) {
				t.Errorf("ErrKeyTaken %v does not wrap gorm.ErrDuplicatedKey", err)
			}
			checkCount(t, db, 0, "accounts", "email = 'new@x'")
		})
	}
}

// TestRetryDisabled: with a negative Retries Transaction runs its function
// once: a taken fresh key is ErrKeyTaken, with the driver's message, after
// one draw, and nothing is stored.
func TestRetryDisabled(t *testing.T) {
	t.Parallel()
	src := &keySource{}
	db := openDB(t, nil, src.plugin(-1), &Account{})
	taken := seedAccount(t, db, "taken@x")
	src.next(taken.ID)
	err := retried(db, func(tx *gorm.DB) error { return tx.Create(&Account{Email: "new@x"}).Error })
	if !errors.Is(err, gormtype.ErrKeyTaken) || !strings.Contains(err.Error(), "UNIQUE constraint failed") {
		t.Errorf("Create with a taken key, retries off: %v; want ErrKeyTaken with the driver's message", err)
	}
	if h, _ := src.draws(); h != 1 {
		t.Errorf("%d draws, want 1", h)
	}
	checkAccount(t, db, taken)
	checkCount(t, db, 1, "accounts", "1 = 1")
}

type ctxKey struct{}

// TestRetryOnCollisionArguments: OnCollision gets the Create's context,
// its table (as db.Table names it too) and the driver's error.
func TestRetryOnCollisionArguments(t *testing.T) {
	t.Parallel()
	for _, table := range []string{"accounts", "other_accounts"} {
		t.Run(table, func(t *testing.T) {
			t.Parallel()
			src := &keySource{}
			db := openDB(t, nil, src.plugin(0))
			if err := db.Table(table).AutoMigrate(&Account{}); err != nil {
				t.Fatal(err)
			}
			taken := Account{ID: gormtype.NewHUID(), Email: "taken@x"}
			if err := db.Table(table).Create(&taken).Error; err != nil {
				t.Fatal(err)
			}
			src.next(taken.ID)
			ctx := context.WithValue(context.Background(), ctxKey{}, "mine")
			err := gormtype.Transaction(ctx, db, func(tx *gorm.DB) error { return tx.Table(table).Create(&Account{Email: "new@x"}).Error })
			if err != nil {
				t.Fatalf("Create: %v", err)
			}
			src.checkDrawn(t, table, 1)
			for _, c := range src.calls() {
				if c.ctx == nil || c.ctx.Value(ctxKey{}) != "mine" {
					t.Errorf("OnCollision got a context without the Create's value")
				}
				if !strings.Contains(c.err.Error(), table+".id") {
					t.Errorf("OnCollision error %v does not name %s.id", c.err, table)
				}
			}
		})
	}
}

// retryKey models are keyed (or auto-filled, uniquely) by each ID type.
type retryAutoRef struct {
	ID  gormtype.HUID         `gorm:"primaryKey"`
	Ref gormtype.SCRU128Bytes `gorm:"uniqueIndex" sortid:"auto"`
}

// TestRetryEveryIDType: a taken key of each type, and a taken unique auto
// field, is drawn again; the other row is untouched.
func TestRetryEveryIDType(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		model any
		table string
		run   func(t *testing.T, db *gorm.DB, src *keySource)
	}{
		{"HUID", &huidKey{}, "huid_keys", func(t *testing.T, db *gorm.DB, src *keySource) {
			other := huidKey{Name: "other"}
			mustCreate(t, db, &other)
			src.next(other.ID)
			mine := huidKey{Name: "mine"}
			mustCreate(t, db, &mine)
			if mine.ID == other.ID || mine.ID.IsZero() {
				t.Errorf("key %s after the collision with %s", mine.ID, other.ID)
			}
			checkCount(t, db, 1, "huid_keys", "id = ? AND name = 'other'", other.ID)
			checkCount(t, db, 1, "huid_keys", "id = ? AND name = 'mine'", mine.ID)
		}},
		{"pointer HUID", &ptrKey{}, "ptr_keys", func(t *testing.T, db *gorm.DB, src *keySource) {
			other := ptrKey{Name: "other"}
			mustCreate(t, db, &other)
			if other.ID == nil {
				t.Fatal("pointer key not filled")
			}
			src.next(*other.ID)
			mine := ptrKey{Name: "mine"}
			mustCreate(t, db, &mine)
			if mine.ID == nil || *mine.ID == *other.ID {
				t.Fatalf("key %v after the collision with %s", mine.ID, *other.ID)
			}
			checkCount(t, db, 1, "ptr_keys", "id = ? AND name = 'other'", *other.ID)
			checkCount(t, db, 1, "ptr_keys", "id = ? AND name = 'mine'", *mine.ID)
		}},
		{"SCRU128", &scruKey{}, "scru_keys", func(t *testing.T, db *gorm.DB, src *keySource) {
			other := scruKey{Name: "other"}
			mustCreate(t, db, &other)
			src.nextSCRU128(other.ID.ID())
			mine := scruKey{Name: "mine"}
			mustCreate(t, db, &mine)
			if mine.ID == other.ID || mine.ID.IsZero() {
				t.Errorf("key %s after the collision with %s", mine.ID, other.ID)
			}
			checkCount(t, db, 1, "scru_keys", "id = ? AND name = 'other'", other.ID)
			checkCount(t, db, 1, "scru_keys", "id = ? AND name = 'mine'", mine.ID)
		}},
		{"SCRU128Bytes", &bytesKey{}, "bytes_keys", func(t *testing.T, db *gorm.DB, src *keySource) {
			other := bytesKey{Name: "other"}
			mustCreate(t, db, &other)
			src.nextSCRU128(other.ID.ID())
			mine := bytesKey{Name: "mine"}
			mustCreate(t, db, &mine)
			if mine.ID == other.ID || mine.ID.IsZero() {
				t.Errorf("key %s after the collision with %s", mine.ID, other.ID)
			}
			checkCount(t, db, 1, "bytes_keys", "id = ? AND name = 'other'", other.ID)
			checkCount(t, db, 1, "bytes_keys", "id = ? AND name = 'mine'", mine.ID)
		}},
		{"unique auto field", &retryAutoRef{}, "retry_auto_refs", func(t *testing.T, db *gorm.DB, src *keySource) {
			other := retryAutoRef{}
			mustCreate(t, db, &other)
			src.nextSCRU128(other.Ref.ID())
			mine := retryAutoRef{}
			mustCreate(t, db, &mine)
			if mine.Ref == other.Ref || mine.Ref.IsZero() {
				t.Errorf("Ref %s after the collision with %s", mine.Ref, other.Ref)
			}
			checkCount(t, db, 1, "retry_auto_refs", "id = ? AND ref = ?", other.ID, other.Ref)
			checkCount(t, db, 1, "retry_auto_refs", "id = ? AND ref = ?", mine.ID, mine.Ref)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			src := &keySource{}
			db := openDB(t, nil, src.plugin(0), c.model)
			c.run(t, db, src)
			src.checkDrawn(t, c.table, 1)
		})
	}
}

// mustCreate creates v, with AutoID in gormtype.Transaction, which
// retries a collision.
func mustCreate(t testing.TB, db *gorm.DB, v any) {
	t.Helper()
	create := func(tx *gorm.DB) error { return tx.Create(v).Error }
	var err error
	if _, ok := db.Config.Plugins[autoIDName]; ok {
		err = retried(db, create)
	} else {
		err = create(db)
	}
	if err != nil {
		t.Fatalf("Create(%T): %v", v, err)
	}
}

// TestRetryWritePaths: a taken key is retried on every write path that
// creates rows; the taken rows are untouched, every new row stored once.
func TestRetryWritePaths(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		queue      []int // the draws: an index of a taken row, or -1 for a fresh key
		collisions int
		create     func(db *gorm.DB) ([]*Account, error)
	}{
		{"Create", []int{0}, 1, func(db *gorm.DB) ([]*Account, error) {
			a := Account{Email: "a@x"}
			return []*Account{&a}, db.Create(&a).Error
		}},
		// Three keys drawn at once: the two taken ones fail the first attempt.
		{"Create slice", []int{0, 1, -1}, 1, func(db *gorm.DB) ([]*Account, error) {
			rows := []Account{{Email: "a@x"}, {Email: "b@x"}, {Email: "c@x"}}
			return []*Account{&rows[0], &rows[1], &rows[2]}, db.Create(&rows).Error
		}},
		{"Create slice of pointers", []int{-1, 0, 1, -1}, 2, func(db *gorm.DB) ([]*Account, error) {
			rows := []*Account{{Email: "a@x"}, {Email: "b@x"}}
			return rows, db.Create(rows).Error
		}},
		// Batches of 2: the first and the second batch each collide once.
		{"CreateInBatches", []int{0, -1, -1, -1, 1}, 2, func(db *gorm.DB) ([]*Account, error) {
			rows := []Account{{Email: "a@x"}, {Email: "b@x"}, {Email: "c@x"}, {Email: "d@x"}, {Email: "e@x"}}
			out := make([]*Account, len(rows))
			for i := range rows {
				out[i] = &rows[i]
			}
			return out, db.CreateInBatches(&rows, 2).Error
		}},
		{"FirstOrCreate", []int{0, 1}, 2, func(db *gorm.DB) ([]*Account, error) {
			var a Account
			return []*Account{&a}, db.Where(Account{Email: "a@x"}).FirstOrCreate(&a).Error
		}},
		{"Save of a new row", []int{0}, 1, func(db *gorm.DB) ([]*Account, error) {
			a := Account{Email: "a@x"}
			return []*Account{&a}, db.Save(&a).Error
		}},
		{"Table", []int{1}, 1, func(db *gorm.DB) ([]*Account, error) {
			a := Account{Email: "a@x"}
			return []*Account{&a}, db.Table("accounts").Create(&a).Error
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			src := &keySource{}
			db := openDB(t, nil, src.plugin(0), &Account{})
			taken := []Account{seedAccount(t, db, "taken0@x"), seedAccount(t, db, "taken1@x")}
			var queue []gormtype.HUID
			for _, i := range c.queue {
				if i < 0 {
					queue = append(queue, 0)
				} else {
					queue = append(queue, taken[i].ID)
				}
			}
			src.next(queue...)
			var rows []*Account
			err := retried(db, func(tx *gorm.DB) error {
				var err error
				rows, err = c.create(tx)
				return err
			})
			if err != nil {
				t.Fatalf("%s with taken keys: %v", c.name, err)
			}
			src.checkDrawn(t, "accounts", c.collisions)
			for _, a := range rows {
				checkFresh(t, db, *a, taken...)
			}
			for _, a := range taken {
				checkAccount(t, db, a)
			}
			checkCount(t, db, int64(len(rows)+len(taken)), "accounts", "1 = 1")
		})
	}
}

// TestRetryNotForOtherUniqueKeys: a violation of a unique key the caller
// set (the email; a key the caller set, alone or beside fresh ones) is
// returned as the driver made it, after one draw, without OnCollision.
func TestRetryNotForOtherUniqueKeys(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		rows    func(taken Account) []Account
		mention string
	}{
		{"taken email", func(Account) []Account { return []Account{{Email: "taken@x"}} }, "accounts.email"},
		{"taken email in a batch", func(Account) []Account { return []Account{{Email: "new@x"}, {Email: "taken@x"}} }, "accounts.email"},
		{"caller-set key taken", func(a Account) []Account { return []Account{{ID: a.ID, Email: "new@x"}} }, "accounts.id"},
		{"caller-set key taken beside a fresh one", func(a Account) []Account {
			return []Account{{ID: a.ID, Email: "new@x"}, {Email: "fresh@x"}}
		}, "accounts.id"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			src := &keySource{}
			db := openDB(t, nil, src.plugin(0), &Account{})
			taken := seedAccount(t, db, "taken@x")
			rows := c.rows(taken)
			fresh := 0
			for _, r := range rows {
				if r.ID.IsZero() {
					fresh++
				}
			}
			src.next()
			err := db.Create(&rows).Error
			if err == nil || errors.Is(err, gormtype.ErrKeyTaken) || !strings.Contains(err.Error(), "UNIQUE constraint failed: "+c.mention) {
				t.Errorf("Create: %v; want the driver's violation of %s, not ErrKeyTaken", err, c.mention)
			}
			if h, _ := src.draws(); h != fresh {
				t.Errorf("%d draws, want %d: no retry", h, fresh)
			}
			if n := len(src.calls()); n != 0 {
				t.Errorf("%d OnCollision calls for another key's violation", n)
			}
			checkAccount(t, db, taken)
			checkCount(t, db, 1, "accounts", "1 = 1")
		})
	}
}

// pair has a composite key: a caller-set tenant and a fresh ID.
type pair struct {
	Tenant int64         `gorm:"primaryKey;autoIncrement:false"`
	ID     gormtype.HUID `gorm:"primaryKey"`
	Name   string
}

// TestRetryCompositeKey: a taken (tenant, id) is retried, and RowsAffected
// counts the rows stored, in GORM's transaction and the caller's.
func TestRetryCompositeKey(t *testing.T) {
	t.Parallel()
	src := &keySource{}
	db := openDB(t, nil, src.plugin(0), &pair{})
	other := pair{Tenant: 1, Name: "other"}
	mustCreate(t, db, &other)
	for _, inTx := range []bool{false, true} {
		src.next(other.ID)
		rows := []pair{{Tenant: 1, Name: fmt.Sprint("a", inTx)}, {Tenant: 1, Name: fmt.Sprint("b", inTx)}}
		var res *gorm.DB
		create := func(tx *gorm.DB) error { res = tx.Create(&rows); return res.Error }
		if inTx { // a savepoint of the caller's transaction
			if err := db.Transaction(func(tx *gorm.DB) error { return retried(tx, create) }); err != nil {
				t.Fatalf("transaction: %v", err)
			}
		} else if err := retried(db, create); err != nil {
			t.Fatal(err)
		}
		if res.Error != nil || res.RowsAffected != 2 {
			t.Fatalf("Create (caller's transaction %v): %v, RowsAffected %d; want 2", inTx, res.Error, res.RowsAffected)
		}
		src.checkDrawn(t, "pairs", 1)
		for _, r := range rows {
			if r.ID == other.ID {
				t.Errorf("%s kept the taken key", r.Name)
			}
			checkCount(t, db, 1, "pairs", "tenant = 1 AND id = ? AND name = ?", r.ID, r.Name)
		}
	}
	checkCount(t, db, 1, "pairs", "tenant = 1 AND id = ? AND name = 'other'", other.ID)
}

// TestRetryConcurrent: goroutines share one *gorm.DB while every fifth
// draw is taken: every Create succeeds and stores its rows once.
func TestRetryConcurrent(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var draws int
	var taken idtype.HUID
	gen := func() (idtype.HUID, error) {
		mu.Lock()
		defer mu.Unlock()
		if draws++; draws%5 == 0 && taken != 0 {
			return taken, nil
		}
		return idtype.GenerateHUID()
	}
	db := openDB(t, nil, gormtype.AutoID{Retries: 30, GenerateHUID: gen}, &Account{})
	seed := seedAccount(t, db, "taken@x")
	mu.Lock()
	taken = seed.ID.ID()
	mu.Unlock()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 8 {
		wg.Go(func() {
			for i := range 6 {
				var err error
				switch i % 2 {
				case 0:
					err = retried(db, func(tx *gorm.DB) error { return tx.Create(&Account{Email: fmt.Sprintf("g%d-%d@x", g, i)}).Error })
				default:
					err = retried(db, func(tx *gorm.DB) error {
						return tx.Create(&[]Account{{Email: fmt.Sprintf("g%d-%da@x", g, i)}, {Email: fmt.Sprintf("g%d-%db@x", g, i)}}).Error
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
	checkAccount(t, db, seed)
	checkCount(t, db, 1+8*9, "accounts", "1 = 1")
}
