package integration_test

import (
	"errors"
	"strings"
	"testing"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/sortid/sortid/gormtype"
	"github.com/sortid/sortid/idtype"
)

// Hostile probes of AutoID's promises (see the AutoID doc comment): a
// Create never returns nil while another row was changed, a row was
// stored twice or is missing, or the struct holds a key no row has.

// hxPlain has a HUID key and no hooks.
type hxPlain struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string        `gorm:"size:50"`
}

func (hxPlain) TableName() string { return "hx_plain" }

// hxAccount has a unique email and no hooks.
type hxAccount struct {
	ID    gormtype.HUID `gorm:"primaryKey"`
	Email string        `gorm:"size:100;uniqueIndex"`
	Name  string        `gorm:"size:50"`
}

func (hxAccount) TableName() string { return "hx_accounts" }

// hxRefAcct has a unique email and a unique auto-filled public Ref.
type hxRefAcct struct {
	ID    gormtype.HUID    `gorm:"primaryKey"`
	Ref   gormtype.SCRU128 `gorm:"uniqueIndex" sortid:"auto"`
	Email string           `gorm:"size:100;uniqueIndex"`
	Name  string           `gorm:"size:50"`
}

func (hxRefAcct) TableName() string { return "hx_ref_accts" }

type hxDoc struct {
	ID    gormtype.HUID `gorm:"primaryKey"`
	Name  string        `gorm:"size:50"`
	Lines []hxLine      `gorm:"foreignKey:DocID"`
}

func (hxDoc) TableName() string { return "hx_docs" }

// hxLine has an auto-filled nullable unique Ref besides its key.
type hxLine struct {
	ID    gormtype.HUID        `gorm:"primaryKey"`
	DocID gormtype.HUID        `gorm:"index"`
	Ref   gormtype.NullSCRU128 `gorm:"uniqueIndex" sortid:"auto"`
	Item  string               `gorm:"size:50"`
}

func (hxLine) TableName() string { return "hx_lines" }

func hxSeed(t *testing.T, db *gorm.DB, email string) hxAccount {
	t.Helper()
	a := hxAccount{ID: gormtype.NewHUID(), Email: email, Name: "seed"}
	if err := db.Create(&a).Error; err != nil {
		t.Fatalf("seed %s: %v", email, err)
	}
	return a
}

// hxEmailOf returns the email of the row with key id, "" when none.
func hxEmailOf(t *testing.T, db *gorm.DB, id gormtype.HUID) string {
	t.Helper()
	var emails []string
	if err := db.Model(&hxAccount{}).Where("id = ?", id).Pluck("email", &emails).Error; err != nil {
		t.Fatal(err)
	}
	if len(emails) == 0 {
		return ""
	}
	return emails[0]
}

func isAutoIDError(err error) bool {
	return errors.Is(err, gormtype.ErrRefused) || errors.Is(err, gormtype.ErrSetup)
}

// TestGormHostileNonPointerStruct: db.Create(value) with a struct that is
// not a pointer (GORM accepts it for models without hooks). AutoID cannot
// fill the copy, so the row must not be stored with the zero key: the
// Create must fail with ErrRefused or ErrSetup.
func TestGormHostileNonPointerStruct(t *testing.T) {
	for _, d := range edgeDialects {
		t.Run(d, func(t *testing.T) {
			db := gormOn(t, d, &gorm.Config{}, gormtype.AutoID{})
			resetTables(t, db, &hxPlain{})
			for _, c := range []struct {
				name string
				v    any
			}{
				{"struct", hxPlain{Name: "by-value"}},
				{"array", [1]hxPlain{{Name: "array-by-value"}}},
			} {
				err := db.Create(c.v).Error
				var zero int64
				if e := db.Model(&hxPlain{}).Where("id = ?", 0).Count(&zero).Error; e != nil {
					t.Fatal(e)
				}
				if !isAutoIDError(err) || zero != 0 {
					t.Errorf("Create(%s): err %v, %d rows with key 0; want ErrRefused/ErrSetup and no row with the zero key", c.name, err, zero)
				}
				db.Where("id = ?", 0).Delete(&hxPlain{})
			}
		})
	}
}

