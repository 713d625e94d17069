package integration_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/sortid/sortid/gormtype"
	"github.com/sortid/sortid/idtype"
	"github.com/sortid/sortid/integration/internal/pgtest"
)

// edgeDialects are the names of colDialects.
var edgeDialects = func() []string {
	var names []string
	for _, d := range colDialects {
		names = append(names, d.name)
	}
	return names
}()

// TestGormEdgeTranslateError: with gorm.Config{TranslateError: true} a
// fresh key that is taken must still be retried.
func TestGormEdgeTranslateError(t *testing.T) {
	for _, d := range edgeDialects {
		t.Run(d, func(t *testing.T) {
			src := &takenFirst{}
			db := gormOn(t, d, &gorm.Config{TranslateError: true}, gormtype.AutoID{GenerateHUID: src.generate})
			resetTables(t, db, &colAccount{})
			taken := seedAccount(t, db, "taken@x")
			src.next(taken.ID)
			a := colAccount{Email: "new@x", Name: "new"}
			if err := db.Create(&a).Error; err != nil {
				t.Fatalf("Create with TranslateError: %v", err)
			}
			checkFresh(t, db, a, taken)
			checkAccount(t, db, taken)
		})
	}
}

// TestGormEdgeTranslateErrorUpsert: with TranslateError, an upsert clause
// must not apply to a row because of its fresh key (AutoID doc: "An ON
// CONFLICT ... clause never applies to a row because of its fresh key").
func TestGormEdgeTranslateErrorUpsert(t *testing.T) {
	for _, d := range edgeDialects {
		for _, u := range upserts {
			t.Run(d+"/"+u.name, func(t *testing.T) {
				src := &takenFirst{}
				db := gormOn(t, d, &gorm.Config{TranslateError: true}, gormtype.AutoID{GenerateHUID: src.generate})
				resetTables(t, db, &colAccount{})
				taken := seedAccount(t, db, "taken@x")
				src.next(taken.ID)
				a := colAccount{Email: "new@x", Name: "new"}
				err := db.Clauses(u.oc).Create(&a).Error
				if upsertRefused(db, u.oc, 1) {
					checkRefused(t, db, err, 1)
					return
				}
				if err != nil {
					t.Errorf("upsert: %v", err)
				}
				checkAccount(t, db, taken)
				var n int64
				if err := db.Model(&colAccount{}).Where("email = ?", "new@x").Count(&n).Error; err != nil || n != 1 {
					t.Errorf("new@x stored %d times (%v); want 1; struct key %s, taken %s", n, err, a.ID, taken.ID)
				}
			})
		}
	}
}

// TestGormEdgeInsertModifier: MySQL's INSERT IGNORE and SQLite's INSERT OR
// IGNORE / OR REPLACE (clause.Insert{Modifier}, as GORM documents them)
// would skip the caller's row or replace the other row when a fresh key is
// taken: AutoID refuses them, and accepts them with caller-set keys.
func TestGormEdgeInsertModifier(t *testing.T) {
	for _, c := range []struct{ dialect, modifier string }{
		{"mysql", "IGNORE"}, {"sqlite", "OR IGNORE"}, {"sqlite", "OR REPLACE"},
	} {
		t.Run(c.dialect+"/"+c.modifier, func(t *testing.T) {
			src := &takenFirst{}
			db := gormOn(t, c.dialect, &gorm.Config{}, gormtype.AutoID{GenerateHUID: src.generate})
			resetTables(t, db, &colAccount{})
			taken := seedAccount(t, db, "taken@x")
			a := colAccount{Email: "new@x", Name: "new"}
			checkRefused(t, db, db.Clauses(clause.Insert{Modifier: c.modifier}).Create(&a).Error, 1)
			a.ID = gormtype.NewHUID()
			if err := db.Clauses(clause.Insert{Modifier: c.modifier}).Create(&a).Error; err != nil {
				t.Errorf("Create with a caller-set key: %v", err)
			}
			checkAccount(t, db, taken)
			if n := countAccounts(t, db); n != 2 {
				t.Errorf("%d accounts, want 2", n)
			}
		})
	}
}

