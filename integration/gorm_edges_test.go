package integration_test

// The edges suite: conditions GORM builds out of sight (a clause among an
// expression's values, a group condition whose scope failed, a composite
// key with an unset part), a map shared by goroutines, MySQL's upsert of a
// row given by key, zero IDs in other clauses, Save of loaded slices with
// new children, SCRU128Bytes batches, Transaction's context and options,
// and an upsert on the key. Each on PostgreSQL, MariaDB and SQLite unless
// named; not in parallel, as the tests share their tables.

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/sortid/sortid/gormtype"
	"github.com/sortid/sortid/idtype"
)

type edgeNode struct {
	ID       gormtype.HUID    `gorm:"primaryKey"`
	ParentID *gormtype.HUID   // NULL for a root
	Ref      gormtype.SCRU128 `sortid:"auto"`
	Name     string           `gorm:"size:50"`
}

func (edgeNode) TableName() string { return "edge_nodes" }

func edgeSeed(t *testing.T, db *gorm.DB) (root edgeNode, kids []edgeNode) {
	t.Helper()
	resetTables(t, db, &edgeNode{})
	root = edgeNode{Name: "root"}
	mustCreate(t, db, &root)
	other := edgeNode{Name: "root2"}
	mustCreate(t, db, &other)
	kids = []edgeNode{{ParentID: &root.ID, Name: "k1"}, {ParentID: &root.ID, Name: "k2"}}
	mustCreate(t, db, &kids)
	return root, kids
}

// TestGormEdgeEqInExprVars: a condition built by hand as a clause.Eq (or
// clause.And of one) passed as a value of a string condition or a
// clause.Expr, which GORM builds in place, fails with ErrZeroID and deletes
// nothing (it was written "parent_id IS NULL" and deleted the roots).
func TestGormEdgeEqInExprVars(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		var zero gormtype.HUID
		eq := clause.Eq{Column: clause.Column{Name: "parent_id"}, Value: zero}
		for name, cond := range map[string]*gorm.DB{
			"Where(? OR ?)":        db.Where("? OR name = ?", eq, "none"),
			"Expr{(?)} of an And":  db.Where(clause.Expr{SQL: "(?)", Vars: []any{clause.And(eq)}}),
			"gorm.Expr(NOT NOT ?)": db.Where(gorm.Expr("NOT (NOT (?))", eq)),
		} {
			edgeSeed(t, db)
			err := cond.Delete(&edgeNode{}).Error
			n := countRows(t, db, "edge_nodes", "parent_id IS NULL")
			if !errors.Is(err, gormtype.ErrZeroID) || n != 2 {
				t.Errorf("%s: Delete where parent_id = zero HUID: err %v, %d of 2 roots left; want ErrZeroID and none deleted", name, err, n)
			}
		}
	})
}

// TestGormEdgeGroupConditionDropsScopeError: a group condition (a
// *gorm.DB given to Where) whose Between scope fails fails the query, and
// the Delete removes nothing, as does one in a subquery: GORM takes the
// group's WHERE and drops its error, and writes a failed subquery as no
// SQL, so Between's condition binds a value the driver refuses.
func TestGormEdgeGroupConditionDropsScopeError(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		edgeSeed(t, db)
		// "everything made before an hour ago", from the zero time: before the
		// HUID epoch, ErrTimeOutOfRange
		old := db.Scopes(gormtype.BetweenHUID("id", time.Time{}, time.Now().Add(-time.Hour)))
		err := db.Where("name LIKE ?", "k%").Where(old).Delete(&edgeNode{}).Error
		n := countRows(t, db, "edge_nodes", "name LIKE 'k%'")
		if err == nil || n != 2 {
			t.Errorf("Delete of kids made over an hour ago, window from the zero time: err %v, %d of 2 new kids left; want Between's error and none deleted", err, n)
		}
		// The same window with Model and Between (by the model's field).
		edgeSeed(t, db)
		old = db.Model(&edgeNode{}).Scopes(gormtype.Between("id", time.Now(), time.Now().Add(-time.Hour))) // from after to
		var found []edgeNode
		err = db.Where(old).Or("name = ?", "nobody").Find(&found).Error
		if err == nil || len(found) != 0 {
			t.Errorf("Find with a reversed Between window in a group: err %v, %d rows; want Between's error", err, len(found))
		}
		// In a subquery, which GORM writes as no SQL when it failed: NOT IN ()
		// would delete every row.
		edgeSeed(t, db)
		before := countRows(t, db, "edge_nodes", "1 = 1")
		keep := db.Model(&edgeNode{}).Select("id").Scopes(gormtype.BetweenHUID("id", time.Now(), time.Now().Add(-time.Hour)))
		err = db.Where("id NOT IN (?)", keep).Delete(&edgeNode{}).Error
		if n := countRows(t, db, "edge_nodes", "1 = 1"); err == nil || n != before {
			t.Errorf("Delete NOT IN a subquery with a reversed Between window: err %v, %d of %d rows left; want Between's error and none deleted", err, n, before)
		}
	})
}

