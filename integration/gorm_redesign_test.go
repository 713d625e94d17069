package integration_test

import (
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"gorm.io/driver/mysql"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/sortid/sortid/gormtype"
	"github.com/sortid/sortid/idtype"
	"github.com/sortid/sortid/integration/internal/mysqltest"
)

// The redesign suite checks the AutoID plugin's documented behaviour on
// layouts and set-ups the collision and edge suites do not cover. Every
// table is named r21_*: the PostgreSQL run database is shared by all the
// tests of a run (each MariaDB DSN is a database of its own).

// r21Acct is an account with a unique email; its table is named per test.
type r21Acct struct {
	ID    gormtype.HUID `gorm:"primaryKey"`
	Email string        `gorm:"size:100"`
	Name  string        `gorm:"size:50"`
}

func (r21Acct) TableName() string { return "r21_accts" }

// r21Row is a row of a hand-made table, named with db.Table.
type r21Row struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string        `gorm:"size:50"`
}

// TestGormTableInOtherSchema: a Create into
// other.r21_accts must look the violated key up in that table, not in the
// connection's own r21_accts (whose primary key is another column). Had
// AutoID read the local table, the taken id would not count as its own,
// and on MariaDB the held-back ON DUPLICATE KEY UPDATE would rename the
// victim.
func TestGormTableInOtherSchema(t *testing.T) {
	for _, c := range []struct {
		dialect        string
		setup, cleanup []string
	}{
		{"mysql", []string{
			"DROP DATABASE IF EXISTS r21_other",
			"CREATE DATABASE r21_other",
			"CREATE TABLE r21_other.r21_accts (id bigint PRIMARY KEY, email varchar(100) UNIQUE, name varchar(50))",
			"CREATE TABLE r21_accts (acct_no bigint PRIMARY KEY, id bigint, email varchar(100) UNIQUE, name varchar(50))",
		}, []string{"DROP DATABASE IF EXISTS r21_other"}},
		{"postgres", []string{
			"DROP SCHEMA IF EXISTS r21_other CASCADE",
			"DROP TABLE IF EXISTS public.r21_accts",
			"CREATE SCHEMA r21_other",
			"CREATE TABLE r21_other.r21_accts (id bigint PRIMARY KEY, email varchar(100) UNIQUE, name varchar(50))",
			"CREATE TABLE public.r21_accts (acct_no bigint PRIMARY KEY, id bigint, email varchar(100) UNIQUE, name varchar(50))",
		}, []string{"DROP SCHEMA IF EXISTS r21_other CASCADE", "DROP TABLE IF EXISTS public.r21_accts"}},
	} {
		for _, way := range []string{"db.Table", "TableName"} {
			t.Run(c.dialect+"/"+way, func(t *testing.T) {
				src := &takenFirst{}
				db := gormOn(t, c.dialect, &gorm.Config{}, gormtype.AutoID{GenerateHUID: src.generate})
				r21Exec(t, db, c.setup...)
				t.Cleanup(func() { r21Exec(t, db, c.cleanup...) })

				const other = "r21_other.r21_accts"
				victim := gormtype.NewHUID()
				r21ExecArgs(t, db, "INSERT INTO "+other+" (id, email, name) VALUES (?, 'victim@x', 'victim')", victim)
				// The local table holds the same key under its own key column.
				r21ExecArgs(t, db, "INSERT INTO r21_accts (acct_no, id, email, name) VALUES (?, ?, 'local@x', 'local')", victim, victim)

				src.next(victim)
				a := r21OtherAcct{Email: "new@x", Name: "attacker"}
				tx := db
				if way == "db.Table" {
					tx = db.Table(other) // GORM keeps "r21_accts" as Statement.Table
				}
				err := tx.Clauses(clause.OnConflict{
					Columns:   []clause.Column{{Name: "email"}},
					DoUpdates: clause.AssignmentColumns([]string{"name"}),
				}).Create(&a).Error
				r21Drawn(t, src)
				var rows []r21Acct
				if err := db.Table(other).Order("email").Find(&rows).Error; err != nil {
					t.Fatal(err)
				}
				t.Logf("Create: %v; %s holds %+v", err, other, rows)
				if n := r21Count(t, db, "r21_accts", "name = 'local'"); n != 1 {
					t.Errorf("local r21_accts changed: %d local rows", n)
				}
				if len(rows) == 0 || rows[len(rows)-1] != (r21Acct{ID: victim, Email: "victim@x", Name: "victim"}) {
					t.Errorf("the victim row was changed: %s holds %+v", other, rows)
				}
				if err != nil {
					t.Fatalf("upsert on email into %s with a taken key: %v; want a retry", other, err)
				}
				if len(rows) != 2 || rows[0].Email != "new@x" || rows[0].ID == victim || rows[0].ID != a.ID || rows[0].Name != "attacker" {
					t.Errorf("new@x not stored under a fresh key ≠ %s (struct %+v): %+v", victim, a, rows)
				}
			})
		}
	}
}

// r21OtherAcct names the other schema's table by TableName.
type r21OtherAcct r21Acct

func (r21OtherAcct) TableName() string { return "r21_other.r21_accts" }

