package integration_test

// A unique violation that AutoID did not cause is not its collision: a
// trigger's INSERT into another table, on PostgreSQL, MariaDB and SQLite;
// and a table named with the current database is the same table. Its own
// are, in every form the drivers report them.

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"gorm.io/driver/postgres"
	"gorm.io/gorm"

	"github.com/sortid/sortid/gormtype"
)

type trigItem struct {
	ID      gormtype.HUID `gorm:"primaryKey"`
	OwnerID int64
	Name    string `gorm:"size:50"`
}

func (trigItem) TableName() string { return "trig_items" }

type trigAudit struct {
	ID int64 `gorm:"primaryKey;autoIncrement:false"`
}

func (trigAudit) TableName() string { return "trig_audits" }

// TestGormTriggerViolationElsewhere: an AFTER INSERT trigger writes the
// row's owner_id as the key of trig_audits. A second row of one owner
// violates trig_audits' key (named id, as trig_items' is): Transaction
// returns the driver's unique violation, neither ErrKeyTaken nor
// ErrRefused, runs once and calls no OnCollision; it was taken for a
// collision on PostgreSQL and SQLite and for a clamping column on MariaDB.
// A taken key of trig_items itself is still a collision, retried.
func TestGormTriggerViolationElsewhere(t *testing.T) {
	t.Parallel()
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src := &takenFirst{}
		var collisions atomic.Int32
		plugin := src.plugin(0)
		plugin.OnCollision = func(context.Context, string, error) { collisions.Add(1) }
		db := d.open(t, &gorm.Config{}, plugin)
		resetTables(t, db, &trigItem{}, &trigAudit{})
		switch d.name {
		case "postgres":
			mustExec(t, db, `CREATE OR REPLACE FUNCTION trig_audit() RETURNS trigger AS $$
				BEGIN INSERT INTO trig_audits (id) VALUES (NEW.owner_id); RETURN NEW; END $$ LANGUAGE plpgsql`,
				`CREATE TRIGGER trig_audit AFTER INSERT ON trig_items FOR EACH ROW EXECUTE FUNCTION trig_audit()`)
		case "sqlite":
			mustExec(t, db, `CREATE TRIGGER trig_audit AFTER INSERT ON trig_items BEGIN INSERT INTO trig_audits (id) VALUES (NEW.owner_id); END`)
		case "mysql":
			mustExec(t, db, `CREATE TRIGGER trig_audit AFTER INSERT ON trig_items FOR EACH ROW INSERT INTO trig_audits (id) VALUES (NEW.owner_id)`)
		}
		first := trigItem{OwnerID: 5, Name: "first"}
		mustCreate(t, db, &first)
		attempts := 0
		err := gormtype.Transaction(t.Context(), db, func(tx *gorm.DB) error {
			attempts++
			return tx.Create(&trigItem{OwnerID: 5, Name: "second"}).Error
		})
		if !isUniqueViolation(err) || errors.Is(err, gormtype.ErrKeyTaken) || errors.Is(err, gormtype.ErrRefused) || attempts != 1 || collisions.Load() != 0 {
			t.Errorf("the trigger's violation of trig_audits' key: %v, %d attempts, %d collisions; want the unique violation, 1 attempt, none", err, attempts, collisions.Load())
		}
		src.next(first.ID)
		taken := trigItem{OwnerID: 6, Name: "taken"}
		if err := gormtype.Transaction(t.Context(), db, func(tx *gorm.DB) error { return tx.Create(&taken).Error }); err != nil || collisions.Load() != 1 || taken.ID == first.ID {
			t.Errorf("a taken key of trig_items: %v, %d collisions, key %v; want it retried with a new key", err, collisions.Load(), taken.ID)
		}
		checkCount(t, db, 2, "trig_items", "1 = 1")
	})
}