// TestGormHostileUpsertWhereKeys: a two-row upsert aimed at email with
// DO UPDATE ... WHERE that skips the existing row. AutoID's RETURNING of
// the key (returnKeys) returns one row for two structs; GORM writes it into
// the first struct, which then holds the other struct's key.
func TestGormHostileUpsertWhereKeys(t *testing.T) {
	for _, d := range []string{"postgres", "sqlite"} {
		t.Run(d, func(t *testing.T) {
			db := gormOn(t, d, &gorm.Config{}, gormtype.AutoID{})
			resetTables(t, db, &hxAccount{})
			existing := hxSeed(t, db, "old@x")
			oc := clause.OnConflict{
				Columns:   []clause.Column{{Name: "email"}},
				DoUpdates: clause.AssignmentColumns([]string{"name"}),
				Where:     clause.Where{Exprs: []clause.Expression{clause.Expr{SQL: "1 = 0"}}},
			}
			rows := []hxAccount{{Email: "old@x", Name: "renamed"}, {Email: "new@x", Name: "new"}}
			err := db.Clauses(oc).Create(&rows).Error
			if err != nil {
				if !isAutoIDError(err) {
					t.Fatalf("upsert: %v", err)
				}
				return
			}
			for i, r := range rows {
				if got := hxEmailOf(t, db, r.ID); got != "" && got != r.Email {
					t.Errorf("rows[%d] (email %s) holds key %s, which is the row of %s", i, r.Email, r.ID, got)
				}
			}
			if got := hxEmailOf(t, db, rows[1].ID); got != "new@x" {
				t.Errorf("new@x: struct key %s names the row of %q", rows[1].ID, got)
			}
			if rows[0].ID != existing.ID {
				t.Errorf("rows[0] holds key %s, the old@x row is %s; err nil", rows[0].ID, existing.ID)
			}
		})
	}
}

// TestGormHostileAliasTable: db.Table("t AS a") on PostgreSQL (INSERT INTO
// t AS a is valid SQL). A taken fresh key must be retried like without the
// alias.
func TestGormHostileAliasTable(t *testing.T) {
	src := &takenFirst{}
	db := gormOn(t, "postgres", &gorm.Config{}, gormtype.AutoID{GenerateHUID: src.generate})
	resetTables(t, db, &hxAccount{})
	taken := hxSeed(t, db, "taken@x")
	src.next(taken.ID)
	a := hxAccount{Email: "new@x", Name: "new"}
	if err := db.Table("hx_accounts AS a").Create(&a).Error; err != nil {
		t.Fatalf("Create through an aliased table with a taken fresh key: %v", err)
	}
	if a.ID == taken.ID || hxEmailOf(t, db, a.ID) != "new@x" || hxEmailOf(t, db, taken.ID) != "taken@x" {
		t.Errorf("struct key %s, taken %s", a.ID, taken.ID)
	}
}

// TestGormHostileSaveLoadedNullAuto: a loaded document whose existing line
// has a NULL auto column (rows made before the column, or by other code) is
// saved with a new line. Plain GORM upserts the existing line; the Save
// must succeed, keep the existing line once and store the new one.
func TestGormHostileSaveLoadedNullAuto(t *testing.T) {
	for _, d := range edgeDialects {
		t.Run(d, func(t *testing.T) {
			db := gormOn(t, d, &gorm.Config{}, gormtype.AutoID{})
			resetTables(t, db, &hxDoc{}, &hxLine{})
			doc := hxDoc{Name: "doc", Lines: []hxLine{{Item: "old"}}}
			if err := db.Create(&doc).Error; err != nil {
				t.Fatal(err)
			}
			if err := db.Exec("UPDATE hx_lines SET ref = NULL").Error; err != nil {
				t.Fatal(err)
			}
			var loaded hxDoc
			if err := db.Preload("Lines").First(&loaded, "id = ?", doc.ID).Error; err != nil {
				t.Fatal(err)
			}
			loaded.Lines = append(loaded.Lines, hxLine{Item: "new"})
			if err := db.Save(&loaded).Error; err != nil {
				t.Errorf("Save of a loaded document with a new line: %v", err)
			}
			var items []string
			if err := db.Model(&hxLine{}).Where("doc_id = ?", doc.ID).Order("item").Pluck("item", &items).Error; err != nil {
				t.Fatal(err)
			}
			if strings.Join(items, ",") != "new,old" {
				t.Errorf("lines %v, want [new old]", items)
			}
		})
	}
}

