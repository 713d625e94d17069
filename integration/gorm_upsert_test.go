package integration_test

// The upsert suite: an upsert AutoID allows updates the stored row under
// its key, and the struct then holds that row's key and fresh
// sortid:"auto" columns (returned by PostgreSQL and SQLite, read back on
// MySQL), its associations too; the forms it cannot keep from touching
// another row are refused (see also gorm_refuse_test.go). On MySQL one
// row's ON DUPLICATE KEY UPDATE is tried as a plain INSERT first.

import (
	"database/sql"
	"reflect"
	"sync"
	"testing"

	"gorm.io/driver/mysql"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/sortid/sortid/gormtype"
	"github.com/sortid/sortid/idtype"
)

// upsertAccount has a unique email and no hooks.
type upsertAccount struct {
	ID    gormtype.HUID `gorm:"primaryKey"`
	Email string        `gorm:"size:100;uniqueIndex"`
	Name  string        `gorm:"size:50"`
}

func (upsertAccount) TableName() string { return "upsert_accounts" }

// TestGormUpsertSingleRow: the everyday upsert of one struct on a taken
// email, with no key collision, in every form: allowed, it updates the
// stored row and the struct holds its key; refused, nothing changes.
func TestGormUpsertSingleRow(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		for _, u := range upsertForms {
			t.Run(u.name, func(t *testing.T) {
				resetTables(t, db, &upsertAccount{})
				existing := upsertAccount{ID: gormtype.NewHUID(), Email: "old@x", Name: "seed"}
				mustCreate(t, db, &existing)
				a := upsertAccount{Email: "old@x", Name: "renamed"}
				err := db.Clauses(u.oc).Create(&a).Error
				checkCount(t, db, 1, "upsert_accounts", "1 = 1")
				if !upsertAllowed(d.name, u.oc, 1) {
					checkRefused(t, err, gormtype.ErrRefused, "upsert_accounts", "NewHUID")
					checkStored(t, db, existing.ID, existing)
					if !a.ID.IsZero() {
						t.Errorf("the refused Create left the fresh key %s; want zero", a.ID)
					}
					return
				}
				if err != nil {
					t.Fatalf("upsert of one row on a taken email: %v", err)
				}
				want := existing
				if !u.oc.DoNothing {
					want.Name = "renamed"
				}
				checkStored(t, db, existing.ID, want)
				if a.ID != existing.ID {
					t.Errorf("the upserted struct holds key %s; the stored row is %s", a.ID, existing.ID)
				}
			})
		}
	})
}

// upsertInv has a fresh column besides its key, not unique.
type upsertInv struct {
	ID    gormtype.HUID    `gorm:"primaryKey"`
	Trace gormtype.SCRU128 `sortid:"auto"`
	Email string           `gorm:"size:100;uniqueIndex"`
	Name  string           `gorm:"size:50"`
}

func (upsertInv) TableName() string { return "upsert_invs" }