// TestGormTriggerQualifiedTable: on MariaDB, rows written to a table named
// with the current database (db.Table("<database>.t")) are the InnoDB table
// itself: a collision after them is retried, not refused as a table whose
// engine keeps rows on a rollback.
func TestGormTriggerQualifiedTable(t *testing.T) {
	t.Parallel()
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src := &takenFirst{}
		db := d.open(t, &gorm.Config{}, src.plugin(0))
		resetTables(t, db, &trigItem{})
		var current string
		if err := db.Raw("SELECT DATABASE()").Scan(&current).Error; err != nil {
			t.Fatal(err)
		}
		taken := trigItem{Name: "taken"}
		mustCreate(t, db, &taken)
		src.next(0, taken.ID) // the second row's key is taken
		rows := []trigItem{{Name: "a"}, {Name: "b"}}
		if err := gormtype.Transaction(t.Context(), db, func(tx *gorm.DB) error {
			return tx.Table(current + ".trig_items").Create(&rows).Error
		}); err != nil {
			t.Errorf("a batch into %s.trig_items with a taken key: %v; want it retried", current, err)
		}
		src.next(taken.ID)
		c := trigItem{Name: "c"}
		if err := gormtype.Transaction(t.Context(), db, func(tx *gorm.DB) error {
			if err := tx.Table(current+".trig_items").Where("name = ?", "a").Update("name", "a2").Error; err != nil {
				return err
			}
			return tx.Create(&c).Error
		}); err != nil {
			t.Errorf("a taken key after an Update of %s.trig_items: %v; want it retried", current, err)
		}
		checkCount(t, db, 4, "trig_items", "1 = 1")
	}, "mysql")
}

// attempts runs fn in Transaction on db, whose AutoID counts collisions in
// collisions, and returns its error, the runs of fn and the collisions.
func attempts(t *testing.T, db *gorm.DB, collisions *atomic.Int32, fn func(tx *gorm.DB) error) (error, int, int32) {
	t.Helper()
	collisions.Store(0)
	runs := 0
	err := gormtype.Transaction(t.Context(), db, func(tx *gorm.DB) error { runs++; return fn(tx) })
	return err, runs, collisions.Load()
}

type trigBytes struct {
	ID   gormtype.SCRU128Bytes `gorm:"primaryKey"`
	Name string                `gorm:"size:50"`
}

func (trigBytes) TableName() string { return "trig_bytes" }

type trigRef struct {
	PK  int64         `gorm:"column:pk;primaryKey;autoIncrement:false"`
	Ref gormtype.HUID `sortid:"auto"`
}

