package gormtype_test

// Guarantee 6, upserts that AutoID allows: ON CONFLICT on another unique
// column with DoUpdates of other columns. The row it updated keeps its key
// and fresh columns, and the struct holds them (NEW for the fresh non-key
// columns); a new row is stored under fresh values; a fresh key that is
// taken is retried, never turned into an update.

import (
	"fmt"
	"testing"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/sortid/sortid/gormtype"
)

var upsertOnEmail = clause.OnConflict{Columns: []clause.Column{{Name: "email"}}, DoUpdates: clause.AssignmentColumns([]string{"name"})}

// TestUpsertOnAnotherUniqueColumn: the existing row is updated under its
// key, a new row inserted under a fresh one, and the structs hold the
// stored keys; nothing else changes.
func TestUpsertOnAnotherUniqueColumn(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 2, 3} {
		t.Run(fmt.Sprint(n, " rows"), func(t *testing.T) {
			t.Parallel()
			db := openDB(t, nil, gormtype.AutoID{}, &Account{})
			old := seedAccount(t, db, "old@x")
			other := seedAccount(t, db, "other@x")
			rows := []Account{{Email: "new1@x", Name: "new"}, {Email: "old@x", Name: "renamed"}, {Email: "new2@x", Name: "new"}}[:n]
			if n == 1 {
				rows[0] = Account{Email: "old@x", Name: "renamed"}
			}
			if err := db.Clauses(upsertOnEmail).Create(&rows).Error; err != nil {
				t.Fatalf("upsert: %v", err)
			}
			want := old
			want.Name = "renamed"
			checkAccount(t, db, want)
			checkAccount(t, db, other)
			for _, r := range rows {
				if r.Email == "old@x" {
					if r.ID != old.ID {
						t.Errorf("the struct of the updated row holds key %s; the stored row is %s", r.ID, old.ID)
					}
					continue
				}
				if r.ID.IsZero() || r.ID == old.ID || r.ID == other.ID {
					t.Errorf("new row %s holds key %s", r.Email, r.ID)
				}
				checkCount(t, db, 1, "accounts", "id = ? AND email = ? AND name = 'new'", r.ID, r.Email)
			}
			checkCount(t, db, int64(2+n-1), "accounts", "1 = 1")
		})
	}
}

// TestUpsertFreshKeyTakenIsRetried: the fresh key of an upsert on email
// is another row's: the Create runs again with a new key; the row that
// holds the key is not updated.
func TestUpsertFreshKeyTakenIsRetried(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 2} {
		t.Run(fmt.Sprint(n, " rows"), func(t *testing.T) {
			t.Parallel()
			src := &keySource{}
			db := openDB(t, nil, src.plugin(0), &Account{})
			taken := seedAccount(t, db, "taken@x")
			rows := []Account{{Email: "n1@x", Name: "new"}, {Email: "n2@x", Name: "new"}}[:n]
			queue := []gormtype.HUID{taken.ID, taken.ID}[:n] // one attempt's keys
			src.next(queue...)
			if err := retried(db, func(tx *gorm.DB) error { return tx.Clauses(upsertOnEmail).Create(&rows).Error }); err != nil {
				t.Fatalf("upsert with a taken key: %v", err)
			}
			src.checkDrawn(t, "accounts", 1)
			checkAccount(t, db, taken)
			for _, r := range rows {
				checkFresh(t, db, r, taken)
			}
		})
	}
}

// upserted has a non-key auto field, not unique.
type upserted struct {
	ID    gormtype.HUID    `gorm:"primaryKey"`
	Trace gormtype.SCRU128 `sortid:"auto"`
	Email string           `gorm:"uniqueIndex"`
	Name  string
}

// TestUpsertReturnsTheStoredFreshColumns (NEW): after an upsert updated an
// existing row, its struct holds that row's key and its stored Trace, not
// the fresh Trace no row has; a new row's struct holds its stored values.
func TestUpsertReturnsTheStoredFreshColumns(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 2} {
		t.Run(fmt.Sprint(n, " rows"), func(t *testing.T) {
			t.Parallel()
			db := openDB(t, nil, gormtype.AutoID{}, &upserted{})
			old := upserted{Email: "old@x", Name: "old"}
			mustCreate(t, db, &old)
			rows := []upserted{{Email: "old@x", Name: "renamed"}, {Email: "new@x", Name: "new"}}[:n]
			if err := db.Clauses(upsertOnEmail).Create(&rows).Error; err != nil {
				t.Fatalf("upsert: %v", err)
			}
			var stored []upserted
			if err := db.Order("email").Find(&stored).Error; err != nil {
				t.Fatal(err)
			}
			byEmail := map[string]upserted{}
			for _, s := range stored {
				byEmail[s.Email] = s
			}
			if got := byEmail["old@x"]; got.ID != old.ID || got.Trace != old.Trace || got.Name != "renamed" {
				t.Errorf("the updated row is stored as %+v; want key %s, Trace %s, name renamed", got, old.ID, old.Trace)
			}
			for _, r := range rows {
				if s := byEmail[r.Email]; r != s {
					t.Errorf("struct %+v; the stored row is %+v", r, s)
				}
			}
		})
	}
}