// TestGormHostileUpsertOverwritesRef: an upsert on email with UpdateAll
// writes the Ref AutoID drew for the new struct into the existing row,
// replacing that row's public ID: a fresh value changes another row.
func TestGormHostileUpsertOverwritesRef(t *testing.T) {
	for _, d := range edgeDialects {
		t.Run(d, func(t *testing.T) {
			db := gormOn(t, d, &gorm.Config{}, gormtype.AutoID{})
			resetTables(t, db, &hxRefAcct{})
			old := hxRefAcct{Email: "old@x", Name: "seed"}
			if err := db.Create(&old).Error; err != nil {
				t.Fatal(err)
			}
			a := hxRefAcct{Email: "old@x", Name: "renamed"}
			err := db.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "email"}}, UpdateAll: true}).Create(&a).Error
			if isAutoIDError(err) {
				return
			}
			if err != nil {
				t.Fatalf("upsert: %v", err)
			}
			var got hxRefAcct
			if err := db.First(&got, "email = ?", "old@x").Error; err != nil {
				t.Fatal(err)
			}
			if got.Ref != old.Ref {
				t.Errorf("the existing row's Ref changed from %s to %s (the fresh value drawn for the upsert)", old.Ref, got.Ref)
			}
		})
	}
}

// TestGormHostileCallerKeyTakenMixed: a two-row Create, the first row with
// a key the caller set that is taken, the second fresh. The taken key is
// not one AutoID drew: the Create must fail with the database's unique
// violation after one draw, not be retried and reported as ErrKeyTaken
// ("every fresh key drawn was taken").
func TestGormHostileCallerKeyTakenMixed(t *testing.T) {
	for _, d := range edgeDialects {
		t.Run(d, func(t *testing.T) {
			src := &takenFirst{}
			db := gormOn(t, d, &gorm.Config{}, gormtype.AutoID{GenerateHUID: src.generate})
			resetTables(t, db, &hxAccount{})
			taken := hxSeed(t, db, "taken@x")
			src.next()
			rows := []hxAccount{{ID: taken.ID, Email: "mine@x"}, {Email: "fresh@x"}}
			err := db.Create(&rows).Error
			if err == nil || errors.Is(err, gormtype.ErrKeyTaken) || src.draws != 1 {
				t.Errorf("Create with a caller-set taken key: %v after %d draws; want the driver's unique violation after 1 draw", err, src.draws)
			}
		})
	}
}

// TestGormHostileSavepointReleased: in a caller's transaction, after a
// Create that succeeded, one retried after a collision and one that
// failed, AutoID's savepoints are gone (ROLLBACK TO fails) and the
// transaction is usable.
func TestGormHostileSavepointReleased(t *testing.T) {
	for _, d := range edgeDialects {
		t.Run(d, func(t *testing.T) {
			src := &takenFirst{}
			db := gormOn(t, d, &gorm.Config{}, gormtype.AutoID{GenerateHUID: src.generate})
			resetTables(t, db, &hxAccount{})
			taken := hxSeed(t, db, "taken@x")
			err := db.Transaction(func(tx *gorm.DB) error {
				if err := tx.Create(&hxAccount{Email: "a@x"}).Error; err != nil { // sortid_1
					return err
				}
				src.next(taken.ID)
				if err := tx.Create(&hxAccount{Email: "b@x"}).Error; err != nil { // sortid_2
					return err
				}
				if err := tx.Create(&hxAccount{Email: "taken@x"}).Error; err == nil || !isUniqueViolation(err) { // sortid_3
					t.Errorf("Create with a taken email: %v", err)
				}
				for _, sp := range []string{"sortid_1", "sortid_2", "sortid_3"} {
					if err := tx.Exec("SAVEPOINT hx_probe").Error; err != nil {
						return err
					}
					left := tx.Exec("ROLLBACK TO SAVEPOINT " + sp).Error
					if err := tx.Exec("ROLLBACK TO SAVEPOINT hx_probe").Error; err != nil {
						return err
					}
					if left == nil || !strings.Contains(left.Error(), "does not exist") && !strings.Contains(left.Error(), "no such savepoint") {
						t.Errorf("ROLLBACK TO SAVEPOINT %s: %v; want it gone", sp, left)
					}
				}
				return tx.Create(&hxAccount{Email: "c@x"}).Error
			})
			if err != nil {
				t.Fatalf("transaction: %v", err)
			}
			var n int64
			if err := db.Model(&hxAccount{}).Count(&n).Error; err != nil || n != 4 {
				t.Errorf("%d accounts (%v), want 4", n, err)
			}
		})
	}
}

