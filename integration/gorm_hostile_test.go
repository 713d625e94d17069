package integration_test

// The hostile suite: the quiet failures a hostile user found in the GORM
// adapter, each right or refused by name on PostgreSQL, MariaDB (InnoDB,
// and MyISAM where transactions matter) and SQLite.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/sortid/sortid/gormtype"
)

type hostileParent struct {
	ID       gormtype.HUID  `gorm:"primaryKey"`
	Name     string         `gorm:"size:50"`
	Children []hostileChild `gorm:"foreignKey:ParentID"`
}

func (hostileParent) TableName() string { return "hostile_parents" }

type hostileChild struct {
	ID       gormtype.HUID `gorm:"primaryKey"`
	ParentID gormtype.HUID `gorm:"index"`
	Name     string        `gorm:"size:50"`
}

func (hostileChild) TableName() string { return "hostile_children" }

// TestGormHostileChildCollision: a has-many child's fresh key is taken.
// With MariaDB's MyISAM or Aria, which keep the parent's row on a
// rollback, the Create and gormtype.Transaction are refused (ErrRefused
// naming the table and InnoDB), not run again: the parent is stored once,
// with the key its struct holds. With transactions (InnoDB, PostgreSQL,
// SQLite) a plain Create is ErrKeyTaken and stores nothing, and
// Transaction stores the parent and the child once each. OnCollision is
// called once in every case, before the refusal too.
func TestGormHostileChildCollision(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		engines := []string{""}
		if d.name == "mysql" {
			engines = []string{"MyISAM", "Aria", "InnoDB"}
		}
		for _, engine := range engines {
			for _, retry := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/Transaction=%v", engine, retry), func(t *testing.T) {
					src := &takenFirst{}
					plugin, collisions := src.plugin(0), 0
					plugin.OnCollision = func(context.Context, string, error) { collisions++ }
					db := d.open(t, &gorm.Config{DisableForeignKeyConstraintWhenMigrating: true}, plugin)
					resetTables(t, db, &hostileParent{}, &hostileChild{})
					if engine != "" {
						mustExec(t, db, "ALTER TABLE hostile_parents ENGINE="+engine, "ALTER TABLE hostile_children ENGINE="+engine)
					}
					other := hostileChild{ID: gormtype.NewHUID(), ParentID: gormtype.NewHUID(), Name: "other"}
					mustCreate(t, db, &other)
					src.next(0, other.ID) // the parent's key, then the child's
					p := hostileParent{Name: "p", Children: []hostileChild{{Name: "c"}}}
					create := func(tx *gorm.DB) error { return tx.Create(&p).Error }
					var err error
					if retry {
						err = retried(db, create)
					} else {
						err = create(db)
					}
					src.checkDrawn(t)
					checkNamed(t, db, "hostile_children", other.ID, "other")
					if collisions != 1 {
						t.Errorf("OnCollision called %d times; want once, before ErrRefused too", collisions)
					}
					switch {
					case engine == "MyISAM" || engine == "Aria":
						checkRefused(t, err, gormtype.ErrRefused, "hostile_parents", "InnoDB")
						if errors.Is(err, gormtype.ErrKeyTaken) {
							t.Errorf("%v wraps ErrKeyTaken, which invites a rerun", err)
						}
						checkCount(t, db, 1, "hostile_parents", "1 = 1")
						checkNamed(t, db, "hostile_parents", p.ID, "p")
					case !retry:
						checkRefused(t, err, gormtype.ErrKeyTaken, "hostile_children")
						checkCount(t, db, 0, "hostile_parents", "1 = 1")
						if !p.ID.IsZero() || !p.Children[0].ID.IsZero() {
							t.Errorf("keys %s, %s after the failed Create; want zero", p.ID, p.Children[0].ID)
						}
					default:
						if err != nil {
							t.Fatalf("Transaction: %v", err)
						}
						checkCount(t, db, 1, "hostile_parents", "1 = 1")
						checkNamed(t, db, "hostile_parents", p.ID, "p")
						checkCount(t, db, 1, "hostile_children", "id = ? AND parent_id = ?", p.Children[0].ID, p.ID)
					}
				})
			}
		}
	})
}