// edgeItem has a key and a second auto-filled unique column.
type edgeItem struct {
	ID   gormtype.HUID    `gorm:"primaryKey"`
	Ref  gormtype.SCRU128 `gorm:"uniqueIndex" sortid:"auto"`
	Name string           `gorm:"size:50"`
}

func (edgeItem) TableName() string { return "edge_items" }

// TestGormEdgeFreshUniqueColumnUpsert: Ref is filled by AutoID (a fresh
// value); an upsert on Ref must not update another row because of it.
func TestGormEdgeFreshUniqueColumnUpsert(t *testing.T) {
	for _, d := range edgeDialects {
		t.Run(d, func(t *testing.T) {
			var mu sync.Mutex
			var queue []idtype.SCRU128
			gen := func() (idtype.SCRU128, error) {
				mu.Lock()
				defer mu.Unlock()
				if len(queue) > 0 {
					id := queue[0]
					queue = queue[1:]
					return id, nil
				}
				return idtype.GenerateSCRU128()
			}
			db := gormOn(t, d, &gorm.Config{}, gormtype.AutoID{GenerateSCRU128: gen})
			resetTables(t, db, &edgeItem{})
			other := edgeItem{Name: "other"}
			if err := db.Create(&other).Error; err != nil {
				t.Fatal(err)
			}
			mine := edgeItem{Name: "mine"}
			upsert := clause.OnConflict{Columns: []clause.Column{{Name: "ref"}}, DoUpdates: clause.AssignmentColumns([]string{"name"})}
			if d != "mysql" { // aimed at a filled column
				checkRefusedOf(t, db.Clauses(upsert).Create(&mine).Error)
				return
			}
			queue = append(queue, idtype.SCRU128(other.Ref))
			err := db.Clauses(upsert).Create(&mine).Error
			if err != nil || mine.Ref == other.Ref {
				t.Fatalf("upsert with a taken fresh Ref: %v, Ref %s; want a retry with a new one", err, mine.Ref)
			}
			var stored edgeItem
			if err := db.First(&stored, "id = ?", mine.ID).Error; err != nil || stored.Ref != mine.Ref || stored.Name != "mine" {
				t.Errorf("mine stored as %+v, %v; want %+v", stored, err, mine)
			}
			var got edgeItem
			if err := db.First(&got, "id = ?", other.ID).Error; err != nil {
				t.Fatal(err)
			}
			if got.Name != "other" {
				t.Errorf("the other row was updated through mine's fresh Ref %s: name %q", other.Ref, got.Name)
			}
		})
	}
}

// TestGormEdgeSingleRowEmailUpsert: the everyday upsert of one struct on
// another unique key, when that key exists, with no key collision at all.
func TestGormEdgeSingleRowEmailUpsert(t *testing.T) {
	for _, d := range edgeDialects {
		for _, u := range upserts {
			t.Run(d+"/"+u.name, func(t *testing.T) {
				db := gormOn(t, d, &gorm.Config{}, gormtype.AutoID{})
				resetTables(t, db, &colAccount{})
				existing := seedAccount(t, db, "old@x")
				a := colAccount{Email: "old@x", Name: "renamed"}
				if upsertRefused(db, u.oc, 1) {
					checkRefused(t, db, db.Clauses(u.oc).Create(&a).Error, 1)
					return
				}
				if err := db.Clauses(u.oc).Create(&a).Error; err != nil {
					t.Fatalf("upsert of one row on a taken email: %v", err)
				}
				if n := countAccounts(t, db); n != 1 {
					t.Errorf("%d accounts, want 1", n)
				}
				_ = existing
			})
		}
	}
}