// TestGormNonTransactionalEngine: on a MariaDB engine
// without transactions a multi-row INSERT keeps the rows written before the
// taken key, so running it again would store them twice: AutoID must
// refuse. InnoDB undoes the statement, so there the batch is retried; a
// single row is retried on any engine.
func TestGormNonTransactionalEngine(t *testing.T) {
	src := &takenFirst{}
	db := gormOn(t, "mysql", &gorm.Config{}, gormtype.AutoID{GenerateHUID: src.generate})
	for _, engine := range []string{"MyISAM", "Aria", "InnoDB"} {
		for _, rows := range []int{2, 1} {
			for _, inTx := range []bool{false, true} {
				name := fmt.Sprintf("%s/%d-rows/caller-tx=%v", engine, rows, inTx)
				t.Run(name, func(t *testing.T) {
					table := "r21_items_" + strings.ToLower(engine)
					r21Exec(t, db, "DROP TABLE IF EXISTS "+table,
						"CREATE TABLE "+table+" (id bigint PRIMARY KEY, name varchar(50)) ENGINE="+engine)
					var got string
					if err := db.Raw("SELECT engine FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?", table).Scan(&got).Error; err != nil || got != engine {
						t.Fatalf("table %s has engine %q (%v), want %s", table, got, err, engine)
					}
					// The victim's key is from the future, so it sorts after
					// the fresh key drawn with it: the second row collides
					// after the first one was written.
					victim := gormtype.HUID(mustHUID(time.Now().Add(time.Hour)))
					r21ExecArgs(t, db, "INSERT INTO "+table+" (id, name) VALUES (?, 'victim')", victim)
					items := []r21Row{{Name: "p1"}, {Name: "p2"}}[:rows]
					if rows == 1 {
						src.next(victim)
					} else {
						src.next(0, victim)
					}
					create := func(tx *gorm.DB) error { return tx.Table(table).Create(&items).Error }
					var err error
					if inTx {
						err = db.Transaction(create)
					} else {
						err = create(db)
					}
					r21Drawn(t, src)
					if items[len(items)-1].ID != victim && src.draws == rows {
						t.Fatalf("the taken key %s was not given to the last row: %+v", victim, items)
					}
					r21CheckRow(t, db, table, victim, "victim")
					if engine != "InnoDB" && rows > 1 {
						if !errors.Is(err, gormtype.ErrRefused) || !strings.Contains(err.Error(), table) {
							t.Fatalf("%d-row Create on %s with the second key taken: %v; want ErrRefused naming %s", rows, engine, err, table)
						}
						t.Logf("refused: %v", err)
						if n := r21Count(t, db, table, "name = 'p1'"); n > 1 {
							t.Errorf("p1 stored %d times", n)
						} else {
							t.Logf("p1 stored %d time(s), p2 %d", n, r21Count(t, db, table, "name = 'p2'"))
						}
						return
					}
					if err != nil {
						t.Fatalf("%d-row Create on %s with a taken key: %v; want a retry", rows, engine, err)
					}
					for _, it := range items {
						if it.ID == victim {
							t.Errorf("%s kept the taken key", it.Name)
						}
						if n := r21Count(t, db, table, "name = ?", it.Name); n != 1 {
							t.Errorf("%s stored %d times, want 1", it.Name, n)
						}
						r21CheckRow(t, db, table, it.ID, it.Name)
					}
				})
			}
		}
	}
}

// TestGormNonTransactionalEngineOtherDatabase: the same
// batch into a MyISAM table of another database, named with db.Table,
// while the connection's own database has an InnoDB table of that name:
// AutoID must judge the engine of the table written to.
func TestGormNonTransactionalEngineOtherDatabase(t *testing.T) {
	src := &takenFirst{}
	db := gormOn(t, "mysql", &gorm.Config{}, gormtype.AutoID{GenerateHUID: src.generate})
	r21Exec(t, db, "DROP DATABASE IF EXISTS r21_other2", "CREATE DATABASE r21_other2",
		"CREATE TABLE r21_other2.r21_items (id bigint PRIMARY KEY, name varchar(50)) ENGINE=MyISAM",
		"CREATE TABLE r21_items (id bigint PRIMARY KEY, name varchar(50)) ENGINE=InnoDB")
	t.Cleanup(func() { r21Exec(t, db, "DROP DATABASE IF EXISTS r21_other2") })
	const table = "r21_other2.r21_items"
	victim := gormtype.HUID(mustHUID(time.Now().Add(time.Hour)))
	r21ExecArgs(t, db, "INSERT INTO "+table+" (id, name) VALUES (?, 'victim')", victim)
	src.next(0, victim)
	items := []r21Row{{Name: "p1"}, {Name: "p2"}}
	err := db.Table(table).Create(&items).Error
	r21Drawn(t, src)
	n1, n2 := r21Count(t, db, table, "name = 'p1'"), r21Count(t, db, table, "name = 'p2'")
	t.Logf("Create: %v; p1 stored %d time(s), p2 %d", err, n1, n2)
	r21CheckRow(t, db, table, victim, "victim")
	if n1 > 1 {
		t.Errorf("p1 stored %d times: the retry ran on a MyISAM table", n1)
	}
	if !errors.Is(err, gormtype.ErrRefused) {
		t.Errorf("Create: %v; want ErrRefused", err)
	}
}