type hostileRow struct {
	ID    gormtype.HUID     `gorm:"primaryKey"`
	Trace gormtype.SCRU128  `sortid:"auto"`
	Ref   *gormtype.HUID    `sortid:"auto"`
	Opt   gormtype.NullHUID // may be NULL
	Name  string            `gorm:"size:50"`
}

func (hostileRow) TableName() string { return "hostile_rows" }

// TestGormHostileZeroUpdates: Updates and Update that would store 0, NULL
// or "" in an ID column fail with ErrZeroID naming the field; the stored
// row is unchanged. NULL in a Null column is stored.
func TestGormHostileZeroUpdates(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		resetTables(t, db, &hostileRow{})
		row := hostileRow{Opt: gormtype.NullHUID{V: gormtype.NewHUID(), Valid: true}, Name: "r"}
		mustCreate(t, db, &row)
		stored := row
		for _, c := range []struct {
			name  string
			write func(tx *gorm.DB) error
			field string
		}{
			{"Updates id 0", func(tx *gorm.DB) error { return tx.Updates(map[string]any{"id": 0}).Error }, "ID"},
			{"Updates ID zero HUID", func(tx *gorm.DB) error { return tx.Updates(map[string]any{"ID": gormtype.HUID(0)}).Error }, "ID"},
			{"Update trace nil", func(tx *gorm.DB) error { return tx.Update("trace", nil).Error }, "Trace"},
			{"Update trace empty", func(tx *gorm.DB) error { return tx.Update("trace", "").Error }, "Trace"},
			{"Update ref empty", func(tx *gorm.DB) error { return tx.Update("ref", "").Error }, "Ref"},
			{"Update ref 0", func(tx *gorm.DB) error { return tx.Update("Ref", int64(0)).Error }, "Ref"},
			{"UpdateColumn opt 0", func(tx *gorm.DB) error { return tx.UpdateColumn("opt", 0).Error }, "Opt"},
		} {
			err := c.write(db.Model(&hostileRow{ID: row.ID}))
			checkRefused(t, err, gormtype.ErrZeroID, "hostileRow."+c.field)
		}
		var back hostileRow
		if err := db.First(&back, "id = ?", row.ID).Error; err != nil || back.Trace != stored.Trace || *back.Ref != *stored.Ref || back.Opt != stored.Opt {
			t.Errorf("stored %+v (%v); want it unchanged: %+v", back, err, stored)
		}
		if err := db.Model(&hostileRow{ID: row.ID}).Update("opt", nil).Error; err != nil {
			t.Errorf("Update of a Null column to NULL: %v", err)
		}
		checkCount(t, db, 1, "hostile_rows", "id = ? AND opt IS NULL", row.ID)
	})
}

type hostileBytesKey struct {
	ID   gormtype.SCRU128Bytes `gorm:"primaryKey"`
	Name string                `gorm:"size:50"`
}

func (hostileBytesKey) TableName() string { return "hostile_bytes_keys" }

type hostileUUIDKey struct {
	ID   gormtype.SCRU128 `gorm:"primaryKey"`
	Name string           `gorm:"size:50"`
}

func (hostileUUIDKey) TableName() string { return "hostile_uuid_keys" }