// TestGormUpsertReadsBackStoredRow: after an upsert on email updated the
// stored row, its struct holds that row's key and Trace, not the fresh
// ones no row has; the stored Trace is unchanged. On MariaDB also with DO
// NOTHING (GORM sends it as ON DUPLICATE KEY UPDATE id = id). Of two rows
// (PostgreSQL, SQLite), the new row's struct holds what was stored for it.
func TestGormUpsertReadsBackStoredRow(t *testing.T) {
	onDoUpdates := clause.OnConflict{Columns: []clause.Column{{Name: "email"}}, DoUpdates: clause.AssignmentColumns([]string{"name"})}
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		forms := []struct {
			name string
			oc   clause.OnConflict
		}{{"EmailDoUpdates", onDoUpdates}}
		if d.name == "mysql" {
			forms = append(forms, struct {
				name string
				oc   clause.OnConflict
			}{"DoNothing", clause.OnConflict{DoNothing: true}})
		}
		for _, f := range forms {
			t.Run(f.name, func(t *testing.T) {
				resetTables(t, db, &upsertInv{})
				stored := upsertInv{Email: "a@x", Name: "seed"}
				mustCreate(t, db, &stored)
				a := upsertInv{Email: "a@x", Name: "renamed"}
				if err := db.Clauses(f.oc).Create(&a).Error; err != nil {
					t.Fatalf("upsert on a taken email: %v", err)
				}
				want := stored
				if !f.oc.DoNothing {
					want.Name = "renamed"
				}
				checkStored(t, db, stored.ID, want)
				if a.ID != stored.ID || a.Trace != stored.Trace {
					t.Errorf("the upserted struct holds key %s, Trace %s; the stored row %s, %s", a.ID, a.Trace, stored.ID, stored.Trace)
				}
				checkCount(t, db, 1, "upsert_invs", "1 = 1")
			})
		}
		if d.name == "mysql" {
			return // several rows: refused (gorm_retry_test.go's Upsert*/2Rows)
		}
		t.Run("TwoRows", func(t *testing.T) {
			resetTables(t, db, &upsertInv{})
			old := upsertInv{Email: "old@x", Name: "old"}
			mustCreate(t, db, &old)
			rows := []upsertInv{{Email: "old@x", Name: "renamed"}, {Email: "new@x", Name: "new"}}
			if err := db.Clauses(onDoUpdates).Create(&rows).Error; err != nil {
				t.Fatalf("upsert: %v", err)
			}
			want := old
			want.Name = "renamed"
			checkStored(t, db, old.ID, want)
			if rows[0] != want {
				t.Errorf("the struct of the updated row %+v; the stored row %+v", rows[0], want)
			}
			if rows[1].ID.IsZero() || rows[1].ID == old.ID || rows[1].Trace.IsZero() || rows[1].Trace == old.Trace {
				t.Errorf("the new row's struct %+v: want fresh key and Trace", rows[1])
			}
			checkStored(t, db, rows[1].ID, rows[1])
			checkCount(t, db, 2, "upsert_invs", "1 = 1")
		})
	})
}

// upsertOwner has a unique email and has-many pets; its tables are
// migrated without foreign-key constraints, as many schemas are.
type upsertOwner struct {
	ID    gormtype.HUID `gorm:"primaryKey"`
	Email string        `gorm:"size:100;uniqueIndex"`
	Name  string        `gorm:"size:50"`
	Pets  []upsertPet   `gorm:"foreignKey:OwnerID"`
}

func (upsertOwner) TableName() string { return "upsert_owners" }

type upsertPet struct {
	ID      gormtype.HUID `gorm:"primaryKey"`
	OwnerID gormtype.HUID `gorm:"index"`
	Name    string        `gorm:"size:50"`
}

func (upsertPet) TableName() string { return "upsert_pets" }

// TestGormUpsertAssociationsOfStoredRow: the single-row upsert of an owner
// with a new pet on a taken email. On MySQL (ON DUPLICATE KEY UPDATE, DO
// NOTHING) it runs: the struct holds the stored owner's key and the pet is
// stored as that owner's, no pet belongs to no owner. Elsewhere DO NOTHING
// may skip the row and is refused; nothing is stored.
func TestGormUpsertAssociationsOfStoredRow(t *testing.T) {
	cases := map[string][]clause.OnConflict{
		"mysql":    {{UpdateAll: true}, {DoNothing: true}},
		"postgres": {{Columns: []clause.Column{{Name: "email"}}, DoNothing: true}},
		"sqlite":   {{Columns: []clause.Column{{Name: "email"}}, DoNothing: true}},
	}
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{DisableForeignKeyConstraintWhenMigrating: true}, gormtype.AutoID{})
		for _, oc := range cases[d.name] {
			name := "UpdateAll"
			if oc.DoNothing {
				name = "DoNothing"
			}
			t.Run(name, func(t *testing.T) {
				resetTables(t, db, &upsertOwner{}, &upsertPet{})
				old := upsertOwner{ID: gormtype.NewHUID(), Email: "old@x", Name: "seed"}
				mustCreate(t, db, &old)
				o := upsertOwner{Email: "old@x", Name: "renamed", Pets: []upsertPet{{Name: "rex"}}}
				err := db.Clauses(oc).Create(&o).Error
				if d.name != "mysql" {
					checkRefused(t, err, gormtype.ErrRefused, "upsert_owners", "DoUpdates")
					checkCount(t, db, 0, "upsert_pets", "1 = 1")
					checkCount(t, db, 1, "upsert_owners", "id = ? AND email = 'old@x' AND name = 'seed'", old.ID)
					checkCount(t, db, 1, "upsert_owners", "1 = 1")
					return
				}
				if err != nil {
					t.Fatalf("upsert: %v", err)
				}
				if o.ID != old.ID || o.Pets[0].OwnerID != old.ID {
					t.Errorf("struct key %s, pet's owner %s; want the stored owner %s", o.ID, o.Pets[0].OwnerID, old.ID)
				}
				checkCount(t, db, 1, "upsert_owners", "1 = 1")
				checkCount(t, db, 1, "upsert_pets", "id = ? AND owner_id = ? AND name = 'rex'", o.Pets[0].ID, old.ID)
				checkCount(t, db, 0, "upsert_pets", "owner_id NOT IN (SELECT id FROM upsert_owners)")
			})
		}
	})
}