// TestGormHostileNestedTxRollback: a Create retried after a collision in a
// nested db.Transaction (GORM's savepoint) that then returns an error:
// nothing of it remains, the outer transaction goes on and commits.
func TestGormHostileNestedTxRollback(t *testing.T) {
	for _, d := range edgeDialects {
		t.Run(d, func(t *testing.T) {
			src := &takenFirst{}
			db := gormOn(t, d, &gorm.Config{}, gormtype.AutoID{GenerateHUID: src.generate})
			resetTables(t, db, &hxAccount{})
			taken := hxSeed(t, db, "taken@x")
			var inner hxAccount
			err := db.Transaction(func(tx *gorm.DB) error {
				if err := tx.Create(&hxAccount{Email: "outer@x"}).Error; err != nil {
					return err
				}
				errInner := errors.New("inner fails")
				if err := tx.Transaction(func(tx2 *gorm.DB) error {
					src.next(taken.ID)
					inner = hxAccount{Email: "inner@x"}
					if err := tx2.Create(&inner).Error; err != nil {
						return err
					}
					return errInner
				}); err != errInner {
					t.Errorf("inner transaction: %v", err)
				}
				return tx.Create(&hxAccount{Email: "after@x"}).Error
			})
			if err != nil {
				t.Fatalf("outer transaction: %v", err)
			}
			var emails []string
			if err := db.Model(&hxAccount{}).Order("email").Pluck("email", &emails).Error; err != nil {
				t.Fatal(err)
			}
			if strings.Join(emails, ",") != "after@x,outer@x,taken@x" || src.pending() != 0 {
				t.Errorf("accounts %v (pending %d); want after, outer, taken", emails, src.pending())
			}
		})
	}
}

// hxTag and hxPost: many2many and has-many through Association.
type hxTag struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string        `gorm:"size:50"`
}

func (hxTag) TableName() string { return "hx_tags" }

type hxPost struct {
	ID       gormtype.HUID `gorm:"primaryKey"`
	Title    string        `gorm:"size:50"`
	Tags     []hxTag       `gorm:"many2many:hx_post_tags"`
	Comments []hxComment   `gorm:"polymorphic:Owner"`
	ParentID gormtype.NullHUID
	Children []hxPost `gorm:"foreignKey:ParentID"`
}

func (hxPost) TableName() string { return "hx_posts" }

type hxComment struct {
	ID        gormtype.HUID `gorm:"primaryKey"`
	OwnerID   gormtype.HUID `gorm:"index"`
	OwnerType string        `gorm:"size:50"`
	Body      string        `gorm:"size:50"`
}

func (hxComment) TableName() string { return "hx_comments" }