// TestGormEdgePrepareStmt: collisions with PrepareStmt: true, in GORM's own
// transaction (one row and a batch) and in a caller's.
func TestGormEdgePrepareStmt(t *testing.T) {
	for _, d := range edgeDialects[:2] {
		t.Run(d, func(t *testing.T) {
			src := &takenFirst{}
			db := gormOn(t, d, &gorm.Config{PrepareStmt: true}, gormtype.AutoID{GenerateHUID: src.generate})
			resetTables(t, db, &colAccount{})
			taken := seedAccount(t, db, "taken@x")
			for i, w := range []func(func(*gorm.DB) error) error{
				func(f func(*gorm.DB) error) error { return f(db) },
				func(f func(*gorm.DB) error) error { return db.Transaction(f) },
			} {
				src.next(taken.ID)
				one := colAccount{Email: fmt.Sprintf("one%d@x", i)}
				src2 := []colAccount{{Email: fmt.Sprintf("b%da@x", i)}, {Email: fmt.Sprintf("b%db@x", i)}}
				err := w(func(tx *gorm.DB) error {
					if err := tx.Create(&one).Error; err != nil {
						return fmt.Errorf("one row: %w", err)
					}
					src.next(taken.ID)
					return tx.Create(&src2).Error
				})
				if err != nil {
					t.Fatalf("case %d: %v", i, err)
				}
				checkFresh(t, db, one, taken)
				checkFresh(t, db, src2[0], taken)
				checkFresh(t, db, src2[1], taken)
			}
			checkAccount(t, db, taken)
		})
	}
}

// edgeTrig is a PostgreSQL table whose BEFORE INSERT trigger routes rows
// elsewhere and returns NULL (trigger-based partitioning).
type edgeTrig struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string
}

func (edgeTrig) TableName() string { return "edge_trig" }

func TestGormEdgeTriggerReturnsNull(t *testing.T) {
	db := gormOn(t, "postgres", &gorm.Config{}, gormtype.AutoID{})
	resetTables(t, db, &edgeTrig{})
	for _, q := range []string{
		`DROP TABLE IF EXISTS edge_trig_child`,
		`CREATE TABLE edge_trig_child () INHERITS (edge_trig)`,
		`CREATE OR REPLACE FUNCTION edge_trig_route() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN INSERT INTO edge_trig_child VALUES (NEW.*); RETURN NULL; END $$`,
		`CREATE TRIGGER edge_trig_route BEFORE INSERT ON edge_trig FOR EACH ROW EXECUTE FUNCTION edge_trig_route()`,
	} {
		if err := db.Exec(q).Error; err != nil {
			t.Fatal(err)
		}
	}
	plain := gormOn(t, "postgres", &gorm.Config{}, gormtype.AutoID{Retries: -1})
	if err := plain.Create(&edgeTrig{ID: gormtype.NewHUID(), Name: "caller-set"}).Error; err != nil {
		t.Fatalf("Create with a caller-set key: %v", err)
	}
	r := edgeTrig{Name: "fresh"}
	if err := db.Create(&r).Error; err != nil {
		t.Errorf("Create with a fresh key: %v", err)
	}
	var n int64
	db.Model(&edgeTrig{}).Count(&n)
	t.Logf("rows: %d", n)
}

// TestGormEdgeCreateMap: Create(map) through Model gets a fresh key, as the
// doc's "Every Create ..." says.
func TestGormEdgeCreateMap(t *testing.T) {
	for _, d := range edgeDialects {
		t.Run(d, func(t *testing.T) {
			db := gormOn(t, d, &gorm.Config{}, gormtype.AutoID{})
			resetTables(t, db, &colAccount{})
			for _, m := range []any{
				map[string]any{"Email": "map@x", "Name": "map"},
				map[string]any{"id": gormtype.HUID(0), "Email": "zero@x"},
				[]map[string]any{{"ID": gormtype.NewHUID(), "Email": "set@x"}, {"Email": "unset@x"}},
			} {
				err := db.Model(&colAccount{}).Create(m).Error
				if !errors.Is(err, gormtype.ErrRefused) || !strings.Contains(err.Error(), `"id"`) {
					t.Errorf("Create(%v): %v; want ErrRefused naming id", m, err)
				}
			}
			key := gormtype.NewHUID()
			if err := db.Model(&colAccount{}).Create(map[string]any{"ID": key, "Email": "keyed@x"}).Error; err != nil {
				t.Fatalf("Create(map with the key): %v", err)
			}
			var got colAccount
			if err := db.First(&got, "email = ?", "keyed@x").Error; err != nil || got.ID != key {
				t.Errorf("stored %+v, %v; want key %s", got, err, key)
			}
			if n := countAccounts(t, db); n != 1 {
				t.Errorf("%d accounts, want only the keyed one", n)
			}
		})
	}
}

// edgePair has a composite primary key: a caller-set tenant and a fresh ID.
type edgePair struct {
	Tenant int64         `gorm:"primaryKey;autoIncrement:false"`
	ID     gormtype.HUID `gorm:"primaryKey"`
	Name   string        `gorm:"size:50"`
}