type edgeOrder struct {
	ID    gormtype.HUID `gorm:"primaryKey"`
	Name  string        `gorm:"size:50"`
	Lines []edgeLine    `gorm:"foreignKey:OrderID"`
}

func (edgeOrder) TableName() string { return "edge_orders" }

type edgeLine struct {
	OrderID gormtype.HUID `gorm:"primaryKey" sortid:"-"`
	Seq     int           `gorm:"primaryKey;autoIncrement:false"`
	Item    string        `gorm:"size:50"`
}

func (edgeLine) TableName() string { return "edge_lines" }

// TestGormEdgeCompositeZeroPart: an Update of a row of a composite key
// (order_id, seq) whose HUID part is zero, as in docs/gorm.md's
// weak-entity shape, fails with ErrZeroID and edits nothing (GORM left the
// zero part out and edited line 1 of every order); Delete fails too.
func TestGormEdgeCompositeZeroPart(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{DisableForeignKeyConstraintWhenMigrating: true}, gormtype.AutoID{})
		resetTables(t, db, &edgeOrder{}, &edgeLine{})
		a := edgeOrder{Name: "a", Lines: []edgeLine{{Seq: 1, Item: "a1"}, {Seq: 2, Item: "a2"}}}
		b := edgeOrder{Name: "b", Lines: []edgeLine{{Seq: 1, Item: "b1"}}}
		mustCreate(t, db, &a)
		mustCreate(t, db, &b)

		if err := db.Delete(&edgeLine{Seq: 1}).Error; err == nil {
			t.Errorf("Delete of a line with a zero OrderID: no error")
		}
		checkCount(t, db, 3, "edge_lines", "1 = 1")

		forgot := edgeLine{Seq: 1} // OrderID forgotten
		err := db.Model(&forgot).Update("item", "edited").Error
		n := countRows(t, db, "edge_lines", "item = 'edited'")
		if !errors.Is(err, gormtype.ErrZeroID) || n != 0 {
			t.Errorf("Model(line with zero OrderID).Update: err %v, %d lines edited (of orders a and b); want ErrZeroID, none", err, n)
		}
	})
}

type edgeRef struct {
	ID      gormtype.HUID `gorm:"primaryKey"`
	OwnerID gormtype.HUID
	Name    string `gorm:"size:50"`
}

func (edgeRef) TableName() string { return "edge_refs" }

// TestGormEdgeSharedMapUpdates: one map of changes given to Updates on
// several goroutines, as plain GORM only reads it: AutoID binds its IDs in
// a copy (run with -race), and the caller's map is left as given.
func TestGormEdgeSharedMapUpdates(t *testing.T) {
	edgeSharedMapUpdates(t, gormtype.AutoID{})
}

func edgeSharedMapUpdates(t *testing.T, plugins ...gorm.Plugin) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, plugins...)
		resetTables(t, db, &edgeRef{})
		rows := make([]edgeRef, 8)
		for i := range rows {
			rows[i].ID, rows[i].OwnerID, rows[i].Name = gormtype.NewHUID(), gormtype.NewHUID(), "r"
		}
		mustCreate(t, db, &rows)
		owner := gormtype.NewHUID()
		given := owner.ID() // an idtype.HUID, as a caller holding idtype values passes it
		reassign := map[string]any{"owner_id": given, "name": "moved"}
		var wg sync.WaitGroup
		errs := make([]error, len(rows))
		for i := range rows {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 20 {
					if err := db.Model(&rows[i]).Updates(reassign).Error; err != nil {
						errs[i] = err
					}
				}
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Errorf("Updates: %v", err)
			}
		}
		if v, ok := reassign["owner_id"].(idtype.HUID); !ok || v != given {
			t.Errorf("the caller's map now holds %T %v for owner_id; it gave idtype.HUID %v", reassign["owner_id"], reassign["owner_id"], given)
		}
		checkCount(t, db, int64(len(rows)), "edge_refs", "owner_id = ? AND name = 'moved'", owner)
	}, "postgres")
}