// TestGormHostileInlineKeys: a SCRU128Bytes or SCRU128 key given inline
// (First(&r, id), Find(&rs, id), Delete(&T{}, id)) finds and deletes its
// row; GORM alone expands the bytes into 16 numbers and binds the UUID
// text, matching nothing on MariaDB and SQLite.
func TestGormHostileInlineKeys(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		resetTables(t, db, &hostileBytesKey{}, &hostileUUIDKey{})
		b := []hostileBytesKey{{Name: "a"}, {Name: "b"}}
		u := []hostileUUIDKey{{Name: "a"}, {Name: "b"}}
		mustCreate(t, db, &b)
		mustCreate(t, db, &u)
		var gotB hostileBytesKey
		var gotU hostileUUIDKey
		if err := db.First(&gotB, b[1].ID).Error; err != nil || gotB != b[1] {
			t.Errorf("First(&r, SCRU128Bytes) = %+v, %v; want %+v", gotB, err, b[1])
		}
		if err := db.First(&gotU, u[1].ID).Error; err != nil || gotU != u[1] {
			t.Errorf("First(&r, SCRU128) = %+v, %v; want %+v", gotU, err, u[1])
		}
		var rowsB []hostileBytesKey
		if err := db.Find(&rowsB, b[0].ID).Error; err != nil || len(rowsB) != 1 || rowsB[0] != b[0] {
			t.Errorf("Find(&rs, SCRU128Bytes) = %+v, %v; want [%+v]", rowsB, err, b[0])
		}
		var rowsU []hostileUUIDKey
		if err := db.Find(&rowsU, u[0].ID).Error; err != nil || len(rowsU) != 1 || rowsU[0] != u[0] {
			t.Errorf("Find(&rs, SCRU128) = %+v, %v; want [%+v]", rowsU, err, u[0])
		}
		if res := db.Delete(&hostileBytesKey{}, b[0].ID); res.Error != nil || res.RowsAffected != 1 {
			t.Errorf("Delete(&T{}, SCRU128Bytes): %v, %d rows; want 1", res.Error, res.RowsAffected)
		}
		if res := db.Delete(&hostileUUIDKey{}, u[0].ID); res.Error != nil || res.RowsAffected != 1 {
			t.Errorf("Delete(&T{}, SCRU128): %v, %d rows; want 1", res.Error, res.RowsAffected)
		}
		checkCount(t, db, 1, "hostile_bytes_keys", "1 = 1")
		checkCount(t, db, 1, "hostile_uuid_keys", "1 = 1")
	})
}

// TestGormHostileMapRoundTrip: a row scanned into map[string]any through
// its model and created again from the map is stored as it was (SQLite
// stored a SCRU128's 36-character UUID text in its blob column). A map
// Update's ID text is stored as its field's type too, and a map Create's
// 0 or "" in an ID field AutoID does not fill fails with ErrZeroID.
func TestGormHostileMapRoundTrip(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		resetTables(t, db, &hostileRow{})
		row := hostileRow{Opt: gormtype.NullHUID{V: gormtype.NewHUID(), Valid: true}, Name: "r"}
		mustCreate(t, db, &row)
		var m map[string]any
		if err := db.Model(&hostileRow{}).Where("id = ?", row.ID).Take(&m).Error; err != nil {
			t.Fatal(err)
		}
		mustExecArgs(t, db, "DELETE FROM hostile_rows WHERE id = ?", row.ID)
		if err := db.Model(&hostileRow{}).Create(m).Error; err != nil {
			t.Fatalf("Create from the map %v: %v", m, err)
		}
		var back hostileRow
		if err := db.First(&back, "id = ?", row.ID).Error; err != nil || back.Trace != row.Trace || back.Ref == nil || *back.Ref != *row.Ref || back.Opt != row.Opt {
			t.Errorf("stored %+v (%v); want %+v", back, err, row)
		}
		if d.name != "postgres" {
			checkCount(t, db, 1, "hostile_rows", "length(trace) = 16")
		}
		trace, opt := gormtype.NewSCRU128(), gormtype.NewHUID()
		if err := db.Model(&back).Update("trace", trace.String()).Error; err != nil {
			t.Fatalf("Update(trace, its text): %v", err)
		}
		if err := db.Model(&back).Updates(map[string]any{"opt": opt.String()}).Error; err != nil {
			t.Fatalf("Updates(opt: its text): %v", err)
		}
		var updated hostileRow
		if err := db.First(&updated, "id = ?", row.ID).Error; err != nil || updated.Trace != trace || updated.Opt != (gormtype.NullHUID{V: opt, Valid: true}) {
			t.Errorf("after the map updates: %+v, %v; want trace %s, opt %s", updated, err, trace, opt)
		}
		if d.name != "postgres" {
			checkCount(t, db, 1, "hostile_rows", "length(trace) = 16")
		}
		for _, zero := range []any{int64(0), ""} {
			err := db.Model(&hostileRow{}).Create(map[string]any{"id": gormtype.NewHUID(), "trace": gormtype.NewSCRU128(), "ref": gormtype.NewHUID(), "opt": zero}).Error
			checkRefused(t, err, gormtype.ErrZeroID, "hostileRow.Opt")
		}
		checkCount(t, db, 1, "hostile_rows", "1 = 1")
	})
}

