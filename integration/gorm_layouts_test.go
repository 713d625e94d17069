package integration_test

// The layouts suite: AutoID finds the key a driver's error names in the
// table the Create writes to, whatever its layout: in another schema or
// database (named with db.Table or TableName), behind an alias, a
// partitioned table, one without a unique id, a DEFERRABLE key, a trigger
// that routes rows to a child table; and it retries a multi-row INSERT
// only where the engine undid the rows written before the collision.

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/sortid/sortid/gormtype"
)

// layoutAcct is an account with a unique email, in a table made by SQL.
type layoutAcct struct {
	ID    gormtype.HUID `gorm:"primaryKey"`
	Email string        `gorm:"size:100"`
	Name  string        `gorm:"size:50"`
}

func (layoutAcct) TableName() string { return "layout_accts" }

// layoutOther is the schema (PostgreSQL) or database (MariaDB) of
// layoutOtherAcct's table: GORM reads TableName anew for each gorm.Open.
var layoutOther string

// layoutOtherAcct names the other schema's table by TableName.
type layoutOtherAcct layoutAcct

func (layoutOtherAcct) TableName() string { return layoutOther + ".layout_accts" }

// otherDatabase returns a MariaDB database name of the test's own, made
// from its database's: other databases are the server's, shared by every
// run.
func otherDatabase(t *testing.T, db *gorm.DB, suffix string) string {
	t.Helper()
	var name string
	if err := db.Raw("SELECT DATABASE()").Scan(&name).Error; err != nil || name == "" {
		t.Fatalf("SELECT DATABASE(): %q, %v", name, err)
	}
	return name + "_" + suffix
}

// TestGormLayoutOtherSchema: a Create into layout_other.layout_accts must
// look the violated key up in that table, not in the connection's own
// layout_accts (whose primary key is another column). Had AutoID read the
// local table, the taken id would not count as its own, and on MariaDB the
// held-back ON DUPLICATE KEY UPDATE would rename the victim.
func TestGormLayoutOtherSchema(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		for _, way := range []string{"db.Table", "TableName"} {
			t.Run(way, func(t *testing.T) {
				src := &takenFirst{}
				db := d.open(t, &gorm.Config{}, src.plugin(0))
				if d.name == "mysql" {
					layoutOther = otherDatabase(t, db, "other")
					mustExec(t, db, "DROP DATABASE IF EXISTS "+layoutOther, "CREATE DATABASE "+layoutOther,
						"CREATE TABLE "+layoutOther+".layout_accts (id bigint PRIMARY KEY, email varchar(100) UNIQUE, name varchar(50))",
						"CREATE TABLE layout_accts (acct_no bigint PRIMARY KEY, id bigint, email varchar(100) UNIQUE, name varchar(50))")
					t.Cleanup(func() { mustExec(t, db, "DROP DATABASE IF EXISTS "+layoutOther) })
				} else {
					layoutOther = "layout_other"
					mustExec(t, db, "DROP SCHEMA IF EXISTS layout_other CASCADE", "DROP TABLE IF EXISTS public.layout_accts",
						"CREATE SCHEMA layout_other",
						"CREATE TABLE layout_other.layout_accts (id bigint PRIMARY KEY, email varchar(100) UNIQUE, name varchar(50))",
						"CREATE TABLE public.layout_accts (acct_no bigint PRIMARY KEY, id bigint, email varchar(100) UNIQUE, name varchar(50))")
					t.Cleanup(func() {
						mustExec(t, db, "DROP SCHEMA IF EXISTS layout_other CASCADE", "DROP TABLE IF EXISTS public.layout_accts")
					})
				}
				other := layoutOther + ".layout_accts"
				victim := gormtype.NewHUID()
				mustExecArgs(t, db, "INSERT INTO "+other+" (id, email, name) VALUES (?, 'victim@x', 'victim')", victim)
				// The local table holds the same key under its own key column.
				mustExecArgs(t, db, "INSERT INTO layout_accts (acct_no, id, email, name) VALUES (?, ?, 'local@x', 'local')", victim, victim)

				src.next(victim)
				a := layoutOtherAcct{Email: "new@x", Name: "attacker"}
				tx := db
				if way == "db.Table" {
					tx = db.Table(other) // GORM keeps "layout_accts" as Statement.Table
				}
				if d.name != "mysql" { // MySQL's ON DUPLICATE KEY UPDATE is refused
					tx = tx.Clauses(clause.OnConflict{
						Columns:   []clause.Column{{Name: "email"}},
						DoUpdates: clause.AssignmentColumns([]string{"name"}),
					})
				}
				err := retried(tx, func(tx *gorm.DB) error { return tx.Create(&a).Error })
				src.checkDrawn(t)
				checkCount(t, db, 1, "layout_accts", "name = 'local' AND id = ?", victim)
				checkCount(t, db, 1, other, "id = ? AND email = 'victim@x' AND name = 'victim'", victim)
				if err != nil {
					t.Fatalf("upsert on email into %s with a taken key: %v; want a retry", other, err)
				}
				if a.ID == victim || a.ID.IsZero() {
					t.Errorf("the struct holds key %s (the victim's %s)", a.ID, victim)
				}
				checkCount(t, db, 1, other, "id = ? AND email = 'new@x' AND name = 'attacker'", a.ID)
				checkCount(t, db, 2, other, "1 = 1")
			})
		}
	}, "postgres", "mysql")
}

