package integration_test

// The conditions suite: a key or an ID in a WHERE matches the rows it names
// or fails by name, on PostgreSQL, MariaDB and SQLite; and gormtype.Transaction
// in the hook of a row GORM saves as an association is a set-up error with
// its way out.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"
	"gorm.io/driver/mysql"
	"gorm.io/gorm"

	"github.com/sortid/sortid/gormtype"
)

type whereNode struct {
	ID       gormtype.HUID  `gorm:"primaryKey"`
	ParentID *gormtype.HUID `gorm:"index"`
	Opt      gormtype.NullSCRU128
	Name     string `gorm:"size:50"`
}

func (whereNode) TableName() string { return "where_nodes" }

// TestGormWhereZeroID: a zero ID in a map, struct or column condition (the
// key of a parent not created yet) fails with ErrZeroID, as in a string
// condition, naming the ID's type, and deletes or updates nothing: GORM
// drops a Value's error and wrote a nil Value as IS NULL, which matched the
// roots. nil and a NULL Null still
// mean NULL. An Update of a row whose pointer key points to zero fails so.
func TestGormWhereZeroID(t *testing.T) {
	t.Parallel()
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		resetTables(t, db, &whereNode{})
		root1, root2 := whereNode{Name: "root1"}, whereNode{Name: "root2"}
		mustCreate(t, db, &root1)
		mustCreate(t, db, &root2)
		mustCreate(t, db, &whereNode{ParentID: &root1.ID, Opt: gormtype.NullSCRU128{V: gormtype.NewSCRU128(), Valid: true}, Name: "child"})
		var unset gormtype.HUID
		model := func() *gorm.DB { return db.Model(&whereNode{}) }
		for _, c := range []struct {
			name, typ string
			q         *gorm.DB
		}{
			{`Where("parent_id = ?", zero)`, "gormtype.HUID", model().Where("parent_id = ?", unset)},
			{`Where(map{"parent_id": zero})`, "gormtype.HUID", model().Where(map[string]any{"parent_id": unset})},
			{`Where("parent_id", zero)`, "gormtype.HUID", model().Where("parent_id", unset)},
			{`Where(&T{ParentID: &zero})`, "gormtype.HUID", model().Where(&whereNode{ParentID: &unset})},
			{`Not(map{"parent_id": zero})`, "gormtype.HUID", model().Not(map[string]any{"parent_id": unset})},
			{`Or(map{"parent_id": zero})`, "gormtype.HUID", model().Where("name = ?", "child").Or(map[string]any{"parent_id": unset})},
			{`Where(map{"opt": zero SCRU128})`, "gormtype.SCRU128", model().Where(map[string]any{"opt": gormtype.SCRU128{}})},
			{`Where(map{"opt": Valid zero Null})`, "gormtype.SCRU128", model().Where(map[string]any{"opt": gormtype.NullSCRU128{Valid: true}})},
			{`Where(map{"id": zero})`, "gormtype.HUID", model().Where(map[string]any{"id": unset})},
		} {
			var rows []whereNode
			for what, err := range map[string]error{
				"Find":   c.q.Session(&gorm.Session{}).Find(&rows).Error,
				"Update": c.q.Session(&gorm.Session{}).Update("name", "moved").Error,
				"Delete": c.q.Session(&gorm.Session{}).Delete(&whereNode{}).Error,
			} {
				if !errors.Is(err, gormtype.ErrZeroID) || !strings.Contains(err.Error(), c.typ) {
					t.Errorf("%s.%s: %v; want ErrZeroID naming %q", c.name, what, err, c.typ)
				}
			}
		}
		checkCount(t, db, 3, "where_nodes", "name <> 'moved'")
		var roots []whereNode
		for _, null := range []any{nil, (*gormtype.HUID)(nil)} {
			if err := db.Where(map[string]any{"parent_id": null}).Find(&roots).Error; err != nil || len(roots) != 2 {
				t.Errorf("Where(map{parent_id: %#v}) = %d rows, %v; want the 2 roots", null, len(roots), err)
			}
		}
		if err := db.Where(map[string]any{"opt": gormtype.NullSCRU128{}}).Find(&roots).Error; err != nil || len(roots) != 2 {
			t.Errorf("Where(map{opt: NULL Null}) = %d rows, %v; want the 2 roots", len(roots), err)
		}
	})
}

type wherePtrKey struct {
	ID   *gormtype.HUID `gorm:"primaryKey"`
	Name string         `gorm:"size:50"`
}

func (wherePtrKey) TableName() string { return "where_ptr_keys" }