type hostilePtrKey struct {
	ID   *gormtype.HUID `gorm:"primaryKey"`
	Name string         `gorm:"size:50"`
}

func (hostilePtrKey) TableName() string { return "hostile_ptr_keys" }

// TestGormHostileNilPointerKey: a nil *HUID key stays nil after a failed
// Create (a collision, or a refused statement), not a pointer to 0.
func TestGormHostileNilPointerKey(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src := &takenFirst{}
		db := d.open(t, &gorm.Config{}, src.plugin(0))
		resetTables(t, db, &hostilePtrKey{})
		other := hostilePtrKey{Name: "other"}
		mustCreate(t, db, &other)
		src.next(*other.ID)
		mine := hostilePtrKey{Name: "mine"}
		checkRefused(t, db.Create(&mine).Error, gormtype.ErrKeyTaken, "hostile_ptr_keys")
		if mine.ID != nil {
			t.Errorf("key %v after ErrKeyTaken; want nil", *mine.ID)
		}
		checkRefused(t, db.Select("name").Create(&mine).Error, gormtype.ErrRefused, "hostile_ptr_keys")
		if mine.ID != nil {
			t.Errorf("key %v after ErrRefused; want nil", *mine.ID)
		}
		mustCreate(t, db, &mine)
		checkNamed(t, db, "hostile_ptr_keys", *mine.ID, "mine")
	})
}

type hostilePair struct {
	Tenant int64         `gorm:"primaryKey;autoIncrement:false"`
	ID     gormtype.HUID `gorm:"primaryKey"`
	Name   string        `gorm:"size:50"`
}

func (hostilePair) TableName() string { return "hostile_pairs" }

// TestGormHostileCompositeKey: a taken (tenant, id) is ErrKeyTaken naming
// both columns (MariaDB's "Duplicate entry '1-…'" was read as a column
// storing another number), and Transaction retries it.
func TestGormHostileCompositeKey(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		src := &takenFirst{}
		db := d.open(t, &gorm.Config{}, src.plugin(0))
		resetTables(t, db, &hostilePair{})
		other := hostilePair{Tenant: 1, Name: "other"}
		mustCreate(t, db, &other)
		src.next(other.ID)
		mine := hostilePair{Tenant: 1, Name: "mine"}
		err := db.Create(&mine).Error
		checkRefused(t, err, gormtype.ErrKeyTaken, "hostile_pairs", "tenant", "id")
		if errors.Is(err, gormtype.ErrRefused) || strings.Contains(err.Error(), "BIGINT") {
			t.Errorf("composite key collision diagnosed as a column storing another number: %v", err)
		}
		src.next(other.ID)
		mustCreate(t, db, &mine)
		src.checkDrawn(t)
		checkCount(t, db, 1, "hostile_pairs", "tenant = 1 AND id = ? AND name = 'mine'", mine.ID)
	})
}

type hostileOwner struct {
	ID    gormtype.HUID    `gorm:"primaryKey"`
	Trace gormtype.SCRU128 `sortid:"auto"`
	Boss  gormtype.HUID
	Name  string `gorm:"size:50"`
}