// TestGormLayoutAliasedTable: db.Table("t AS a") on PostgreSQL (INSERT
// INTO t AS a is valid SQL): a taken fresh key is retried as without the
// alias.
func TestGormLayoutAliasedTable(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src := &takenFirst{}
		db := d.open(t, &gorm.Config{}, src.plugin(0))
		mustExec(t, db, "DROP TABLE IF EXISTS layout_accts",
			"CREATE TABLE layout_accts (id bigint PRIMARY KEY, email varchar(100) UNIQUE, name varchar(50))")
		taken := layoutAcct{ID: gormtype.NewHUID(), Email: "taken@x", Name: "taken"}
		mustCreate(t, db, &taken)
		src.next(taken.ID)
		a := layoutAcct{Email: "new@x", Name: "new"}
		if err := retried(db, func(tx *gorm.DB) error { return tx.Table("layout_accts AS a").Create(&a).Error }); err != nil {
			t.Fatalf("Create through an aliased table with a taken fresh key: %v", err)
		}
		src.checkDrawn(t)
		if a.ID == taken.ID {
			t.Errorf("the struct kept the taken key %s", a.ID)
		}
		checkStored(t, db, a.ID, a)
		checkStored(t, db, taken.ID, taken)
	}, "postgres")
}

// TestGormLayoutNonTransactionalEngine: on a MariaDB engine without
// transactions a multi-row INSERT keeps the rows written before the taken
// key, so running it again would store them twice: AutoID refuses, naming
// the table and InnoDB; the first row stays stored once, the second is not
// stored. InnoDB undoes the statement, so there the batch is retried; a
// single row is retried on any engine.
func TestGormLayoutNonTransactionalEngine(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src := &takenFirst{}
		db := d.open(t, &gorm.Config{}, src.plugin(0))
		for _, engine := range []string{"MyISAM", "Aria", "InnoDB"} {
			for _, rows := range []int{2, 1} {
				for _, inTx := range []bool{false, true} {
					t.Run(fmt.Sprintf("%s/%d-rows/caller-tx=%v", engine, rows, inTx), func(t *testing.T) {
						table := "layout_items_" + strings.ToLower(engine)
						mustExec(t, db, "DROP TABLE IF EXISTS "+table,
							"CREATE TABLE "+table+" (id bigint PRIMARY KEY, name varchar(50)) ENGINE="+engine)
						var got string
						if err := db.Raw("SELECT engine FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?", table).Scan(&got).Error; err != nil || got != engine {
							t.Fatalf("table %s has engine %q (%v), want %s", table, got, err, engine)
						}
						checkNonTransactionalBatch(t, db, src, table, rows, inTx, engine == "InnoDB")
					})
				}
			}
		}
		// The same batch into a MyISAM table of another database, named
		// with db.Table, while the connection's own database has an InnoDB
		// table of that name: AutoID judges the engine of the table
		// written to.
		t.Run("MyISAM-in-another-database", func(t *testing.T) {
			other := otherDatabase(t, db, "other2")
			mustExec(t, db, "DROP DATABASE IF EXISTS "+other, "CREATE DATABASE "+other,
				"CREATE TABLE "+other+".layout_items (id bigint PRIMARY KEY, name varchar(50)) ENGINE=MyISAM",
				"DROP TABLE IF EXISTS layout_items",
				"CREATE TABLE layout_items (id bigint PRIMARY KEY, name varchar(50)) ENGINE=InnoDB")
			t.Cleanup(func() { mustExec(t, db, "DROP DATABASE IF EXISTS "+other) })
			checkNonTransactionalBatch(t, db, src, other+".layout_items", 2, false, false)
		})
	}, "mysql")
}