// TestGormHostileAssociationAppend: Association("Tags").Append and
// Association("Comments").Append (polymorphic) and a self-referencing
// child with fresh records whose first keys are taken: other rows stay,
// the new ones are stored under fresh keys.
func TestGormHostileAssociationAppend(t *testing.T) {
	for _, d := range edgeDialects {
		t.Run(d, func(t *testing.T) {
			src := &takenFirst{}
			db := gormOn(t, d, &gorm.Config{}, gormtype.AutoID{GenerateHUID: src.generate})
			if err := db.Migrator().DropTable("hx_post_tags"); err != nil {
				t.Fatal(err)
			}
			resetTables(t, db, &hxPost{}, &hxTag{}, &hxComment{})
			other := hxPost{Title: "other", Tags: []hxTag{{Name: "theirs"}}, Comments: []hxComment{{Body: "theirs"}}}
			if err := db.Create(&other).Error; err != nil {
				t.Fatal(err)
			}
			mine := hxPost{Title: "mine"}
			if err := db.Create(&mine).Error; err != nil {
				t.Fatal(err)
			}
			src.next(other.Tags[0].ID)
			tag := hxTag{Name: "new"}
			if err := db.Model(&mine).Association("Tags").Append(&tag); err != nil {
				t.Errorf("Append tag: %v", err)
			}
			src.next(other.Comments[0].ID)
			c := hxComment{Body: "new"}
			if err := db.Model(&mine).Association("Comments").Append(&c); err != nil {
				t.Errorf("Append comment: %v", err)
			}
			src.next(other.ID)
			child := hxPost{Title: "child", ParentID: gormtype.NullHUID{HUID: mine.ID, Valid: true}}
			if err := db.Model(&mine).Association("Children").Append(&child); err != nil {
				t.Errorf("Append child: %v", err)
			}
			if src.pending() != 0 {
				t.Errorf("%d forced keys not drawn", src.pending())
			}
			var names []string
			db.Table("hx_tags").Joins("JOIN hx_post_tags j ON j.hx_tag_id = hx_tags.id").Where("j.hx_post_id = ?", other.ID).Pluck("name", &names)
			var mineNames []string
			db.Table("hx_tags").Joins("JOIN hx_post_tags j ON j.hx_tag_id = hx_tags.id").Where("j.hx_post_id = ?", mine.ID).Pluck("name", &mineNames)
			if strings.Join(names, ",") != "theirs" || strings.Join(mineNames, ",") != "new" {
				t.Errorf("tags of other %v, of mine %v", names, mineNames)
			}
			var bodies []hxComment
			db.Order("body").Find(&bodies)
			if len(bodies) != 2 || bodies[0].OwnerID != mine.ID || bodies[1].OwnerID != other.ID {
				t.Errorf("comments %+v", bodies)
			}
			var o hxPost
			if err := db.First(&o, "id = ?", other.ID).Error; err != nil || o.Title != "other" || o.ParentID.Valid {
				t.Errorf("other post %+v, %v", o, err)
			}
			var ch hxPost
			if err := db.First(&ch, "id = ?", child.ID).Error; err != nil || ch.Title != "child" || ch.ParentID.HUID != mine.ID {
				t.Errorf("child %+v, %v", ch, err)
			}
		})
	}
}

// hxOwner has a unique email and has-many pets; its tables are migrated
// without foreign-key constraints, as many schemas are.
type hxOwner struct {
	ID    gormtype.HUID `gorm:"primaryKey"`
	Email string        `gorm:"size:100;uniqueIndex"`
	Name  string        `gorm:"size:50"`
	Pets  []hxPet       `gorm:"foreignKey:OwnerID"`
}

func (hxOwner) TableName() string { return "hx_owners" }

type hxPet struct {
	ID      gormtype.HUID `gorm:"primaryKey"`
	OwnerID gormtype.HUID `gorm:"index"`
	Name    string        `gorm:"size:50"`
}

func (hxPet) TableName() string { return "hx_pets" }

// TestGormHostileUpsertOrphans: the single-row upsert on email of an owner
// with a new pet, the email taken (MySQL ON DUPLICATE KEY UPDATE; ON
// CONFLICT (email) DO NOTHING elsewhere). err is nil, and the pet must
// belong to a stored owner; the struct's key is a key no row has, and the
// pet is stored under it.
func TestGormHostileUpsertOrphans(t *testing.T) {
	for _, c := range []struct {
		dialect string
		oc      clause.OnConflict
	}{
		{"mysql", clause.OnConflict{UpdateAll: true}},
		{"mysql", clause.OnConflict{DoNothing: true}},
		{"postgres", clause.OnConflict{Columns: []clause.Column{{Name: "email"}}, DoNothing: true}},
		{"sqlite", clause.OnConflict{Columns: []clause.Column{{Name: "email"}}, DoNothing: true}},
	} {
		name := c.dialect + "/UpdateAll"
		if c.oc.DoNothing {
			name = c.dialect + "/DoNothing"
		}
		t.Run(name, func(t *testing.T) {
			db := gormOn(t, c.dialect, &gorm.Config{DisableForeignKeyConstraintWhenMigrating: true}, gormtype.AutoID{})
			resetTables(t, db, &hxOwner{}, &hxPet{})
			old := hxOwner{ID: gormtype.NewHUID(), Email: "old@x", Name: "seed"}
			if err := db.Create(&old).Error; err != nil {
				t.Fatal(err)
			}
			o := hxOwner{Email: "old@x", Name: "renamed", Pets: []hxPet{{Name: "rex"}}}
			err := db.Clauses(c.oc).Create(&o).Error
			if isAutoIDError(err) {
				return
			}
			if err != nil {
				t.Fatalf("upsert: %v", err)
			}
			var owners int64
			if err := db.Model(&hxOwner{}).Where("id = ?", o.ID).Count(&owners).Error; err != nil {
				t.Fatal(err)
			}
			var orphans int64
			if err := db.Model(&hxPet{}).Where("owner_id NOT IN (SELECT id FROM hx_owners)").Count(&orphans).Error; err != nil {
				t.Fatal(err)
			}
			if owners != 1 || orphans != 0 {
				t.Errorf("err nil; struct key %s is in %d owner rows (old@x is %s); %d pets belong to no owner", o.ID, owners, old.ID, orphans)
			}
		})
	}
}