type edgeAcct struct {
	ID    gormtype.HUID `gorm:"primaryKey"`
	Email string        `gorm:"size:50;uniqueIndex"`
	Name  string        `gorm:"size:50"`
}

func (edgeAcct) TableName() string { return "edge_accts" }

// TestGormEdgeSaveByKeyOtherUniqueKey: db.Save of a row with a caller-set
// key that no row has, whose email another row holds, as plain GORM does
// (docs/gorm.md): PostgreSQL and SQLite fail with the unique violation;
// MySQL's ON DUPLICATE KEY UPDATE fires on the email and rewrites the other
// row, with err nil, and no row has the struct's key. Save of a slice
// alike.
func TestGormEdgeSaveByKeyOtherUniqueKey(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		resetTables(t, db, &edgeAcct{})
		held := edgeAcct{Email: "a@x", Name: "owner of a@x"}
		mustCreate(t, db, &held)
		one := []edgeAcct{{ID: gormtype.NewHUID(), Email: "a@x", Name: "intruder"}}
		batch := []edgeAcct{{ID: gormtype.NewHUID(), Email: "a@x", Name: "batch intruder"}}
		for _, c := range []struct {
			save func() error
			rows []edgeAcct
		}{{func() error { return db.Save(&one[0]).Error }, one}, {func() error { return db.Save(&batch).Error }, batch}} {
			err := c.save()
			if d.name == "mysql" {
				if err != nil {
					t.Errorf("Save on MySQL: %v; want GORM's upsert on the email", err)
				}
				checkNamed(t, db, "edge_accts", held.ID, c.rows[0].Name)
			} else {
				if !isUniqueViolation(err) {
					t.Errorf("Save: %v; want the unique violation", err)
				}
				checkNamed(t, db, "edge_accts", held.ID, "owner of a@x")
			}
			checkCount(t, db, 0, "edge_accts", "id = ?", c.rows[0].ID)
		}
	})
}

// ---- scenarios expected to be clean ----

// TestGormEdgeZeroInOtherClauses: a zero ID in subqueries given to
// Select, Table, Order, Joins, in Distinct/Count, in gorm.Expr of an
// Update, UpdateColumn, and of a map Create: every statement fails, and
// no row changes.
func TestGormEdgeZeroInOtherClauses(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		root, kids := edgeSeed(t, db)
		var zero gormtype.HUID
		var zeroRef gormtype.SCRU128
		sub := func() *gorm.DB {
			return db.Model(&edgeNode{}).Select("COUNT(*)").Where(map[string]any{"parent_id": zero})
		}
		subRef := func() *gorm.DB { return db.Model(&edgeNode{}).Select("id").Where("ref = ?", zeroRef) }
		var out []map[string]any
		var n int64
		cases := map[string]error{
			"Select((?) AS n)":   db.Model(&edgeNode{}).Select("id, (?) AS n", sub()).Find(&out).Error,
			"Table((?) AS u)":    db.Table("(?) AS u", subRef()).Find(&out).Error,
			"Order((?))":         db.Model(&edgeNode{}).Order(clause.OrderBy{Expression: clause.Expr{SQL: "(?)", Vars: []any{sub()}, WithoutParentheses: true}}).Find(&out).Error,
			"Joins(JOIN (?) x)":  db.Model(&edgeNode{}).Joins("JOIN (?) AS x ON x.id = edge_nodes.id", subRef()).Find(&out).Error,
			"Distinct Count":     db.Model(&edgeNode{}).Distinct("name").Where(map[string]any{"parent_id": zero}).Count(&n).Error,
			"Not(map) Count":     db.Model(&edgeNode{}).Not(map[string]any{"parent_id": zero}).Count(&n).Error,
			"Update gorm.Expr":   db.Model(&kids[0]).Update("parent_id", gorm.Expr("?", zero)).Error,
			"UpdateColumn Expr":  db.Model(&kids[0]).UpdateColumn("ref", gorm.Expr("COALESCE(?, ref)", zeroRef)).Error,
			"Where(Expr) Update": db.Model(&edgeNode{}).Where(clause.Expr{SQL: "parent_id = ?", Vars: []any{gormtype.NullHUID{Valid: true}}}).Update("name", "x").Error,
			"map Create Expr": db.Model(&edgeNode{}).Create(map[string]any{"id": gormtype.NewHUID(), "ref": gormtype.NewSCRU128(),
				"parent_id": clause.Expr{SQL: "?", Vars: []any{zero}}, "name": "m"}).Error,
		}
		for name, err := range cases {
			if err == nil {
				t.Errorf("%s with a zero ID: no error", name)
			}
		}
		checkCount(t, db, 4, "edge_nodes", "1 = 1")
		checkCount(t, db, 2, "edge_nodes", "parent_id = ?", root.ID)
		checkCount(t, db, 0, "edge_nodes", "name = 'x'")
	})
}