// checkNonTransactionalBatch creates rows rows in table, the last one's
// fresh key taken, and checks the outcome: retried where the engine undid
// the statement (undone) or for one row, else refused with the first row
// stored once.
func checkNonTransactionalBatch(t *testing.T, db *gorm.DB, src *takenFirst, table string, rows int, inTx, undone bool) {
	t.Helper()
	// The victim's key is from the future, so it sorts after the fresh
	// key drawn with it: the second row collides after the first one was
	// written.
	victim := mustHUID(time.Now().Add(time.Hour))
	mustExecArgs(t, db, "INSERT INTO "+table+" (id, name) VALUES (?, 'victim')", victim)
	items := []tableRow{{Name: "p1"}, {Name: "p2"}}[:rows]
	if rows == 1 {
		src.next(victim)
	} else {
		src.next(0, victim)
	}
	create := func(tx *gorm.DB) error {
		return retried(tx, func(tx *gorm.DB) error { return tx.Table(table).Create(&items).Error })
	}
	var err error
	if inTx {
		err = db.Transaction(create)
	} else {
		err = create(db)
	}
	src.checkDrawn(t)
	checkNamed(t, db, table, victim, "victim")
	if !undone && rows > 1 {
		checkRefused(t, err, gormtype.ErrRefused, table, "InnoDB")
		for _, it := range items {
			if !it.ID.IsZero() {
				t.Errorf("the refused Create left the fresh key %s in %s; want zero", it.ID, it.Name)
			}
		}
		// The engine kept the row written before the collision.
		checkCount(t, db, 1, table, "name = 'p1'")
		checkCount(t, db, 0, table, "name = 'p2'")
		return
	}
	if err != nil {
		t.Fatalf("%d-row Create with a taken key: %v; want a retry", rows, err)
	}
	for _, it := range items {
		if it.ID == victim {
			t.Errorf("%s kept the taken key", it.Name)
		}
		checkCount(t, db, 1, table, "name = ?", it.Name)
		checkNamed(t, db, table, it.ID, it.Name)
	}
}

// layoutEvent is a row of the partitioned layout_events; the model names
// only ID as its key, the table's is (id, created_at).
type layoutEvent struct {
	ID        gormtype.HUID `gorm:"primaryKey"`
	CreatedAt time.Time
	Name      string
}

func (layoutEvent) TableName() string { return "layout_events" }