// hxKeyKinds are models keyed by each kind of gormtype ID field.
type hxPtrKey struct {
	ID   *gormtype.HUID `gorm:"primaryKey"`
	Name string         `gorm:"size:50"`
}

func (hxPtrKey) TableName() string { return "hx_ptr_keys" }

type hxNullKey struct {
	ID   gormtype.NullHUID `gorm:"primaryKey"`
	Name string            `gorm:"size:50"`
}

func (hxNullKey) TableName() string { return "hx_null_keys" }

type hxUUIDKey struct {
	ID   gormtype.SCRU128 `gorm:"primaryKey"`
	Name string           `gorm:"size:50"`
}

func (hxUUIDKey) TableName() string { return "hx_uuid_keys" }

type hxBytesKey struct {
	ID   gormtype.SCRU128Bytes `gorm:"primaryKey"`
	Name string                `gorm:"size:50"`
}

func (hxBytesKey) TableName() string { return "hx_bytes_keys" }

// TestGormHostileKeyKinds: a pointer HUID key, a NullHUID key, a SCRU128
// key (uuid on PostgreSQL, binary(16) elsewhere) and a SCRU128Bytes key,
// each forced to collide once, in GORM's transaction and in a caller's: the
// row is stored once under a fresh key and the other row is untouched.
func TestGormHostileKeyKinds(t *testing.T) {
	for _, d := range edgeDialects {
		t.Run(d, func(t *testing.T) {
			src := &takenFirst{}
			var scru []idtype.SCRU128
			genSCRU := func() (idtype.SCRU128, error) {
				if len(scru) > 0 {
					id := scru[0]
					scru = scru[1:]
					return id, nil
				}
				return idtype.GenerateSCRU128()
			}
			db := gormOn(t, d, &gorm.Config{}, gormtype.AutoID{GenerateHUID: src.generate, GenerateSCRU128: genSCRU})
			resetTables(t, db, &hxPtrKey{}, &hxNullKey{}, &hxUUIDKey{}, &hxBytesKey{})
			for _, inTx := range []bool{false, true} {
				run := func(f func(w *gorm.DB)) {
					if !inTx {
						f(db)
						return
					}
					if err := db.Transaction(func(w *gorm.DB) error { f(w); return nil }); err != nil {
						t.Fatal(err)
					}
				}
				run(func(w *gorm.DB) {
					other := hxPtrKey{Name: "other"}
					if err := w.Create(&other).Error; err != nil {
						t.Fatal(err)
					}
					src.next(*other.ID)
					mine := hxPtrKey{Name: "mine"}
					if err := w.Create(&mine).Error; err != nil || mine.ID == nil || *mine.ID == *other.ID {
						t.Errorf("pointer key (tx %v): %v, key %v", inTx, err, mine.ID)
					}
				})
				run(func(w *gorm.DB) {
					other := hxNullKey{Name: "other"}
					if err := w.Create(&other).Error; err != nil {
						t.Fatal(err)
					}
					src.next(other.ID.HUID)
					mine := hxNullKey{Name: "mine"}
					if err := w.Create(&mine).Error; err != nil || !mine.ID.Valid || mine.ID == other.ID {
						t.Errorf("NullHUID key (tx %v): %v, key %v", inTx, err, mine.ID)
					}
				})
				run(func(w *gorm.DB) {
					other := hxUUIDKey{Name: "other"}
					if err := w.Create(&other).Error; err != nil {
						t.Fatal(err)
					}
					scru = append(scru, idtype.SCRU128(other.ID))
					mine := hxUUIDKey{Name: "mine"}
					if err := w.Create(&mine).Error; err != nil || mine.ID == other.ID {
						t.Errorf("SCRU128 key (tx %v): %v, key %v", inTx, err, mine.ID)
					}
				})
				run(func(w *gorm.DB) {
					other := hxBytesKey{Name: "other"}
					if err := w.Create(&other).Error; err != nil {
						t.Fatal(err)
					}
					scru = append(scru, idtype.SCRU128(other.ID))
					mine := hxBytesKey{Name: "mine"}
					if err := w.Create(&mine).Error; err != nil || mine.ID == other.ID {
						t.Errorf("SCRU128Bytes key (tx %v): %v, key %v", inTx, err, mine.ID)
					}
				})
			}
			if src.pending() != 0 || len(scru) != 0 {
				t.Errorf("forced keys not drawn: %d HUIDs, %d SCRU128s", src.pending(), len(scru))
			}
			for _, m := range []any{&hxPtrKey{}, &hxNullKey{}, &hxUUIDKey{}, &hxBytesKey{}} {
				var names []string
				if err := db.Model(m).Order("name").Pluck("name", &names).Error; err != nil {
					t.Fatal(err)
				}
				if strings.Join(names, ",") != "mine,mine,other,other" {
					t.Errorf("%T: names %v", m, names)
				}
			}
		})
	}
}