func (hostileOwner) TableName() string { return "hostile_owners" }

type hostilePet struct {
	ID      gormtype.HUID `gorm:"primaryKey"`
	OwnerID gormtype.HUID
	Owner   *hostileOwner
	Name    string `gorm:"size:50"`
}

func (hostilePet) TableName() string { return "hostile_pets" }

// TestGormHostileAttachByKey: an owner given by key only, with a zero ID
// field (Owner: &hostileOwner{ID: id}), stored or not, is refused with
// ErrZeroID naming the field and the way out: GORM's upsert would store
// NULL for it in a new row, and AutoID cannot tell the two apart. Nothing
// is stored. The foreign key (OwnerID) attaches the stored owner, and an
// owner given with every ID field set is stored as given.
func TestGormHostileAttachByKey(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{DisableForeignKeyConstraintWhenMigrating: true}, gormtype.AutoID{})
		resetTables(t, db, &hostileOwner{}, &hostilePet{})
		owner := hostileOwner{Boss: gormtype.NewHUID(), Name: "owner"}
		mustCreate(t, db, &owner)
		for _, given := range []hostileOwner{{ID: owner.ID}, {ID: gormtype.NewHUID(), Boss: gormtype.NewHUID(), Name: "new"}} {
			pet := hostilePet{Name: "rex", Owner: &given}
			checkRefused(t, db.Create(&pet).Error, gormtype.ErrZeroID, "hostileOwner", "Trace", "foreign key")
		}
		checkCount(t, db, 0, "hostile_pets", "1 = 1")
		byForeignKey := hostilePet{Name: "rex", OwnerID: owner.ID}
		mustCreate(t, db, &byForeignKey)

		newOwner := hostileOwner{ID: gormtype.NewHUID(), Trace: gormtype.NewSCRU128(), Boss: gormtype.NewHUID(), Name: "new"}
		given := hostilePet{Name: "max", Owner: &newOwner}
		mustCreate(t, db, &given)
		checkCount(t, db, 1, "hostile_pets", "id = ? AND owner_id = ?", byForeignKey.ID, owner.ID)
		checkCount(t, db, 1, "hostile_pets", "id = ? AND owner_id = ?", given.ID, newOwner.ID)
		checkCount(t, db, 2, "hostile_pets", "1 = 1")
		checkStored(t, db, owner.ID, owner)
		checkStored(t, db, newOwner.ID, newOwner)
		checkCount(t, db, 2, "hostile_owners", "1 = 1")
	})
}

// TestGormHostileSharedNewOwner: two new pets sharing one new owner (GORM
// lists it once per pet) store that owner once, and both hold its key.
func TestGormHostileSharedNewOwner(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{DisableForeignKeyConstraintWhenMigrating: true}, gormtype.AutoID{})
		resetTables(t, db, &hostileOwner{}, &hostilePet{})
		owner := &hostileOwner{Boss: gormtype.NewHUID(), Name: "shared"}
		pets := []hostilePet{{Name: "a", Owner: owner}, {Name: "b", Owner: owner}}
		if err := db.Create(&pets).Error; err != nil {
			t.Fatalf("Create of two pets sharing a new owner: %v", err)
		}
		checkCount(t, db, 1, "hostile_owners", "1 = 1")
		checkStored(t, db, owner.ID, *owner)
		for _, p := range pets {
			if p.OwnerID != owner.ID {
				t.Errorf("pet %s holds owner %s; the owner is %s", p.Name, p.OwnerID, owner.ID)
			}
			checkCount(t, db, 1, "hostile_pets", "id = ? AND owner_id = ?", p.ID, owner.ID)
		}
	})
}