func (edgePair) TableName() string { return "edge_pairs" }

// TestGormEdgeCompositeKey: a taken (tenant, id) is retried; RowsAffected
// counts the rows stored.
func TestGormEdgeCompositeKey(t *testing.T) {
	for _, d := range edgeDialects {
		t.Run(d, func(t *testing.T) {
			src := &takenFirst{}
			db := gormOn(t, d, &gorm.Config{}, gormtype.AutoID{GenerateHUID: src.generate})
			resetTables(t, db, &edgePair{})
			other := edgePair{Tenant: 1, Name: "other"}
			if err := db.Create(&other).Error; err != nil {
				t.Fatal(err)
			}
			for _, tx := range []string{"gorm", "caller"} {
				src.next(other.ID)
				rows := []edgePair{{Tenant: 1, Name: "a-" + tx}, {Tenant: 1, Name: "b-" + tx}}
				var res *gorm.DB
				if tx == "gorm" {
					res = db.Create(&rows)
				} else {
					err := db.Transaction(func(w *gorm.DB) error { res = w.Create(&rows); return res.Error })
					_ = err
				}
				if res.Error != nil || res.RowsAffected != 2 {
					t.Fatalf("%s tx: Create: %v, RowsAffected %d", tx, res.Error, res.RowsAffected)
				}
				for _, r := range rows {
					if r.ID == other.ID {
						t.Errorf("kept the taken key")
					}
				}
			}
			var got edgePair
			if err := db.First(&got, "tenant = ? AND id = ?", 1, other.ID).Error; err != nil || got.Name != "other" {
				t.Errorf("other row: %+v, %v", got, err)
			}
		})
	}
}

// TestGormEdgeMixedKeys: a statement that mixes a caller-set key and a
// fresh one whose value is taken: the error cannot say whose key it was, so
// AutoID returns it without a retry, and nothing is stored; without the
// collision both rows are stored.
func TestGormEdgeMixedKeys(t *testing.T) {
	for _, d := range edgeDialects {
		t.Run(d, func(t *testing.T) {
			src := &takenFirst{}
			db := gormOn(t, d, &gorm.Config{}, gormtype.AutoID{GenerateHUID: src.generate})
			resetTables(t, db, &colAccount{})
			taken := seedAccount(t, db, "taken@x")
			src.next(taken.ID)
			rows := []colAccount{{ID: gormtype.NewHUID(), Email: "set@x"}, {Email: "fresh@x"}}
			if err := db.Create(&rows).Error; err == nil || !isUniqueViolation(err) || errors.Is(err, gormtype.ErrKeyTaken) || src.draws != 1 {
				t.Errorf("Create: %v after %d draws; want the driver's unique violation after 1", err, src.draws)
			}
			checkAccount(t, db, taken)
			if n := countAccounts(t, db); n != 1 {
				t.Errorf("%d accounts, want 1", n)
			}
			rows = []colAccount{{ID: gormtype.NewHUID(), Email: "set@x"}, {Email: "fresh@x"}}
			if res := db.Create(&rows); res.Error != nil || res.RowsAffected != 2 {
				t.Errorf("Create: %v, RowsAffected %d; want 2", res.Error, res.RowsAffected)
			}
		})
	}
}