// TestGormUndeclaredDefault: the key column has a database
// default the model does not declare; a Select or Omit that leaves it out
// would store the database's key while the struct holds AutoID's.
func TestGormUndeclaredDefault(t *testing.T) {
	for _, c := range []struct{ name, dialect, ddl string }{
		{"postgres-constant", "postgres", "CREATE TABLE r21_dflt (id bigint PRIMARY KEY DEFAULT 424242, name varchar(50))"},
		{"postgres-sequence", "postgres", "CREATE TABLE r21_dflt (id bigserial PRIMARY KEY, name varchar(50))"},
		{"mysql", "mysql", "CREATE TABLE r21_dflt (id bigint PRIMARY KEY DEFAULT (uuid_short()), name varchar(50))"},
		{"sqlite", "sqlite", "CREATE TABLE r21_dflt (id integer PRIMARY KEY DEFAULT 424242, name varchar(50))"},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := gormOn(t, c.dialect, &gorm.Config{}, gormtype.AutoID{})
			r21Exec(t, db, "DROP TABLE IF EXISTS r21_dflt", c.ddl)
			for _, q := range []struct {
				name string
				tx   func() *gorm.DB
			}{
				{`Select("name")`, func() *gorm.DB { return db.Table("r21_dflt").Select("name") }},
				{`Omit("id")`, func() *gorm.DB { return db.Table("r21_dflt").Omit("id") }},
			} {
				r := r21Row{Name: "left-out"}
				err := q.tx().Create(&r).Error
				if !errors.Is(err, gormtype.ErrRefused) || !regexp.MustCompile(`\bid\b`).MatchString(err.Error()) || !strings.Contains(err.Error(), "r21_dflt") {
					t.Errorf("%s.Create: %v; want ErrRefused naming r21_dflt and id", q.name, err)
				} else {
					t.Logf("%s: %v", q.name, err)
				}
			}
			if n := r21Count(t, db, "r21_dflt", "1 = 1"); n != 0 {
				t.Fatalf("%d rows stored by the refused Creates", n)
			}
			r := r21Row{Name: "selected"}
			if err := db.Table("r21_dflt").Select("id", "name").Create(&r).Error; err != nil {
				t.Fatalf(`Select("id", "name").Create: %v`, err)
			}
			if r.ID.IsZero() || r.ID == 424242 {
				t.Errorf("struct key %s, want a fresh HUID", r.ID)
			}
			r21CheckRow(t, db, "r21_dflt", r.ID, "selected")
		})
	}
}

// r21Upsert is TestGormRedesignItem4's account table; email is unique.
type r21Upsert struct {
	ID    gormtype.HUID `gorm:"primaryKey"`
	Email string        `gorm:"size:100;uniqueIndex"`
	Name  string        `gorm:"size:50"`
}

func (r21Upsert) TableName() string { return "r21_upserts" }

// TestGormMySQLUpsertRace: AutoID sends a single row's ON
// DUPLICATE KEY UPDATE as a plain INSERT first, and with the clause after
// the plain INSERT met another key (email). A row that takes the fresh key
// between the two INSERTs is committed here from another connection; the
// doc says that row "is updated".
func TestGormMySQLUpsertRace(t *testing.T) {
	updateName := clause.OnConflict{DoUpdates: clause.AssignmentColumns([]string{"name"})}
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
			dsn := mysqltest.DSN(t)
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
			racer := &r21Racer{other: other, armed: c.race}
			insert := db.Callback().Create().Get("gorm:create")
			if err := db.Callback().Create().Replace("gorm:create", racer.wrap(insert)); err != nil {
				t.Fatal(err)
			}
			if err := db.Use(gormtype.AutoID{}); err != nil {
				t.Fatal(err)
			}
			resetTables(t, db, &r21Upsert{})
			seed := r21Upsert{ID: gormtype.NewHUID(), Email: "old@x", Name: "seed"}
			if err := db.Create(&seed).Error; err != nil {
				t.Fatal(err)
			}
			racer.reset()

			a := r21Upsert{Email: "old@x", Name: "renamed"}
			err = db.Clauses(c.oc).Create(&a).Error
			calls, raced := racer.result()
			t.Logf("gorm:create called %d times, racing key %s, err %v", calls, raced, err)
			if calls != 2 {
				t.Errorf("gorm:create ran %d times, want 2 (plain INSERT, then the upsert)", calls)
			}
			var rows []r21Upsert
			if err := db.Order("email").Find(&rows).Error; err != nil {
				t.Fatal(err)
			}
			t.Logf("rows after: %+v", rows)
			byEmail := map[string]r21Upsert{}
			for _, r := range rows {
				byEmail[r.Email] = r
			}
			if !c.race {
				if err != nil {
					t.Fatalf("upsert of old@x: %v", err)
				}
				if len(rows) != 1 || rows[0].ID != seed.ID || rows[0].Name != "renamed" {
					t.Errorf("rows %+v; want the seed row %s renamed", rows, seed.ID)
				}
				return
			}
			if raced.IsZero() {
				t.Fatal("the racing row was never inserted")
			}
			// The documented outcome: the row that took the key in between
			// meets the clause as the conflicting row. DoUpdates(name)
			// renames it; UpdateAll would also give it the seed's email,
			// which the email key refuses. The seed row is never updated.
			if got := byEmail["old@x"]; got.ID != seed.ID || got.Name != "seed" {
				t.Errorf("the seed row became %+v; only the racing row may be updated", got)
			}
			var racing r21Upsert
			if err := db.First(&racing, "id = ?", raced).Error; err != nil {
				t.Fatalf("racing row %s: %v", raced, err)
			}
			if c.oc.UpdateAll {
				if err == nil || !isUniqueViolation(err) || racing.Name != "racer" {
					t.Errorf("UpdateAll with a racing row: %v, racing row %+v; want the email key's violation and the racing row unchanged", err, racing)
				}
				return
			}
			// The struct's key is read back by the email: the seed row's.
			if err != nil || racing.Name != "renamed" || a.ID != seed.ID {
				t.Errorf("upsert with a racing row: %v, racing row %+v, struct key %s; want the racing row renamed and the seed's key %s read back", err, racing, a.ID, seed.ID)
			}
		})
	}
	t.Run("plain-single-row-upsert-by-email", func(t *testing.T) {
		db := gormOn(t, "mysql", &gorm.Config{}, gormtype.AutoID{})
		resetTables(t, db, &r21Upsert{})
		seed := r21Upsert{ID: gormtype.NewHUID(), Email: "a@x", Name: "seed"}
		if err := db.Create(&seed).Error; err != nil {
			t.Fatal(err)
		}
		if err := db.Clauses(clause.OnConflict{UpdateAll: true}).Create(&r21Upsert{Email: "a@x", Name: "updated"}).Error; err != nil {
			t.Fatalf("upsert of a@x: %v", err)
		}
		var rows []r21Upsert
		if err := db.Find(&rows).Error; err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1 || rows[0].ID != seed.ID || rows[0].Name != "updated" {
			t.Errorf("rows %+v; want the a@x row %s updated", rows, seed.ID)
		}
	})
}