// TestGormWherePointerKey: an Update or Save of a row whose pointer key
// points to a zero HUID fails with ErrZeroID (GORM matched it as NULL); a
// nil *HUID given inline panics in GORM, as any Valuer with a value
// receiver does (docs/gorm.md), and a pointer to zero fails.
func TestGormWherePointerKey(t *testing.T) {
	t.Parallel()
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		resetTables(t, db, &wherePtrKey{})
		mustCreate(t, db, &[]wherePtrKey{{Name: "a"}, {Name: "b"}})
		zero := wherePtrKey{ID: new(gormtype.HUID), Name: "z"}
		checkRefused(t, db.Model(&zero).Update("name", "x").Error, gormtype.ErrZeroID, "wherePtrKey.ID")
		checkRefused(t, db.Save(&zero).Error, gormtype.ErrZeroID, "wherePtrKey.ID")
		var r wherePtrKey
		if err := db.First(&r, zero.ID).Error; err == nil {
			t.Errorf("First(&r, pointer to zero): err nil, found %+v", r)
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("First(&r, nil *HUID) did not panic; docs/gorm.md says GORM does")
				}
			}()
			db.First(&r, (*gormtype.HUID)(nil))
		}()
		checkCount(t, db, 2, "where_ptr_keys", "name IN ('a', 'b')")
	})
}

type whereBytesRow struct {
	ID   gormtype.SCRU128Bytes `gorm:"primaryKey"`
	Name string                `gorm:"size:50"`
}

func (whereBytesRow) TableName() string { return "where_bytes_rows" }

// TestGormWhereKeyUpdate: Where(id) with a SCRU128Bytes key, which GORM
// expands into 16 numbers, updates that row only in every Update form; on
// MariaDB also without strict mode, where the numbers matched every row.
func TestGormWhereKeyUpdate(t *testing.T) {
	t.Parallel()
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		checkKeyUpdates(t, d.open(t, &gorm.Config{}, gormtype.AutoID{}))
	})
	t.Run("mysql-not-strict", func(t *testing.T) {
		checkKeyUpdates(t, openLaxMariaDB(t, &gorm.Config{}, gormtype.AutoID{}))
	})
}

func checkKeyUpdates(t *testing.T, db *gorm.DB) {
	resetTables(t, db, &whereBytesRow{})
	target := gormtype.NewSCRU128Bytes()
	target[15] = 0 // a zero byte, which one SCRU128 in 16 has
	mustCreate(t, db, &[]whereBytesRow{{ID: target, Name: "target"}, {Name: "other1"}, {Name: "other2"}})
	for name, update := range map[string]func(*gorm.DB) *gorm.DB{
		"Update":        func(q *gorm.DB) *gorm.DB { return q.Update("name", "u") },
		"Updates":       func(q *gorm.DB) *gorm.DB { return q.Updates(map[string]any{"name": "u"}) },
		"UpdateColumn":  func(q *gorm.DB) *gorm.DB { return q.UpdateColumn("name", "u") },
		"UpdateColumns": func(q *gorm.DB) *gorm.DB { return q.UpdateColumns(whereBytesRow{Name: "u"}) },
	} {
		mustExec(t, db, "UPDATE where_bytes_rows SET name = 'x'")
		res := update(db.Model(&whereBytesRow{}).Where(target))
		if n := countRows(t, db, "where_bytes_rows", "name = 'u'"); res.Error != nil || res.RowsAffected != 1 || n != 1 {
			t.Errorf("%s by Where(key): %v, RowsAffected %d, %d rows updated; want the one row", name, res.Error, res.RowsAffected, n)
		}
	}
}

// openLaxMariaDB opens the test's MariaDB database with a session sql_mode
// without STRICT_TRANS_TABLES, as many MySQL and MariaDB servers run.
func openLaxMariaDB(t *testing.T, cfg *gorm.Config, plugins ...gorm.Plugin) *gorm.DB {
	t.Helper()
	dsn, err := mysqldrv.ParseDSN(mysqlDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	if dsn.Params == nil {
		dsn.Params = map[string]string{}
	}
	dsn.Params["sql_mode"] = "'NO_ENGINE_SUBSTITUTION'"
	return openGorm(t, mysql.Open(dsn.FormatDSN()), cfg, plugins...)
}

type whereAudit struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Note string        `gorm:"size:80"`
}

func (whereAudit) TableName() string { return "where_audits" }

type whereHooked struct {
	ID   gormtype.HUID    `gorm:"primaryKey"`
	Name string           `gorm:"size:50"`
	Kids []whereHookedKid `gorm:"foreignKey:ParentID"`
}

func (whereHooked) TableName() string { return "where_hooked" }

// whereHookedKid's AfterCreate writes an audit row, through
// gormtype.Transaction on the hook's tx when Retry is set, else with the
// hook's tx.
type whereHookedKid struct {
	ID       gormtype.HUID `gorm:"primaryKey"`
	ParentID gormtype.HUID
	Name     string      `gorm:"size:50"`
	Retry    bool        `gorm:"-"`
	Audit    *whereAudit `gorm:"-"`
}

func (whereHookedKid) TableName() string { return "where_hooked_kids" }

func (k *whereHookedKid) AfterCreate(tx *gorm.DB) error {
	k.Audit = &whereAudit{Note: "kid " + k.Name}
	if k.Retry {
		return gormtype.Transaction(tx.Statement.Context, tx, func(tx *gorm.DB) error { return tx.Create(k.Audit).Error })
	}
	return tx.Create(k.Audit).Error
}