// upsertItem has a key and a second auto-filled unique column.
type upsertItem struct {
	ID   gormtype.HUID    `gorm:"primaryKey"`
	Ref  gormtype.SCRU128 `gorm:"uniqueIndex" sortid:"auto"`
	Name string           `gorm:"size:50"`
}

func (upsertItem) TableName() string { return "upsert_items" }

// TestGormUpsertOnFreshColumn: Ref is filled by AutoID; an upsert on Ref
// must not update another row because of a fresh value. On PostgreSQL and
// SQLite its ON CONFLICT (ref) is refused, naming the way out; on MySQL,
// where the plain INSERT comes first, a taken fresh Ref is retried with a
// new one and the other row is untouched.
func TestGormUpsertOnFreshColumn(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src := &takenFirst{}
		db := d.open(t, &gorm.Config{}, src.plugin(0))
		resetTables(t, db, &upsertItem{})
		other := upsertItem{Name: "other"}
		mustCreate(t, db, &other)
		mine := upsertItem{Name: "mine"}
		upsert := clause.OnConflict{Columns: []clause.Column{{Name: "ref"}}, DoUpdates: clause.AssignmentColumns([]string{"name"})}
		if d.name != "mysql" {
			checkRefused(t, db.Clauses(upsert).Create(&mine).Error, gormtype.ErrRefused, "upsert_items", "ref", "aim it at another unique column")
			checkStored(t, db, other.ID, other)
			checkCount(t, db, 1, "upsert_items", "1 = 1")
			return
		}
		src.nextSCRU128(idtype.SCRU128(other.Ref))
		err := db.Clauses(upsert).Create(&mine).Error
		if err != nil || mine.Ref == other.Ref {
			t.Fatalf("upsert with a taken fresh Ref: %v, Ref %s; want a retry with a new one", err, mine.Ref)
		}
		src.checkDrawn(t)
		checkStored(t, db, mine.ID, mine)
		checkStored(t, db, other.ID, other)
	})
}

// upsertRaced is the account table of TestGormUpsertMySQLRace.
type upsertRaced struct {
	ID    gormtype.HUID `gorm:"primaryKey"`
	Email string        `gorm:"size:100;uniqueIndex"`
	Name  string        `gorm:"size:50"`
}

func (upsertRaced) TableName() string { return "upsert_raced" }