// r21Racer wraps gorm:create: on the call that follows a failed call of
// the same statement (AutoID's upsert attempt) it first commits, from
// another connection, a row with the key the struct holds.
type r21Racer struct {
	other *sql.DB
	armed bool

	mu     sync.Mutex
	calls  int
	failed map[*gorm.Statement]bool
	raced  gormtype.HUID
	err    error
}

func (r *r21Racer) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls, r.failed, r.raced, r.err = 0, map[*gorm.Statement]bool{}, 0, nil
}

func (r *r21Racer) result() (int, gormtype.HUID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls, r.raced
}

func (r *r21Racer) wrap(insert func(*gorm.DB)) func(*gorm.DB) {
	return func(db *gorm.DB) {
		r.mu.Lock()
		r.calls++
		if r.armed && r.failed[db.Statement] && r.raced.IsZero() {
			id := reflect.Indirect(db.Statement.ReflectValue).FieldByName("ID").Interface().(gormtype.HUID)
			_, r.err = r.other.Exec("INSERT INTO r21_upserts (id, email, name) VALUES (?, 'race@x', 'racer')", int64(id))
			if r.err == nil {
				r.raced = id
			}
		}
		r.mu.Unlock()
		insert(db)
		if db.Error != nil {
			r.mu.Lock()
			if r.failed != nil {
				r.failed[db.Statement] = true
			}
			r.mu.Unlock()
		}
	}
}

// r21Hooked's BeforeCreate writes an audit row with the key it sees,
// through the hook's tx.
type r21Hooked struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string        `gorm:"size:50"`
}

func (r21Hooked) TableName() string { return "r21_hooked" }

func (h *r21Hooked) BeforeCreate(tx *gorm.DB) error {
	return tx.Create(&r21Audit{Ref: h.ID}).Error
}

type r21Audit struct {
	Seq int64         `gorm:"primaryKey;autoIncrement"`
	Ref gormtype.HUID // not a key: AutoID leaves it alone
}

func (r21Audit) TableName() string { return "r21_audit" }

// TestGormHookWritesUndone: a retried Create undoes what the
// failed attempt's hooks wrote, in GORM's transaction and in a caller's;
// without a transaction the failed attempt's audit row stays, as the doc
// says.
func TestGormHookWritesUndone(t *testing.T) {
	for _, dialect := range []string{"postgres", "mysql", "sqlite"} {
		for _, mode := range []string{"gorm-tx", "caller-tx", "no-tx"} {
			t.Run(dialect+"/"+mode, func(t *testing.T) {
				src := &takenFirst{}
				db := gormOn(t, dialect, &gorm.Config{SkipDefaultTransaction: mode == "no-tx"}, gormtype.AutoID{GenerateHUID: src.generate})
				resetTables(t, db, &r21Hooked{}, &r21Audit{})
				taken := gormtype.NewHUID()
				// Seeded without the hook: the audit table starts empty.
				r21ExecArgs(t, db, "INSERT INTO r21_hooked (id, name) VALUES (?, 'other')", taken)
				src.next(taken)
				h := r21Hooked{Name: "mine"}
				var err error
				if mode == "caller-tx" {
					err = db.Transaction(func(tx *gorm.DB) error { return tx.Create(&h).Error })
				} else {
					err = db.Create(&h).Error
				}
				if err != nil {
					t.Fatalf("Create with a taken key: %v", err)
				}
				r21Drawn(t, src)
				if h.ID == taken {
					t.Fatalf("stored under the taken key")
				}
				r21CheckRow(t, db, "r21_hooked", taken, "other")
				r21CheckRow(t, db, "r21_hooked", h.ID, "mine")
				var refs []gormtype.HUID
				if err := db.Model(&r21Audit{}).Order("seq").Pluck("ref", &refs).Error; err != nil {
					t.Fatal(err)
				}
				want := []gormtype.HUID{h.ID}
				if mode == "no-tx" {
					want = []gormtype.HUID{taken, h.ID} // the failed attempt's hook write stays
				}
				if !reflect.DeepEqual(refs, want) {
					t.Errorf("audit refs %v, want %v (taken %s, stored %s)", refs, want, taken, h.ID)
				}
			})
		}
	}
}