// TestGormWhereAssociationHookTransaction: GORM turns savepoints off for
// the hooks of rows it saves as associations, so gormtype.Transaction there
// fails with ErrSetup naming that and the way out, and nothing is stored.
// The way out, the hook writing with its tx and the outer Create in
// gormtype.Transaction, reruns it all when the audit's key is taken.
func TestGormWhereAssociationHookTransaction(t *testing.T) {
	t.Parallel()
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src := &takenFirst{}
		db := d.open(t, &gorm.Config{DisableForeignKeyConstraintWhenMigrating: true}, src.plugin(0))
		resetTables(t, db, &whereHooked{}, &whereHookedKid{}, &whereAudit{})
		h := whereHooked{Name: "refused", Kids: []whereHookedKid{{Name: "a", Retry: true}}}
		checkRefused(t, db.Create(&h).Error, gormtype.ErrSetup, "DisableNestedTransaction", "associations", "hook's tx", "gormtype.Transaction")
		checkCount(t, db, 0, "where_hooked", "1 = 1")
		victim := whereAudit{ID: gormtype.NewHUID(), Note: "victim"}
		mustCreate(t, db, &victim)
		h = whereHooked{Name: "p", Kids: []whereHookedKid{{Name: "a"}}}
		src.next(0, 0, victim.ID) // the row's key, its kid's, then the audit's: taken
		attempts := 0
		err := gormtype.Transaction(context.Background(), db, func(tx *gorm.DB) error {
			attempts++
			return tx.Create(&h).Error
		})
		src.checkDrawn(t)
		if err != nil || attempts != 2 {
			t.Fatalf("Transaction: %v after %d attempts; want success after 2", err, attempts)
		}
		checkCount(t, db, 1, "where_hooked_kids", "id = ? AND parent_id = ?", h.Kids[0].ID, h.ID)
		checkCount(t, db, 1, "where_audits", fmt.Sprintf("id = ? AND note = '%s'", "kid a"), h.Kids[0].Audit.ID)
		checkCount(t, db, 2, "where_audits", "1 = 1")
	})
}

type whereBack struct {
	ID       gormtype.HUID  `gorm:"primaryKey"`
	ParentID *gormtype.HUID `gorm:"index"`
	Name     string         `gorm:"size:50"`
	Kids     []whereBack    `gorm:"foreignKey:ParentID"`
}

func (whereBack) TableName() string { return "where_back_nodes" }

// TestGormWhereErrorsGORMDrops: where GORM takes a value or a scope for its
// own and drops the error, the statement still fails, and nothing is
// written. A bad Between window with Create, Raw or Exec (which drop the
// condition that carries it); a zero ID that GORM assigns from a condition
// (FirstOrInit) or an owner (Association Replace) fails with ErrZeroID; a
// stored zero scanned into a map fails JSON with ErrZeroID.
func TestGormWhereErrorsGORMDrops(t *testing.T) {
	t.Parallel()
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{DisableForeignKeyConstraintWhenMigrating: true}, gormtype.AutoID{})
		resetTables(t, db, &whereBack{})
		mustCreate(t, db, &whereBack{Name: "r1", Kids: []whereBack{{Name: "k1"}}})
		from, to := time.Now(), time.Now().Add(-time.Hour)
		bad, badHUID := gormtype.Between("id", from, to), gormtype.BetweenHUID("id", from, to)
		var rows []whereBack
		for what, err := range map[string]error{
			"Create": db.Scopes(bad).Create(&whereBack{Name: "bad"}).Error,
			"Raw":    db.Scopes(badHUID).Raw("SELECT * FROM where_back_nodes").Scan(&rows).Error,
			"Exec":   db.Scopes(badHUID).Exec("UPDATE where_back_nodes SET name = 'bad'").Error,
		} {
			if err == nil || !strings.Contains(err.Error(), `Between("id")`) {
				t.Errorf("Scopes(Between with a reversed window).%s: %v; want Between's error", what, err)
			}
		}
		checkCount(t, db, 0, "where_back_nodes", "name = 'bad'")

		var r whereBack
		checkRefused(t, db.Where(map[string]any{"parent_id": gormtype.HUID(0)}).FirstOrInit(&r).Error, gormtype.ErrZeroID, "gormtype.HUID")
		checkRefused(t, db.Model(&whereBack{}).Association("Kids").Replace(&whereBack{Name: "new"}), gormtype.ErrZeroID, "gormtype.HUID")
		checkCount(t, db, 0, "where_back_nodes", "name = 'new'")

		mustExec(t, db, "UPDATE where_back_nodes SET parent_id = 0 WHERE name = 'k1'")
		var ms []map[string]any
		if err := db.Model(&whereBack{}).Where("name = ?", "k1").Find(&ms).Error; err != nil || len(ms) != 1 {
			t.Fatalf("Find into maps: %v, %d rows", err, len(ms))
		}
		if _, err := json.Marshal(ms); !errors.Is(err, gormtype.ErrZeroID) {
			t.Errorf("json.Marshal of a map holding a stored zero parent_id (%v): %v; want ErrZeroID", ms[0]["parent_id"], err)
		}
	})
}