// TestGormTakenValueForms: a key AutoID drew and found taken is retried
// once however the driver reports the value: a bytea key with PostgreSQL's
// bytea_output=escape, a SQLite view whose INSTEAD OF trigger writes the
// row into its table (the error names the table), a MariaDB key value cut
// at 64 characters, a MariaDB index named with a dot. A violation of a key
// of another table by a trigger is the driver's error, also when the
// table's key is a DECIMAL(20,0) or a VARCHAR, which hold HUIDs (it was
// refused as a column that clamps them).
func TestGormTakenValueForms(t *testing.T) {
	t.Parallel()
	src, collisions := &takenFirst{}, &atomic.Int32{}
	plugin := src.plugin(0)
	plugin.OnCollision = func(context.Context, string, error) { collisions.Add(1) }
	retriedOnce := func(t *testing.T, what string, err error, runs int, n int32) {
		t.Helper()
		if err != nil || runs != 2 || n != 1 {
			t.Errorf("%s, key taken: %v, %d runs, %d collisions; want it retried once", what, err, runs, n)
		}
	}
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, plugin)
		switch d.name {
		case "postgres":
			escape := pgURLWith(t, func(_ *url.URL, q url.Values) { q.Set("bytea_output", "escape") })
			db = openGorm(t, postgres.Open(escape), &gorm.Config{}, plugin)
			resetTables(t, db, &trigBytes{})
			first := trigBytes{Name: "first"}
			mustCreate(t, db, &first)
			src.nextSCRU128(first.ID.ID())
			err, runs, n := attempts(t, db, collisions, func(tx *gorm.DB) error { return tx.Create(&trigBytes{Name: "second"}).Error })
			retriedOnce(t, "bytea_output=escape", err, runs, n)
		case "sqlite":
			mustExec(t, db, "DROP VIEW IF EXISTS trig_view", "DROP TABLE IF EXISTS trig_view_rows",
				"CREATE TABLE trig_view_rows (id bigint PRIMARY KEY, name text)",
				"CREATE VIEW trig_view AS SELECT id, name FROM trig_view_rows",
				"CREATE TRIGGER trig_view_insert INSTEAD OF INSERT ON trig_view BEGIN INSERT INTO trig_view_rows VALUES (NEW.id, NEW.name); END")
			first := tableRow{Name: "first"}
			mustCreate(t, db.Table("trig_view"), &first)
			src.next(first.ID)
			err, runs, n := attempts(t, db, collisions, func(tx *gorm.DB) error { return tx.Table("trig_view").Create(&tableRow{Name: "second"}).Error })
			retriedOnce(t, "a view's INSTEAD OF trigger", err, runs, n)
		case "mysql":
			long := strings.Repeat("x", 100)
			mustExec(t, db, "DROP TABLE IF EXISTS trig_long, trig_dot, trig_decimal, trig_varchar, trig_audits",
				"CREATE TABLE trig_long (pk bigint AUTO_INCREMENT PRIMARY KEY, name varchar(100), id bigint, UNIQUE KEY trig_long_u (name, id))",
				"CREATE TABLE trig_dot (pk bigint PRIMARY KEY, ref bigint, UNIQUE KEY `trig.u` (ref))",
				"CREATE TABLE trig_audits (id bigint PRIMARY KEY)")
			first := tableRow{Name: long}
			mustCreate(t, db.Table("trig_long"), &first)
			src.next(first.ID)
			err, runs, n := attempts(t, db, collisions, func(tx *gorm.DB) error { return tx.Table("trig_long").Create(&tableRow{Name: long}).Error })
			retriedOnce(t, "a key value cut at 64 characters", err, runs, n)
			ref := trigRef{PK: 1}
			mustCreate(t, db.Table("trig_dot"), &ref)
			src.next(ref.Ref)
			err, runs, n = attempts(t, db, collisions, func(tx *gorm.DB) error { return tx.Table("trig_dot").Create(&trigRef{PK: 2}).Error })
			retriedOnce(t, "an index named trig.u", err, runs, n)
			for _, typ := range []string{"decimal", "varchar"} {
				table := "trig_" + typ
				mustExec(t, db, "CREATE TABLE "+table+" (id "+map[string]string{"decimal": "decimal(20,0)", "varchar": "varchar(30)"}[typ]+" PRIMARY KEY, name varchar(50))",
					"CREATE TRIGGER "+table+"_audit AFTER INSERT ON "+table+" FOR EACH ROW INSERT INTO trig_audits (id) VALUES (LENGTH(NEW.name) + "+map[string]string{"decimal": "0", "varchar": "100"}[typ]+")")
				mustCreate(t, db.Table(table), &tableRow{Name: "abc"})
				err, runs, n := attempts(t, db, collisions, func(tx *gorm.DB) error { return tx.Table(table).Create(&tableRow{Name: "xyz"}).Error })
				if !isUniqueViolation(err) || errors.Is(err, gormtype.ErrKeyTaken) || errors.Is(err, gormtype.ErrRefused) || runs != 1 || n != 0 {
					t.Errorf("a %s key, the trigger's violation of trig_audits' key: %v, %d runs, %d collisions; want the unique violation, 1 run, none", typ, err, runs, n)
				}
			}
		}
	})
}

type trigBlind struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string        `gorm:"size:50"`
}

func (trigBlind) TableName() string { return "trig_blinds" }

// TestGormTakenKeyWithoutDetail: PostgreSQL leaves the key out of a unique
// violation for a role that may not SELECT the table, and AutoID cannot
// tell its key taken: the Create
// fails with the unique violation, not ErrKeyTaken, and Transaction does
// not rerun it.
func TestGormTakenKeyWithoutDetail(t *testing.T) {
	t.Parallel()
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		resetTables(t, db, &trigBlind{})
		role := "sortid_blind_" + strings.ToLower(gormtype.NewSCRU128().String()[:10])
		mustExec(t, db, "CREATE ROLE "+role+" LOGIN", "GRANT INSERT ON trig_blinds TO "+role)
		t.Cleanup(func() { mustExec(t, db, "DROP OWNED BY "+role, "DROP ROLE "+role) })
		src := &takenFirst{}
		asRole := pgURLWith(t, func(u *url.URL, _ url.Values) { u.User = url.User(role) })
		blind := openGorm(t, postgres.Open(asRole), &gorm.Config{}, src.plugin(0))
		first := trigBlind{Name: "first"}
		mustCreate(t, blind, &first)
		src.next(first.ID)
		runs := 0
		err := gormtype.Transaction(t.Context(), blind, func(tx *gorm.DB) error { runs++; return tx.Create(&trigBlind{Name: "second"}).Error })
		if !isUniqueViolation(err) || errors.Is(err, gormtype.ErrKeyTaken) || runs != 1 {
			t.Errorf("a taken key, the role may not SELECT: %v, %d runs; want the unique violation, 1 run", err, runs)
		}
	}, "postgres")
}