// TestGormUpsertMySQLRace: AutoID sends a single row's ON DUPLICATE KEY
// UPDATE as a plain INSERT first, and with the clause after the plain
// INSERT met another key (email): gorm:create runs twice. A row that takes
// the fresh key between the two INSERTs is committed here from another
// connection; the doc says it "meets the clause as the conflicting row".
func TestGormUpsertMySQLRace(t *testing.T) {
	updateName := clause.OnConflict{DoUpdates: clause.AssignmentColumns([]string{"name"})}
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		for _, c := range []struct {
			name string
			oc   clause.OnConflict
			race bool
		}{
			{"UpdateAll/no-race", clause.OnConflict{UpdateAll: true}, false},
			{"UpdateAll/race", clause.OnConflict{UpdateAll: true}, true},
			{"DoUpdatesName/no-race", updateName, false},
			{"DoUpdatesName/race", updateName, true},
		} {
			t.Run(c.name, func(t *testing.T) {
				dsn := mysqlDSN(t)
				db := openGorm(t, mysql.Open(dsn), &gorm.Config{})
				other, err := sql.Open("mysql", dsn)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = other.Close() })
				other.SetMaxOpenConns(1)
				// A lock wait would mean the race cannot happen: fail fast.
				if _, err := other.Exec("SET SESSION innodb_lock_wait_timeout = 5"); err != nil {
					t.Fatal(err)
				}
				racer := &upsertRacer{other: other, armed: c.race}
				insert := db.Callback().Create().Get("gorm:create")
				if err := db.Callback().Create().Replace("gorm:create", racer.wrap(insert)); err != nil {
					t.Fatal(err)
				}
				if err := db.Use(gormtype.AutoID{}); err != nil {
					t.Fatal(err)
				}
				resetTables(t, db, &upsertRaced{})
				seed := upsertRaced{ID: gormtype.NewHUID(), Email: "old@x", Name: "seed"}
				mustCreate(t, db, &seed)
				racer.reset()

				a := upsertRaced{Email: "old@x", Name: "renamed"}
				err = db.Clauses(c.oc).Create(&a).Error
				calls, raced, raceErr := racer.result()
				if calls != 2 {
					t.Errorf("gorm:create ran %d times, want 2 (plain INSERT, then the upsert)", calls)
				}
				if !c.race {
					if err != nil {
						t.Fatalf("upsert of old@x: %v", err)
					}
					checkStored(t, db, seed.ID, upsertRaced{ID: seed.ID, Email: "old@x", Name: "renamed"})
					checkCount(t, db, 1, "upsert_raced", "1 = 1")
					if a.ID != seed.ID {
						t.Errorf("the upserted struct holds key %s; the stored row is %s", a.ID, seed.ID)
					}
					return
				}
				if raceErr != nil || raced.IsZero() {
					t.Fatalf("the racing row was never inserted: %v", raceErr)
				}
				// The row that took the key in between meets the clause as
				// the conflicting row. DoUpdates(name) renames it; UpdateAll
				// would also give it the seed's email, which the email key
				// refuses. The seed row is never updated.
				checkStored(t, db, seed.ID, seed)
				checkCount(t, db, 2, "upsert_raced", "1 = 1")
				if c.oc.UpdateAll {
					if !isUniqueViolation(err) {
						t.Errorf("UpdateAll with a racing row: %v; want the email key's violation", err)
					}
					checkStored(t, db, raced, upsertRaced{ID: raced, Email: "race@x", Name: "racer"})
					return
				}
				if err != nil {
					t.Errorf("DoUpdates(name) with a racing row: %v", err)
				}
				checkStored(t, db, raced, upsertRaced{ID: raced, Email: "race@x", Name: "renamed"})
				// The struct's key is read back by the email: the seed row's.
				if a.ID != seed.ID {
					t.Errorf("struct key %s; want the seed's key %s read back", a.ID, seed.ID)
				}
			})
		}
	}, "mysql")
}

// upsertRacer wraps gorm:create: on the call that follows a failed call
// (AutoID's upsert after its plain INSERT) it first commits, from another
// connection, a row with the key the struct holds.
type upsertRacer struct {
	other *sql.DB
	armed bool

	mu     sync.Mutex
	calls  int
	failed bool
	raced  gormtype.HUID
	err    error
}

func (r *upsertRacer) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls, r.failed, r.raced, r.err = 0, false, 0, nil
}

func (r *upsertRacer) result() (int, gormtype.HUID, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls, r.raced, r.err
}

func (r *upsertRacer) wrap(insert func(*gorm.DB)) func(*gorm.DB) {
	return func(db *gorm.DB) {
		r.mu.Lock()
		r.calls++
		if r.armed && r.failed && r.raced.IsZero() { // the run after the plain INSERT
			id := reflect.Indirect(db.Statement.ReflectValue).FieldByName("ID").Interface().(gormtype.HUID)
			_, r.err = r.other.Exec("INSERT INTO upsert_raced (id, email, name) VALUES (?, 'race@x', 'racer')", int64(id))
			if r.err == nil {
				r.raced = id
			}
		}
		r.mu.Unlock()
		insert(db)
		if db.Error != nil {
			r.mu.Lock()
			r.failed = true
			r.mu.Unlock()
		}
	}
}