type edgeBOwner struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string        `gorm:"size:50"`
	Pets []edgeBPet    `gorm:"foreignKey:OwnerID"`
}

func (edgeBOwner) TableName() string { return "edge_bowners" }

type edgeBPet struct {
	ID      gormtype.HUID         `gorm:"primaryKey"`
	OwnerID gormtype.HUID         `gorm:"index"`
	Tag     gormtype.SCRU128Bytes `sortid:"auto" gorm:"uniqueIndex"`
	Chip    gormtype.NullSCRU128  `sortid:"auto"`
	Name    string                `gorm:"size:50"`
}

func (edgeBPet) TableName() string { return "edge_bpets" }

// TestGormEdgeSaveLoadedSliceNewChildren: db.Save of a slice of
// loaded owners with new pets (and edited stored ones), whose first new
// pet's key is taken, in gormtype.Transaction: every row stored once,
// each struct holding its row's key, the stored pets updated.
func TestGormEdgeSaveLoadedSliceNewChildren(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src := &takenFirst{}
		db := d.open(t, &gorm.Config{DisableForeignKeyConstraintWhenMigrating: true}, src.plugin(0))
		resetTables(t, db, &edgeBOwner{}, &edgeBPet{})
		owners := []edgeBOwner{{Name: "o1", Pets: []edgeBPet{{Name: "p1"}}}, {Name: "o2"}}
		mustCreate(t, db, &owners)
		var loaded []edgeBOwner
		if err := db.Preload("Pets").Order("name").Find(&loaded).Error; err != nil {
			t.Fatal(err)
		}
		loaded[0].Pets[0].Name = "p1 edited"
		loaded[0].Pets = append(loaded[0].Pets, edgeBPet{Name: "p2"})
		loaded[1].Pets = append(loaded[1].Pets, edgeBPet{Name: "p3"}, edgeBPet{Name: "p4"})
		loaded[1].Name = "o2 edited"
		src.next(owners[0].Pets[0].ID)
		src.nextSCRU128(idtype.SCRU128(owners[0].Pets[0].Tag))
		err := gormtype.Transaction(t.Context(), db, func(tx *gorm.DB) error {
			return tx.Session(&gorm.Session{FullSaveAssociations: true}).Save(&loaded).Error
		})
		if err != nil {
			t.Fatalf("Save in Transaction: %v", err)
		}
		src.checkDrawn(t)
		checkCount(t, db, 2, "edge_bowners", "1 = 1")
		checkCount(t, db, 1, "edge_bowners", "name = 'o2 edited'")
		checkCount(t, db, 4, "edge_bpets", "1 = 1")
		for _, o := range loaded {
			for _, p := range o.Pets {
				checkCount(t, db, 1, "edge_bpets", "id = ? AND owner_id = ? AND name = ? AND tag = ?", p.ID, o.ID, p.Name, p.Tag)
			}
		}
		checkCount(t, db, 1, "edge_bpets", "name = 'p1 edited'")
	})
}

type edgeBytesRow struct {
	ID   gormtype.SCRU128Bytes `gorm:"primaryKey"`
	Name string                `gorm:"size:50"`
}

func (edgeBytesRow) TableName() string { return "edge_bytes_rows" }