// r21Event is a row of the partitioned r21_events; the model names only ID
// as its key, the table's is (id, created_at).
type r21Event struct {
	ID        gormtype.HUID `gorm:"primaryKey"`
	CreatedAt time.Time
	Name      string
}

func (r21Event) TableName() string { return "r21_events" }

// TestGormPostgresLayouts: a single-row Create in GORM's own
// transaction on a partitioned table, a table without a unique id and
// tables with a DEFERRABLE key; a taken key is retried where the database
// reports it at the INSERT, and fails at COMMIT where the key is checked
// only then.
func TestGormPostgresLayouts(t *testing.T) {
	src := &takenFirst{}
	db := gormOn(t, "postgres", &gorm.Config{}, gormtype.AutoID{GenerateHUID: src.generate})

	t.Run("partitioned", func(t *testing.T) {
		r21Exec(t, db, "DROP TABLE IF EXISTS r21_events",
			`CREATE TABLE r21_events (id bigint, created_at timestamptz, name text, PRIMARY KEY (id, created_at)) PARTITION BY RANGE (created_at)`,
			`CREATE TABLE r21_events_old PARTITION OF r21_events FOR VALUES FROM (MINVALUE) TO ('2000-01-01')`,
			`CREATE TABLE r21_events_new PARTITION OF r21_events FOR VALUES FROM ('2000-01-01') TO (MAXVALUE)`)
		e := r21Event{Name: "plain"}
		if err := db.Create(&e).Error; err != nil || e.ID.IsZero() {
			t.Fatalf("Create: %v, key %s", err, e.ID)
		}
		if n := r21Count(t, db, "r21_events", "id = ? AND name = 'plain'", e.ID); n != 1 {
			t.Errorf("plain event stored %d times", n)
		}
		for _, at := range []time.Time{
			time.Date(1999, 5, 1, 10, 0, 0, 0, time.UTC),
			time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC),
		} {
			other := r21Event{ID: gormtype.NewHUID(), CreatedAt: at, Name: "other"}
			if err := db.Create(&other).Error; err != nil {
				t.Fatal(err)
			}
			src.next(other.ID)
			mine := r21Event{CreatedAt: at, Name: "mine"} // same (id, created_at) at first
			if err := db.Create(&mine).Error; err != nil {
				t.Fatalf("Create at %v with a taken key: %v", at, err)
			}
			r21Drawn(t, src)
			if mine.ID == other.ID {
				t.Fatalf("kept the taken key")
			}
			if n := r21Count(t, db, "r21_events", "id = ? AND name = 'other'", other.ID); n != 1 {
				t.Errorf("other event at %v: %d rows", at, n)
			}
			if n := r21Count(t, db, "r21_events", "id = ?", other.ID); n != 1 {
				t.Errorf("%d rows hold the taken key", n)
			}
			if n := r21Count(t, db, "r21_events", "id = ? AND name = 'mine'", mine.ID); n != 1 {
				t.Errorf("mine stored %d times under %s", n, mine.ID)
			}
		}
	})

	t.Run("no-unique-id", func(t *testing.T) {
		r21Exec(t, db, "DROP TABLE IF EXISTS r21_nokey", "CREATE TABLE r21_nokey (id bigint, name text)")
		r := r21Row{Name: "plain"}
		if err := db.Table("r21_nokey").Create(&r).Error; err != nil {
			t.Fatalf("Create: %v", err)
		}
		r21CheckRow(t, db, "r21_nokey", r.ID, "plain")
	})

	for _, c := range []struct{ name, initially string }{
		{"deferrable-immediate", "IMMEDIATE"},
		{"deferrable-deferred", "DEFERRED"},
	} {
		t.Run(c.name, func(t *testing.T) {
			table := "r21_defer_" + strings.ToLower(c.initially)
			r21Exec(t, db, "DROP TABLE IF EXISTS "+table,
				fmt.Sprintf("CREATE TABLE %s (id bigint, name text, PRIMARY KEY (id) DEFERRABLE INITIALLY %s)", table, c.initially))
			r := r21Row{Name: "plain"}
			if err := db.Table(table).Create(&r).Error; err != nil {
				t.Fatalf("Create: %v", err)
			}
			r21CheckRow(t, db, table, r.ID, "plain")

			other := r21Row{ID: gormtype.NewHUID(), Name: "other"}
			if err := db.Table(table).Create(&other).Error; err != nil {
				t.Fatal(err)
			}
			src.next(other.ID)
			mine := r21Row{Name: "mine"}
			err := db.Table(table).Create(&mine).Error
			r21Drawn(t, src)
			r21CheckRow(t, db, table, other.ID, "other")
			if n := r21Count(t, db, table, "id = ?", other.ID); n != 1 {
				t.Errorf("%d rows hold the taken key %s", n, other.ID)
			}
			if c.initially == "IMMEDIATE" {
				if err != nil || mine.ID == other.ID {
					t.Fatalf("Create with a taken key: %v, key %s; want a retry", err, mine.ID)
				}
				r21CheckRow(t, db, table, mine.ID, "mine")
				return
			}
			// The key is checked at COMMIT, after the INSERT succeeded:
			// the Create must fail, storing nothing.
			t.Logf("deferred key taken: err %v, struct key %s (taken %s)", err, mine.ID, other.ID)
			if err == nil || !isUniqueViolation(err) {
				t.Errorf("Create with a taken deferred key: %v; want the unique violation at commit", err)
			}
			if n := r21Count(t, db, table, "name = 'mine'"); n != 0 {
				t.Errorf("mine stored %d times after the failed commit", n)
			}
			// In a caller's transaction the Create cannot see the
			// violation; the caller's COMMIT reports it.
			src.next(other.ID)
			mine = r21Row{Name: "mine-in-tx"}
			var createErr error
			err = db.Transaction(func(tx *gorm.DB) error {
				createErr = tx.Table(table).Create(&mine).Error
				return createErr
			})
			r21Drawn(t, src)
			t.Logf("caller tx: Create %v, Transaction %v", createErr, err)
			if err == nil {
				t.Errorf("caller transaction with a taken deferred key committed")
			}
			r21CheckRow(t, db, table, other.ID, "other")
			if n := r21Count(t, db, table, "name = 'mine-in-tx'"); n != 0 {
				t.Errorf("mine-in-tx stored %d times", n)
			}
		})
	}
}

