package integration_test

// A unique violation that AutoID did not cause is not its collision: a
// trigger's INSERT into another table, on PostgreSQL, MariaDB and SQLite;
// and a table named with the current database is the same table.

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

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