// hxGroup and hxMember: many2many through a join model with a HUID key of
// its own (SetupJoinTable), as GORM documents custom join tables.
type hxGroup struct {
	ID      gormtype.HUID `gorm:"primaryKey"`
	Name    string        `gorm:"size:50"`
	Members []hxMember    `gorm:"many2many:hx_memberships"`
}

func (hxGroup) TableName() string { return "hx_groups" }

type hxMember struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string        `gorm:"size:50"`
}

func (hxMember) TableName() string { return "hx_members" }

type hxMembership struct {
	ID         gormtype.HUID `gorm:"primaryKey"`
	HxGroupID  gormtype.HUID `gorm:"uniqueIndex:hx_ms_pair"`
	HxMemberID gormtype.HUID `gorm:"uniqueIndex:hx_ms_pair"`
}

func (hxMembership) TableName() string { return "hx_memberships" }

// hxPairMembership is a join model keyed by its two foreign keys.
type hxPairMembership struct {
	HxGroupID  gormtype.HUID `gorm:"primaryKey"`
	HxMemberID gormtype.HUID `gorm:"primaryKey"`
}

func (hxPairMembership) TableName() string { return "hx_pair_memberships" }

// TestGormHostileCustomJoinTable: GORM inserts the rows of a many2many join
// model with ON CONFLICT DO NOTHING, which could skip a row with a fresh
// key: a join model with a key of its own that AutoID would fill is
// refused, naming a database default as the way out, and nothing is
// stored; a join model keyed by its two foreign keys works.
func TestGormHostileCustomJoinTable(t *testing.T) {
	for _, d := range edgeDialects {
		t.Run(d, func(t *testing.T) {
			db := gormOn(t, d, &gorm.Config{}, gormtype.AutoID{})
			if err := db.SetupJoinTable(&hxGroup{}, "Members", &hxMembership{}); err != nil {
				t.Fatal(err)
			}
			resetTables(t, db, &hxMembership{}, &hxGroup{}, &hxMember{})
			g := hxGroup{Name: "g", Members: []hxMember{{Name: "a"}, {Name: "b"}}}
			err := db.Create(&g).Error
			if !errors.Is(err, gormtype.ErrRefused) || !strings.Contains(err.Error(), "database default") {
				t.Fatalf("Create with a keyed join model: %v; want ErrRefused naming a database default", err)
			}
			var n int64
			if err := db.Model(&hxGroup{}).Count(&n).Error; err != nil || n != 0 {
				t.Errorf("%d groups (%v) after the refusal, want 0", n, err)
			}

			pairs := gormOn(t, d, &gorm.Config{}, gormtype.AutoID{})
			if err := pairs.SetupJoinTable(&hxGroup{}, "Members", &hxPairMembership{}); err != nil {
				t.Fatal(err)
			}
			resetTables(t, pairs, &hxPairMembership{}, &hxGroup{}, &hxMember{})
			g = hxGroup{Name: "g", Members: []hxMember{{Name: "a"}, {Name: "b"}}}
			if err := pairs.Create(&g).Error; err != nil {
				t.Fatalf("Create with a join model keyed by its foreign keys: %v", err)
			}
			if err := pairs.Model(&hxPairMembership{}).Where("hx_group_id = ?", g.ID).Count(&n).Error; err != nil || n != 2 {
				t.Errorf("%d memberships (%v), want 2", n, err)
			}
		})
	}
}