// TestGormHostileUpsertReadBackUnset: the key an upsert read back from a
// row inserted earlier in the same attempt is unset when the attempt
// fails, like every key AutoID filled: no row has it any more.
func TestGormHostileUpsertReadBackUnset(t *testing.T) {
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := d.open(t, &gorm.Config{}, gormtype.AutoID{})
		resetTables(t, db, &upsertAccount{})
		onEmail := clause.OnConflict{Columns: []clause.Column{{Name: "email"}}, DoUpdates: clause.AssignmentColumns([]string{"name"})}
		failed := errors.New("a later step failed")
		var a, b upsertAccount
		err := gormtype.Transaction(context.Background(), db, func(tx *gorm.DB) error {
			a, b = upsertAccount{Email: "x@x", Name: "a"}, upsertAccount{Email: "x@x", Name: "b"}
			if err := tx.Create(&a).Error; err != nil {
				return err
			}
			if err := tx.Clauses(onEmail).Create(&b).Error; err != nil {
				return err
			} else if b.ID != a.ID {
				return fmt.Errorf("the upsert read back key %s; want the stored %s", b.ID, a.ID)
			}
			return failed
		})
		if !errors.Is(err, failed) {
			t.Fatalf("Transaction: %v; want %v", err, failed)
		}
		if !a.ID.IsZero() || !b.ID.IsZero() {
			t.Errorf("after the rollback the structs hold keys %s and %s; want both unset", a.ID, b.ID)
		}
		checkCount(t, db, 0, "upsert_accounts", "1 = 1")
	}, "postgres", "sqlite")
}

// hostileOrder and hostileLine are a has-many whose rows have a fresh
// field besides their keys.
type hostileOrder struct {
	ID    gormtype.HUID    `gorm:"primaryKey"`
	Trace gormtype.SCRU128 `sortid:"auto"`
	Lines []hostileLine    `gorm:"foreignKey:OrderID"`
}

type hostileLine struct {
	ID      gormtype.HUID    `gorm:"primaryKey"`
	OrderID gormtype.HUID    `gorm:"index"`
	Trace   gormtype.SCRU128 `sortid:"auto"`
	SKU     string           `gorm:"size:50"`
}

// TestGormHostileAssociationLeftOut: an Omit or Select that leaves a
// filled column of an association out (Omit("Lines.Trace")) would give the struct a
// value no row has; the Create is refused naming the table and the
// column, as a top-level Omit is, and stores nothing.
func TestGormHostileAssociationLeftOut(t *testing.T) {
	t.Parallel()
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		for _, c := range []struct {
			name, column string
			scope        func(*gorm.DB) *gorm.DB
		}{
			{"omit-trace", "trace", func(db *gorm.DB) *gorm.DB { return db.Omit("Lines.Trace") }},
			{"omit-id", "id", func(db *gorm.DB) *gorm.DB { return db.Omit("Lines.ID") }},
			{"select-without-trace", "trace", func(db *gorm.DB) *gorm.DB {
				return db.Select("ID", "Trace", "Lines", "Lines.ID", "Lines.OrderID", "Lines.SKU")
			}},
		} {
			t.Run(c.name, func(t *testing.T) {
				prefix := "lo" + strings.ReplaceAll(c.name, "-", "") + "_"
				db := openUnitDB(t, d, prefix, &gorm.Config{}, gormtype.AutoID{})
				resetTables(t, db, &hostileOrder{}, &hostileLine{})
				o := hostileOrder{Lines: []hostileLine{{SKU: "a"}}}
				err := c.scope(db).Create(&o).Error
				checkRefused(t, err, gormtype.ErrRefused, prefix+"hostile_lines", c.column)
				checkCount(t, db, 0, prefix+"hostile_orders", "1 = 1")
				checkCount(t, db, 0, prefix+"hostile_lines", "1 = 1")
				if !o.ID.IsZero() || !o.Lines[0].ID.IsZero() || !o.Lines[0].Trace.IsZero() {
					t.Errorf("order %s, line %s / %s after the refused Create; want zero", o.ID, o.Lines[0].ID, o.Lines[0].Trace)
				}
			})
		}
	})
}

type hostileBox struct {
	ID    gormtype.HUID `gorm:"primaryKey"`
	Items []hostileItem `gorm:"foreignKey:BoxID"`
}