// r21AppTrig names the trigger table by TableName.
type r21AppTrig struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string
}

func (r21AppTrig) TableName() string { return "r21_app.trig" }

// TestGormTriggerReturnsNull: a BEFORE INSERT trigger in
// another schema routes the row to a child table and returns NULL; the
// INSERT reports no row, and the Create must still succeed.
func TestGormTriggerReturnsNull(t *testing.T) {
	src := &takenFirst{}
	db := gormOn(t, "postgres", &gorm.Config{}, gormtype.AutoID{GenerateHUID: src.generate})
	r21Exec(t, db, "DROP SCHEMA IF EXISTS r21_app CASCADE", "CREATE SCHEMA r21_app",
		"CREATE TABLE r21_app.trig (id bigint PRIMARY KEY, name text)",
		"CREATE TABLE r21_app.trig_child (PRIMARY KEY (id)) INHERITS (r21_app.trig)",
		`CREATE FUNCTION r21_app.trig_route() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN INSERT INTO r21_app.trig_child VALUES (NEW.*); RETURN NULL; END $$`,
		"CREATE TRIGGER trig_route BEFORE INSERT ON r21_app.trig FOR EACH ROW EXECUTE FUNCTION r21_app.trig_route()")
	t.Cleanup(func() { r21Exec(t, db, "DROP SCHEMA IF EXISTS r21_app CASCADE") })

	for _, c := range []struct {
		name   string
		create func(name string) (gormtype.HUID, *gorm.DB)
	}{
		{"db.Table", func(name string) (gormtype.HUID, *gorm.DB) {
			r := r21Row{Name: name}
			res := db.Table("r21_app.trig").Create(&r)
			return r.ID, res
		}},
		{"TableName", func(name string) (gormtype.HUID, *gorm.DB) {
			r := r21AppTrig{Name: name}
			res := db.Create(&r)
			return r.ID, res
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			id, res := c.create(c.name)
			if res.Error != nil || id.IsZero() {
				t.Fatalf("Create: %v, key %s", res.Error, id)
			}
			t.Logf("RowsAffected %d", res.RowsAffected)
			r21CheckRow(t, db, "ONLY r21_app.trig_child", id, c.name)
			if n := r21Count(t, db, "ONLY r21_app.trig", "1 = 1"); n != 0 {
				t.Errorf("%d rows in the parent table itself", n)
			}
		})
	}
	// A taken key is reported by the child's key, which is not the
	// table's: it must not pass as success with a wrong row.
	t.Run("taken-key-in-child", func(t *testing.T) {
		other := r21Row{ID: gormtype.NewHUID(), Name: "other"}
		r21ExecArgs(t, db, "INSERT INTO r21_app.trig_child (id, name) VALUES (?, 'other')", other.ID)
		src.next(other.ID)
		r := r21Row{Name: "mine"}
		err := db.Table("r21_app.trig").Create(&r).Error
		r21Drawn(t, src)
		t.Logf("Create with a key taken in the child: %v (key %s, taken %s)", err, r.ID, other.ID)
		r21CheckRow(t, db, "ONLY r21_app.trig_child", other.ID, "other")
		if err == nil {
			if r.ID == other.ID {
				t.Fatalf("err nil with the taken key")
			}
			r21CheckRow(t, db, "ONLY r21_app.trig_child", r.ID, "mine")
		} else if n := r21Count(t, db, "r21_app.trig", "name = 'mine'"); n != 0 {
			t.Errorf("failed Create stored %d rows", n)
		}
	})
}