// TestGormEdgeConcurrent: many goroutines share one *gorm.DB; every other
// Create draws a taken key first.
func TestGormEdgeConcurrent(t *testing.T) {
	for _, d := range edgeDialects[:2] {
		t.Run(d, func(t *testing.T) {
			var draws sync.Mutex
			var count int
			var taken colAccount
			gen := func() (idtype.HUID, error) {
				draws.Lock()
				defer draws.Unlock()
				count++
				if count%5 == 0 && !taken.ID.IsZero() {
					return taken.ID.ID(), nil // every fifth draw is taken
				}
				return idtype.GenerateHUID()
			}
			db := gormOn(t, d, &gorm.Config{}, gormtype.AutoID{Retries: 30, GenerateHUID: gen})
			resetTables(t, db, &colAccount{})
			taken = seedAccount(t, db, "taken@x")
			var wg sync.WaitGroup
			errs := make(chan error, 64)
			for g := range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range 8 {
						var err error
						switch i % 3 {
						case 0:
							err = db.Create(&colAccount{Email: fmt.Sprintf("g%d-%d@x", g, i)}).Error
						case 1:
							err = db.Create(&[]colAccount{{Email: fmt.Sprintf("g%d-%da@x", g, i)}, {Email: fmt.Sprintf("g%d-%db@x", g, i)}}).Error
						default:
							err = db.Transaction(func(tx *gorm.DB) error {
								return tx.Create(&colAccount{Email: fmt.Sprintf("g%d-%d@x", g, i)}).Error
							})
						}
						if err != nil {
							errs <- err
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			checkAccount(t, db, taken)
			if n := countAccounts(t, db); n != 1+8*11 {
				t.Errorf("%d accounts, want %d", n, 1+8*11)
			}
		})
	}
}

// TestGormEdgeTranslatedOtherKey: with TranslateError a violation of
// another unique key reaches the caller translated, after one draw.
func TestGormEdgeTranslatedOtherKey(t *testing.T) {
	for _, d := range edgeDialects {
		t.Run(d, func(t *testing.T) {
			src := &takenFirst{}
			db := gormOn(t, d, &gorm.Config{TranslateError: true}, gormtype.AutoID{GenerateHUID: src.generate})
			resetTables(t, db, &colAccount{})
			seedAccount(t, db, "dup@x")
			src.next()
			err := db.Create(&colAccount{Email: "dup@x"}).Error
			if !errors.Is(err, gorm.ErrDuplicatedKey) || src.draws != 1 {
				t.Errorf("duplicate email: %v after %d draws; want gorm.ErrDuplicatedKey after 1", err, src.draws)
			}
		})
	}
}

// TestGormEdgeLibPQ: lib/pq under gorm.io/driver/postgres: AutoID reads
// its errors' constraint through pgretry, so a batch's taken key is
// retried and the other row is untouched.
func TestGormEdgeLibPQ(t *testing.T) {
	src := &takenFirst{}
	db := openGorm(t, postgres.New(postgres.Config{DriverName: "postgres", DSN: pgtest.URL(t)}), &gorm.Config{}, gormtype.AutoID{GenerateHUID: src.generate})
	resetTables(t, db, &colAccount{})
	taken := seedAccount(t, db, "taken@x")
	err := db.Transaction(func(tx *gorm.DB) error {
		src.next(taken.ID)
		return tx.Create(&[]colAccount{{Email: "a@x"}, {Email: "b@x"}}).Error
	})
	if err != nil || src.draws != 4 || src.pending() != 0 {
		t.Errorf("batch through lib/pq with a taken key: %v after %d draws; want a retry, 4 draws", err, src.draws)
	}
	checkAccount(t, db, taken)
}

// checkRefusedOf checks that err is AutoID's refusal.
func checkRefusedOf(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, gormtype.ErrRefused) {
		t.Fatalf("got %v; want ErrRefused", err)
	}
}

// TestGormEdgeNoRetryNoSavepoint: with retries off AutoID sets no savepoint
// in the caller's transaction, so on PostgreSQL a failed Create leaves it
// aborted, as plain GORM does; with retries on, the Create is rolled back
// to AutoID's savepoint and the transaction goes on.
func TestGormEdgeNoRetryNoSavepoint(t *testing.T) {
	for _, retries := range []int{-1, 0} {
		t.Run(fmt.Sprintf("Retries=%d", retries), func(t *testing.T) {
			db := gormOn(t, "postgres", &gorm.Config{}, gormtype.AutoID{Retries: retries})
			resetTables(t, db, &colAccount{})
			seedAccount(t, db, "dup@x")
			_ = db.Transaction(func(tx *gorm.DB) error {
				if err := tx.Create(&colAccount{Email: "dup@x"}).Error; err == nil || !isUniqueViolation(err) {
					t.Errorf("Create with a taken email: %v", err)
				}
				err := tx.Create(&colAccount{Email: "next@x"}).Error
				if aborted := err != nil && strings.Contains(err.Error(), "25P02"); aborted != (retries < 0) {
					t.Errorf("the next Create: %v; want the transaction aborted only without retries", err)
				}
				return errors.New("roll back")
			})
		})
	}
}