type hostileItem struct {
	ID    gormtype.HUID `gorm:"primaryKey"`
	BoxID gormtype.HUID `gorm:"index"`
	N     int
	Note  string `gorm:"size:50"`
}

// TestGormHostileSplitKeepsOmit: a full save of associations mixing stored
// and new rows, which AutoID splits, writes the stored rows with the
// caller's Omit as GORM would: the omitted column keeps what another
// session stored, the others are updated, and the new row is stored under
// the key its struct holds.
func TestGormHostileSplitKeepsOmit(t *testing.T) {
	t.Parallel()
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		db := openUnitDB(t, d, "split_", &gorm.Config{}, gormtype.AutoID{})
		resetTables(t, db, &hostileBox{}, &hostileItem{})
		b := hostileBox{Items: []hostileItem{{N: 1, Note: "first"}}}
		mustCreate(t, db, &b)
		mustExecArgs(t, db, "UPDATE split_hostile_items SET n = 5 WHERE id = ?", b.Items[0].ID)
		b.Items[0].Note = "edited"
		b.Items = append(b.Items, hostileItem{N: 9, Note: "new"})
		if err := db.Session(&gorm.Session{FullSaveAssociations: true}).Omit("Items.N").Save(&b).Error; err != nil {
			t.Fatalf("Save: %v", err)
		}
		checkCount(t, db, 1, "split_hostile_items", "id = ? AND n = 5 AND note = 'edited'", b.Items[0].ID)
		checkCount(t, db, 1, "split_hostile_items", "id = ? AND box_id = ? AND n IS NULL AND note = 'new'", b.Items[1].ID, b.ID)
		checkCount(t, db, 2, "split_hostile_items", "1 = 1")
	})
}

// hostileDerived's BeforeCreate sets its own key, over the one AutoID drew.
type hostileDerived struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string        `gorm:"size:50"`
}

func (h *hostileDerived) BeforeCreate(*gorm.DB) error {
	h.ID = gormtype.HUID(1000 + len(h.Name))
	return nil
}

// TestGormHostileHookSetsKey: when a hook replaces the key AutoID drew
// and the hook's key is taken, the duplicate is the caller's, not a
// collision: the Create fails with the unique violation, not ErrKeyTaken;
// Transaction does not rerun it, OnCollision is not called, and the struct
// keeps the hook's key.
func TestGormHostileHookSetsKey(t *testing.T) {
	t.Parallel()
	onEachDialect(t, func(t *testing.T, d gormDialect) {
		for _, retry := range []bool{false, true} {
			t.Run(fmt.Sprintf("Transaction=%v", retry), func(t *testing.T) {
				var log collisionLog
				db := openUnitDB(t, d, "hook_key_", &gorm.Config{}, gormtype.AutoID{OnCollision: log.record})
				resetTables(t, db, &hostileDerived{})
				mustExec(t, db, "INSERT INTO hook_key_hostile_deriveds (id, name) VALUES (1003, 'abc')")
				row, attempts := hostileDerived{Name: "xyz"}, 0
				create := func(tx *gorm.DB) error { attempts++; return tx.Create(&row).Error }
				var err error
				if retry {
					err = gormtype.Transaction(context.Background(), db, create)
				} else {
					err = create(db)
				}
				if !isUniqueViolation(err) || errors.Is(err, gormtype.ErrKeyTaken) || attempts != 1 {
					t.Errorf("Create with the hook's taken key: %v after %d attempts; want the unique violation, not ErrKeyTaken, after 1", err, attempts)
				}
				if tables, _ := log.take(); len(tables) != 0 {
					t.Errorf("OnCollision called for %v; want no call", tables)
				}
				if row.ID != 1003 {
					t.Errorf("the row holds key %s; want the hook's 1003", row.ID)
				}
				checkCount(t, db, 1, "hook_key_hostile_deriveds", "1 = 1")
			})
		}
	})
}