// TestGormNoPlugin: a zero gormtype key without AutoID would
// be stored as 0; the Create fails with ErrSetup telling how to register.
func TestGormNoPlugin(t *testing.T) {
	for _, dialect := range []string{"postgres", "mysql", "sqlite"} {
		t.Run(dialect, func(t *testing.T) {
			db := gormOn(t, dialect, &gorm.Config{})
			if _, ok := db.Config.Plugins["sortid:autoid"]; ok {
				t.Fatal("AutoID is registered")
			}
			if err := db.Migrator().DropTable("r21_plain"); err != nil {
				t.Fatal(err)
			}
			if err := db.Table("r21_plain").AutoMigrate(&r21Row{}); err != nil {
				t.Fatal(err)
			}
			for _, v := range []any{
				&r21Row{Name: "zero"},
				&[]r21Row{{ID: gormtype.NewHUID(), Name: "set"}, {Name: "zero"}},
			} {
				err := db.Table("r21_plain").Create(v).Error
				if !errors.Is(err, gormtype.ErrSetup) || !strings.Contains(err.Error(), "db.Use(gormtype.AutoID{})") {
					t.Errorf("Create(%T) without AutoID: %v; want ErrSetup naming db.Use(gormtype.AutoID{})", v, err)
				}
			}
			if n := r21Count(t, db, "r21_plain", "1 = 1"); n != 0 {
				t.Fatalf("%d rows stored without keys", n)
			}
			r := r21Row{ID: gormtype.NewHUID(), Name: "keyed"}
			if err := db.Table("r21_plain").Create(&r).Error; err != nil {
				t.Fatalf("Create with the key set: %v", err)
			}
			r21CheckRow(t, db, "r21_plain", r.ID, "keyed")
		})
	}
}

// r21Core uses idtype's HUID, which GORM takes for an auto-increment int.
type r21Core struct {
	ID   idtype.HUID `gorm:"primaryKey"`
	Name string      `gorm:"size:50"`
}

func (r21Core) TableName() string { return "r21_core" }

// TestGormIdtypeKey: plain GORM makes an idtype.HUID key auto-increment;
// with AutoID such a model fails with ErrSetup pointing at gormtype.HUID.
func TestGormIdtypeKey(t *testing.T) {
	for _, dialect := range []string{"postgres", "mysql", "sqlite"} {
		t.Run(dialect, func(t *testing.T) {
			db := gormOn(t, dialect, &gorm.Config{}, gormtype.AutoID{})
			if err := db.Migrator().DropTable(&r21Core{}); err != nil {
				t.Fatal(err)
			}
			if err := db.AutoMigrate(&r21Core{}); err != nil {
				t.Logf("AutoMigrate: %v", err)
				r21Exec(t, db, "CREATE TABLE r21_core (id bigint PRIMARY KEY, name varchar(50))")
			} else {
				t.Logf("AutoMigrate succeeded; id column: %s", r21ColumnInfo(t, db, "r21_core", "id"))
			}
			// Plain GORM makes the key auto-increment: the first row gets 1.
			plain := gormOn(t, dialect, &gorm.Config{})
			resetTables(t, plain, &r21Core{})
			first := r21Core{Name: "plain"}
			if err := plain.Create(&first).Error; err != nil || first.ID != 1 {
				t.Errorf("plain GORM: Create: %v, key %d; want the auto-increment key 1", err, first.ID)
			}
			r21Exec(t, plain, "DELETE FROM r21_core")
			err := db.Create(&r21Core{Name: "zero"}).Error
			if !errors.Is(err, gormtype.ErrSetup) || !strings.Contains(err.Error(), "gormtype.HUID") || !strings.Contains(err.Error(), "ID") {
				t.Errorf("Create: %v; want ErrSetup naming the ID field and gormtype.HUID", err)
			}
			err = db.Create(&r21Core{ID: idtype.NewHUID(), Name: "set"}).Error
			t.Logf("Create with the key set: %v", err)
			if n := r21Count(t, db, "r21_core", "1 = 1"); n != 0 {
				t.Errorf("%d rows stored", n)
			}
		})
	}
}

type r21TaggedCore struct {
	ID   gormtype.HUID  `gorm:"primaryKey"`
	Ref  idtype.SCRU128 `gorm:"type:varchar(64)" sortid:"auto"`
	Name string         `gorm:"size:50"`
}

func (r21TaggedCore) TableName() string { return "r21_tagged_core" }

type r21TaggedString struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Ref  string        `gorm:"size:64" sortid:"auto"`
	Name string        `gorm:"size:50"`
}

func (r21TaggedString) TableName() string { return "r21_tagged_str" }