// TestGormEdgeBytesBatches: CreateInBatches of SCRU128Bytes keys with
// a taken key in the second batch, in Transaction: every row stored once,
// each struct holding its row's key; First, Find and BETWEEN by key.
func TestGormEdgeBytesBatches(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src := &takenFirst{}
		db := d.open(t, &gorm.Config{}, src.plugin(0))
		resetTables(t, db, &edgeBytesRow{})
		seed := edgeBytesRow{Name: "seed"}
		mustCreate(t, db, &seed)
		rows := []edgeBytesRow{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "d"}, {Name: "e"}}
		src.nextSCRU128(idtype.SCRU128{}, idtype.SCRU128{}, idtype.SCRU128(seed.ID))
		if err := gormtype.Transaction(t.Context(), db, func(tx *gorm.DB) error { return tx.CreateInBatches(&rows, 2).Error }); err != nil {
			t.Fatalf("CreateInBatches: %v", err)
		}
		src.checkDrawn(t)
		checkCount(t, db, 6, "edge_bytes_rows", "1 = 1")
		for _, r := range rows {
			checkCount(t, db, 1, "edge_bytes_rows", "id = ? AND name = ?", r.ID, r.Name)
			var got edgeBytesRow
			if err := db.First(&got, r.ID).Error; err != nil || got != r {
				t.Errorf("First(&row, key): %v %+v, want %+v", err, got, r)
			}
		}
		var some []edgeBytesRow
		if err := db.Find(&some, []gormtype.SCRU128Bytes{rows[0].ID, rows[4].ID}).Error; err != nil || len(some) != 2 {
			t.Errorf("Find by two keys: %v, %d rows", err, len(some))
		}
		if err := db.Where("id BETWEEN ? AND ?", rows[0].ID, rows[4].ID).Find(&some).Error; err != nil || len(some) != 5 {
			t.Errorf("Between keys: %v, %d rows", err, len(some))
		}
	})
}

// TestGormEdgeTransactionContext: gormtype.Transaction whose context
// is cancelled between two Creates: the error is the context's, not
// retried, nothing stored, the first struct unset. With ReadOnly opts a
// Create fails and leaves the struct unset.
func TestGormEdgeTransactionContext(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		edgeSeed(t, db)
		ctx, cancel := context.WithCancel(t.Context())
		var a, b edgeNode
		a.Name, b.Name = "ctx-a", "ctx-b"
		runs := 0
		err := gormtype.Transaction(ctx, db, func(tx *gorm.DB) error {
			runs++
			if err := tx.Create(&a).Error; err != nil {
				return err
			}
			cancel()
			return tx.Create(&b).Error
		})
		if err == nil || runs != 1 {
			t.Errorf("cancelled Transaction: err %v after %d runs; want the context's error after 1", err, runs)
		}
		if !a.ID.IsZero() || !a.Ref.IsZero() || !b.ID.IsZero() {
			t.Errorf("after the cancelled Transaction: a %s/%s, b %s; want unset", a.ID, a.Ref, b.ID)
		}
		checkCount(t, db, 0, "edge_nodes", "name LIKE 'ctx-%'")

		if d.name != "sqlite" {
			ro := edgeNode{Name: "ro"}
			err = gormtype.Transaction(t.Context(), db, func(tx *gorm.DB) error { return tx.Create(&ro).Error }, &sql.TxOptions{ReadOnly: true})
			if err == nil || !ro.ID.IsZero() {
				t.Errorf("Create in a read-only Transaction: err %v, ID %s; want an error and unset", err, ro.ID)
			}
		}
	})
}

type edgeStamp struct {
	ID    gormtype.HUID     `gorm:"primaryKey"`
	Trace gormtype.NullHUID `sortid:"auto"`
	Name  string            `gorm:"size:50"`
}

func (edgeStamp) TableName() string { return "edge_stamps" }

// TestGormEdgeUpsertOnKeyDoUpdates: an upsert on the key with
// DoUpdates of name, of rows given by key (one stored, one new) with an
// unset auto Null: PostgreSQL and SQLite store the new one with a fresh
// Trace and read back the stored Trace for the stored one; MySQL refuses.
func TestGormEdgeUpsertOnKeyDoUpdates(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		resetTables(t, db, &edgeStamp{})
		stored := edgeStamp{Name: "stored"}
		mustCreate(t, db, &stored)
		rows := []edgeStamp{{ID: stored.ID, Name: "renamed"}, {ID: gormtype.NewHUID(), Name: "new"}}
		err := db.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "id"}}, DoUpdates: clause.AssignmentColumns([]string{"name"})}).Create(&rows).Error
		if d.name == "mysql" {
			checkRefused(t, err, gormtype.ErrRefused)
			checkCount(t, db, 1, "edge_stamps", "1 = 1")
			return
		}
		if err != nil {
			t.Fatalf("upsert: %v", err)
		}
		if rows[0].Trace != stored.Trace {
			t.Errorf("stored row's Trace %v, want the stored %v", rows[0].Trace, stored.Trace)
		}
		checkCount(t, db, 1, "edge_stamps", "id = ? AND name = 'renamed' AND trace = ?", stored.ID, stored.Trace)
		checkCount(t, db, 1, "edge_stamps", "id = ? AND name = 'new' AND trace = ?", rows[1].ID, rows[1].Trace)
	})
}