type hxOrder struct {
	ID      gormtype.HUID `gorm:"primaryKey"`
	Name    string        `gorm:"size:50"`
	BuyerID gormtype.HUID
	Buyer   *hxAccount `gorm:"foreignKey:BuyerID"`
	Pets    []hxPet    `gorm:"foreignKey:OwnerID"`
}

func (hxOrder) TableName() string { return "hx_orders" }

// TestGormHostileNoTxRetry: with SkipDefaultTransaction and no caller
// transaction, (a) CreateInBatches whose second batch collides and (b) a
// Create whose belongs-to buyer is stored before the order's key
// collides: every row is stored exactly once and the order points at its
// buyer.
func TestGormHostileNoTxRetry(t *testing.T) {
	for _, d := range edgeDialects {
		t.Run(d, func(t *testing.T) {
			src := &takenFirst{}
			db := gormOn(t, d, &gorm.Config{SkipDefaultTransaction: true, DisableForeignKeyConstraintWhenMigrating: true}, gormtype.AutoID{GenerateHUID: src.generate})
			resetTables(t, db, &hxAccount{}, &hxOrder{}, &hxPet{})
			taken := hxSeed(t, db, "taken@x")
			rows := make([]hxAccount, 5)
			for i := range rows {
				rows[i] = hxAccount{Email: string(rune('a'+i)) + "@x"}
			}
			src.next(0, 0, taken.ID)
			if err := db.CreateInBatches(&rows, 2).Error; err != nil {
				t.Fatalf("CreateInBatches: %v", err)
			}
			for _, r := range rows {
				if hxEmailOf(t, db, r.ID) != r.Email {
					t.Errorf("row %s not stored under its key %s", r.Email, r.ID)
				}
			}
			var other hxOrder
			other = hxOrder{Name: "other", Buyer: &hxAccount{Email: "ob@x"}}
			if err := db.Create(&other).Error; err != nil {
				t.Fatal(err)
			}
			src.next(0, other.ID)
			o := hxOrder{Name: "mine", Buyer: &hxAccount{Email: "buyer@x"}, Pets: []hxPet{{Name: "p"}}}
			if err := db.Create(&o).Error; err != nil {
				t.Fatalf("Create: %v", err)
			}
			if src.pending() != 0 {
				t.Errorf("%d forced keys not drawn", src.pending())
			}
			var n int64
			db.Model(&hxAccount{}).Where("email = ?", "buyer@x").Count(&n)
			var stored hxOrder
			if err := db.First(&stored, "id = ?", o.ID).Error; err != nil || n != 1 || stored.BuyerID != o.Buyer.ID || hxEmailOf(t, db, o.Buyer.ID) != "buyer@x" {
				t.Errorf("order %+v (%v); buyer@x stored %d times, struct buyer %s", stored, err, n, o.Buyer.ID)
			}
			var pets int64
			db.Model(&hxPet{}).Where("owner_id = ?", o.ID).Count(&pets)
			var total int64
			db.Model(&hxAccount{}).Count(&total)
			if pets != 1 || total != 8 {
				t.Errorf("%d pets of mine, %d accounts (want 1, 8)", pets, total)
			}
		})
	}
}