// TestGormAutoTagOnWrongType: sortid:"auto" on a field
// AutoID cannot fill is a set-up error, not a silent zero.
func TestGormAutoTagOnWrongType(t *testing.T) {
	for _, dialect := range []string{"postgres", "mysql", "sqlite"} {
		t.Run(dialect, func(t *testing.T) {
			db := gormOn(t, dialect, &gorm.Config{}, gormtype.AutoID{})
			for _, c := range []struct {
				table string
				row   any
				want  string
			}{
				{"r21_tagged_core", &r21TaggedCore{Name: "x"}, "gormtype.SCRU128"},
				{"r21_tagged_str", &r21TaggedString{Name: "x"}, "string"},
			} {
				r21Exec(t, db, "DROP TABLE IF EXISTS "+c.table,
					"CREATE TABLE "+c.table+" (id bigint PRIMARY KEY, ref varchar(64), name varchar(50))")
				err := db.Create(c.row).Error
				if !errors.Is(err, gormtype.ErrSetup) || !strings.Contains(err.Error(), "Ref") || !strings.Contains(err.Error(), c.want) {
					t.Errorf("Create(%T): %v; want ErrSetup naming Ref and %s", c.row, err, c.want)
				} else {
					t.Logf("%T: %v", c.row, err)
				}
				if n := r21Count(t, db, c.table, "1 = 1"); n != 0 {
					t.Errorf("%s: %d rows stored", c.table, n)
				}
			}
		})
	}
}

type r21Traced struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string        `gorm:"size:50"`
}

func (r21Traced) TableName() string { return "r21_traced" }

// TestGormBetweenWithoutModel: Between needs the model to
// pick the bounds; a Find into maps has none, which must be an error that
// says what to do, and BetweenHUID is that way.
func TestGormBetweenWithoutModel(t *testing.T) {
	for _, dialect := range []string{"postgres", "mysql", "sqlite"} {
		t.Run(dialect, func(t *testing.T) {
			db := gormOn(t, dialect, &gorm.Config{}, gormtype.AutoID{})
			resetTables(t, db, &r21Traced{})
			before := r21Traced{ID: gormtype.HUID(mustHUID(time.Now().Add(-time.Hour))), Name: "before"}
			if err := db.Create(&before).Error; err != nil {
				t.Fatal(err)
			}
			from := time.Now().Add(-time.Minute)
			in := []r21Traced{{Name: "a"}, {Name: "b"}}
			if err := db.Create(&in).Error; err != nil {
				t.Fatal(err)
			}
			to := time.Now().Add(time.Minute)

			var rows []map[string]any
			err := db.Table("r21_traced").Scopes(gormtype.Between("id", from, to)).Find(&rows).Error
			if !errors.Is(err, gormtype.ErrUnknownColumn) || !strings.Contains(err.Error(), "db.Model") || !strings.Contains(err.Error(), "BetweenHUID") {
				t.Errorf("Between without a model: %v, %d rows; want ErrUnknownColumn naming db.Model and BetweenHUID", err, len(rows))
			} else {
				t.Logf("Between: %v", err)
			}
			rows = nil
			if err := db.Table("r21_traced").Scopes(gormtype.BetweenHUID("id", from, to)).Order("name").Find(&rows).Error; err != nil {
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
}

// --- helpers ---

// r21Exec runs statements one by one on db.
func r21Exec(t *testing.T, db *gorm.DB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if err := db.Exec(s).Error; err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// r21ExecArgs runs one statement with arguments on db.
func r21ExecArgs(t *testing.T, db *gorm.DB, stmt string, args ...any) {
	t.Helper()
	if err := db.Exec(stmt, args...).Error; err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}

// r21Count counts the rows of table (which may be "ONLY x") matching where.
func r21Count(t *testing.T, db *gorm.DB, table, where string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := db.Raw("SELECT COUNT(*) FROM "+table+" WHERE "+where, args...).Scan(&n).Error; err != nil {
		t.Fatalf("count %s: %v", table, err)
	}
	return n
}

// r21CheckRow checks that table holds exactly one row with key id, named name.
func r21CheckRow(t *testing.T, db *gorm.DB, table string, id gormtype.HUID, name string) {
	t.Helper()
	var names []string
	if err := db.Raw("SELECT name FROM "+table+" WHERE id = ?", id).Scan(&names).Error; err != nil {
		t.Fatalf("read %s: %v", table, err)
	}
	if len(names) != 1 || names[0] != name {
		t.Errorf("%s row %s: names %q, want [%q]", table, id, names, name)
	}
}

// r21Drawn checks that every forced key was drawn: the case collided.
func r21Drawn(t *testing.T, src *takenFirst) {
	t.Helper()
	if n := src.pending(); n != 0 {
		t.Errorf("%d forced keys were never drawn: the case did not collide", n)
	}
}

// r21ColumnInfo describes a column as the dialect's catalog has it.
func r21ColumnInfo(t *testing.T, db *gorm.DB, table, column string) string {
	t.Helper()
	types, err := db.Migrator().ColumnTypes(table)
	if err != nil {
		return err.Error()
	}
	for _, c := range types {
		if c.Name() == column {
			inc, _ := c.AutoIncrement()
			d, _ := c.DefaultValue()
			return fmt.Sprintf("%s, auto-increment %v, default %q", c.DatabaseTypeName(), inc, d)
		}
	}
	return "missing"
}