// TestGormLayoutPostgres: a single-row Create in GORM's own transaction on
// a partitioned table, a table without a unique id and tables with a
// DEFERRABLE key; a taken key is retried where the database reports it at
// the INSERT, and fails at COMMIT where the key is checked only then.
func TestGormLayoutPostgres(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src := &takenFirst{}
		db := d.open(t, &gorm.Config{}, src.plugin(0))

		t.Run("partitioned", func(t *testing.T) {
			mustExec(t, db, "DROP TABLE IF EXISTS layout_events",
				`CREATE TABLE layout_events (id bigint, created_at timestamptz, name text, PRIMARY KEY (id, created_at)) PARTITION BY RANGE (created_at)`,
				`CREATE TABLE layout_events_old PARTITION OF layout_events FOR VALUES FROM (MINVALUE) TO ('2000-01-01')`,
				`CREATE TABLE layout_events_new PARTITION OF layout_events FOR VALUES FROM ('2000-01-01') TO (MAXVALUE)`)
			e := layoutEvent{Name: "plain"}
			if err := retried(db, func(tx *gorm.DB) error { return tx.Create(&e).Error }); err != nil || e.ID.IsZero() {
				t.Fatalf("Create: %v, key %s", err, e.ID)
			}
			checkCount(t, db, 1, "layout_events", "id = ? AND name = 'plain'", e.ID)
			for _, at := range []time.Time{
				time.Date(1999, 5, 1, 10, 0, 0, 0, time.UTC),
				time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC),
			} {
				other := layoutEvent{ID: gormtype.NewHUID(), CreatedAt: at, Name: "other"}
				mustCreate(t, db, &other)
				src.next(other.ID)
				mine := layoutEvent{CreatedAt: at, Name: "mine"} // same (id, created_at) at first
				if err := retried(db, func(tx *gorm.DB) error { return tx.Create(&mine).Error }); err != nil {
					t.Fatalf("Create at %v with a taken key: %v", at, err)
				}
				src.checkDrawn(t)
				if mine.ID == other.ID {
					t.Fatalf("kept the taken key")
				}
				checkCount(t, db, 1, "layout_events", "id = ? AND name = 'other'", other.ID)
				checkCount(t, db, 1, "layout_events", "id = ?", other.ID)
				checkCount(t, db, 1, "layout_events", "id = ? AND name = 'mine'", mine.ID)
			}
		})

		t.Run("no-unique-id", func(t *testing.T) {
			mustExec(t, db, "DROP TABLE IF EXISTS layout_nokey", "CREATE TABLE layout_nokey (id bigint, name text)")
			r := tableRow{Name: "plain"}
			if err := db.Table("layout_nokey").Create(&r).Error; err != nil {
				t.Fatalf("Create: %v", err)
			}
			checkNamed(t, db, "layout_nokey", r.ID, "plain")
		})

		for _, initially := range []string{"IMMEDIATE", "DEFERRED"} {
			t.Run("deferrable-"+strings.ToLower(initially), func(t *testing.T) {
				table := "layout_defer_" + strings.ToLower(initially)
				mustExec(t, db, "DROP TABLE IF EXISTS "+table,
					fmt.Sprintf("CREATE TABLE %s (id bigint, name text, PRIMARY KEY (id) DEFERRABLE INITIALLY %s)", table, initially))
				r := tableRow{Name: "plain"}
				if err := db.Table(table).Create(&r).Error; err != nil {
					t.Fatalf("Create: %v", err)
				}
				checkNamed(t, db, table, r.ID, "plain")

				other := tableRow{ID: gormtype.NewHUID(), Name: "other"}
				mustCreate(t, db.Table(table), &other)
				src.next(other.ID)
				mine := tableRow{Name: "mine"}
				err := retried(db, func(tx *gorm.DB) error { return tx.Table(table).Create(&mine).Error })
				src.checkDrawn(t)
				checkNamed(t, db, table, other.ID, "other")
				checkCount(t, db, 1, table, "id = ?", other.ID)
				if initially == "IMMEDIATE" {
					if err != nil || mine.ID == other.ID {
						t.Fatalf("Create with a taken key: %v, key %s; want a retry", err, mine.ID)
					}
					checkNamed(t, db, table, mine.ID, "mine")
					return
				}
				// The key is checked at GORM's COMMIT, after the INSERT
				// succeeded: the Create fails, stores nothing, and leaves
				// the fresh key zero.
				if !isUniqueViolation(err) {
					t.Errorf("Create with a taken deferred key: %v; want the unique violation at commit", err)
				}
				if !mine.ID.IsZero() {
					t.Errorf("the failed Create left the fresh key %s (taken %s); want zero", mine.ID, other.ID)
				}
				checkCount(t, db, 0, table, "name = 'mine'")

				// In a caller's transaction the Create cannot see the
				// violation: it succeeds, and the caller's COMMIT reports
				// it. As after any rollback of a transaction the Create
				// succeeded in, the struct keeps its key.
				src.next(other.ID)
				mine = tableRow{Name: "mine-in-tx"}
				var createErr error
				err = db.Transaction(func(tx *gorm.DB) error {
					createErr = tx.Table(table).Create(&mine).Error
					return createErr
				})
				src.checkDrawn(t)
				if createErr != nil || !isUniqueViolation(err) {
					t.Errorf("caller's transaction with a taken deferred key: Create %v, Transaction %v; want the Create to succeed and the COMMIT to fail with the unique violation", createErr, err)
				}
				if mine.ID != other.ID {
					t.Errorf("after the failed COMMIT the struct holds %s; want the key the Create stored, %s", mine.ID, other.ID)
				}
				checkNamed(t, db, table, other.ID, "other")
				checkCount(t, db, 0, table, "name = 'mine-in-tx'")
			})
		}
	}, "postgres")
}

// layoutTrig names the trigger table by TableName.
type layoutTrig struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string
}

func (layoutTrig) TableName() string { return "layout_app.trig" }

// TestGormLayoutTriggerReturnsNull: a BEFORE INSERT trigger in another
// schema routes the row to a child table and returns NULL; the INSERT
// reports no row (RowsAffected 0), and the Create still succeeds, named
// with db.Table or TableName, with a key the caller set (retries off) and
// with a fresh key taken in the child, which is retried: the child's key
// names the same column.
func TestGormLayoutTriggerReturnsNull(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src := &takenFirst{}
		db := d.open(t, &gorm.Config{}, src.plugin(0))
		mustExec(t, db, "DROP SCHEMA IF EXISTS layout_app CASCADE", "CREATE SCHEMA layout_app",
			"CREATE TABLE layout_app.trig (id bigint PRIMARY KEY, name text)",
			"CREATE TABLE layout_app.trig_child (PRIMARY KEY (id)) INHERITS (layout_app.trig)",
			`CREATE FUNCTION layout_app.trig_route() RETURNS trigger LANGUAGE plpgsql AS $$
			BEGIN INSERT INTO layout_app.trig_child VALUES (NEW.*); RETURN NULL; END $$`,
			"CREATE TRIGGER trig_route BEFORE INSERT ON layout_app.trig FOR EACH ROW EXECUTE FUNCTION layout_app.trig_route()")
		t.Cleanup(func() { mustExec(t, db, "DROP SCHEMA IF EXISTS layout_app CASCADE") })
		noRetry := d.open(t, &gorm.Config{}, gormtype.AutoID{Retries: -1})

		for _, c := range []struct {
			name   string
			create func(name string) (gormtype.HUID, *gorm.DB)
		}{
			{"db.Table", func(name string) (gormtype.HUID, *gorm.DB) {
				r := tableRow{Name: name}
				res := db.Table("layout_app.trig").Create(&r)
				return r.ID, res
			}},
			{"TableName", func(name string) (gormtype.HUID, *gorm.DB) {
				r := layoutTrig{Name: name}
				res := db.Create(&r)
				return r.ID, res
			}},
			{"caller-set-key", func(name string) (gormtype.HUID, *gorm.DB) {
				r := layoutTrig{ID: gormtype.NewHUID(), Name: name}
				res := noRetry.Create(&r)
				return r.ID, res
			}},
		} {
			t.Run(c.name, func(t *testing.T) {
				id, res := c.create(c.name)
				if res.Error != nil || id.IsZero() {
					t.Fatalf("Create: %v, key %s", res.Error, id)
				}
				if res.RowsAffected != 0 {
					t.Errorf("RowsAffected %d; want 0, the INSERT into the parent stores no row", res.RowsAffected)
				}
				checkNamed(t, db, "ONLY layout_app.trig_child", id, c.name)
				checkCount(t, db, 0, "ONLY layout_app.trig", "1 = 1")
			})
		}
		t.Run("taken-key-in-child", func(t *testing.T) {
			other := gormtype.NewHUID()
			mustExecArgs(t, db, "INSERT INTO layout_app.trig_child (id, name) VALUES (?, 'other')", other)
			src.next(other)
			r := tableRow{Name: "mine"}
			if err := retried(db, func(tx *gorm.DB) error { return tx.Table("layout_app.trig").Create(&r).Error }); err != nil {
				t.Fatalf("Create with a key taken in the child: %v; want a retry", err)
			}
			src.checkDrawn(t)
			if r.ID == other || r.ID.IsZero() {
				t.Fatalf("the struct holds key %s (taken %s)", r.ID, other)
			}
			checkNamed(t, db, "ONLY layout_app.trig_child", other, "other")
			checkNamed(t, db, "ONLY layout_app.trig_child", r.ID, "mine")
			checkCount(t, db, 5, "layout_app.trig", "1 = 1") // and the three rows above
		})
	}, "postgres")
}
