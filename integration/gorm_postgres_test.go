package integration_test

import (
	"strings"
	"testing"
	"time"

	"gorm.io/driver/postgres"
	"gorm.io/gorm"

	"github.com/sortid/sortid/gormtype"
	"github.com/sortid/sortid/integration/internal/pgtest"
)

func openGormPostgres(t testing.TB, plugin gormtype.AutoID) *gorm.DB {
	t.Helper()
	return openGorm(t, postgres.Open(pgtest.URL(t)), &gorm.Config{}, plugin)
}

func TestGormPostgres(t *testing.T) {
	db := openGormPostgres(t, gormtype.AutoID{})
	runGormSuite(t, db, func(p gormtype.AutoID) *gorm.DB { return openGormPostgres(t, p) })
	t.Run("ExplainUsesPrimaryKey", func(t *testing.T) {
		from := time.Now().Add(-time.Minute)
		stmt := db.Session(&gorm.Session{DryRun: true}).Scopes(gormtype.Between("id", from, time.Now())).
			Find(&[]gormTag{}).Statement
		var plan []string
		err := db.Transaction(func(tx *gorm.DB) error {
			if err := tx.Exec("SET LOCAL enable_seqscan = off").Error; err != nil {
				return err
			}
			return tx.Raw("EXPLAIN "+stmt.SQL.String(), stmt.Vars...).Scan(&plan).Error
		})
		if err != nil {
			t.Fatalf("EXPLAIN: %v", err)
		}
		if joined := strings.Join(plan, "\n"); !strings.Contains(joined, "Index") || !strings.Contains(joined, "gorm_tags_pkey") {
			t.Errorf("plan of %s does not use gorm_tags_pkey:\n%s", stmt.SQL.String(), joined)
		}
	})
}

type gormServerSide struct {
	ID   gormtype.HUID    `gorm:"primaryKey;default:huid_generate()"`
	Ref  gormtype.SCRU128 `gorm:"default:scru128_generate()"`
	Name string
}

func (gormServerSide) TableName() string { return "gorm_server_side" }

func TestGormPostgresDatabaseDefaults(t *testing.T) {
	t.Parallel()
	db := openGormPostgres(t, gormtype.AutoID{})
	if err := db.AutoMigrate(&gormServerSide{}); err != nil {
		t.Fatalf("AutoMigrate: %v", err)
	}
	rows := []gormServerSide{{Name: "a"}, {Name: "b"}}
	if err := db.Create(&rows).Error; err != nil {
		t.Fatalf("Create: %v", err)
	}
	one := gormServerSide{Name: "c"}
	if err := db.Create(&one).Error; err != nil {
		t.Fatalf("Create one: %v", err)
	}
	for _, r := range append(rows, one) {
		var back gormServerSide
		if r.ID.IsZero() || r.Ref.IsZero() {
			t.Fatalf("row %+v did not get its database-made IDs back", r)
		}
		if err := db.First(&back, "id = ?", r.ID).Error; err != nil || back != r {
			t.Errorf("row in database = %+v, %v; struct %+v", back, err, r)
		}
		if d := time.Since(r.ID.Time()); d < 0 || d > time.Minute {
			t.Errorf("HUID %s made at %v, not just now", r.ID, r.ID.Time())
		}
	}
}

// TestGormPostgresRetryInTransaction: a collision in the middle of a user's
// transaction is retried under one savepoint, the rows written before it
// survive, and no savepoint of AutoID's is left in the transaction.
func TestGormPostgresRetryInTransaction(t *testing.T) {
	gen, taken, arm := collidingOnce()
	db := openGormPostgres(t, gormtype.AutoID{GenerateHUID: gen})
	if err := db.Migrator().DropTable(&gormTag{}); err != nil {
		t.Fatal(err)
	}
	if err := db.AutoMigrate(&gormTag{}); err != nil {
		t.Fatal(err)
	}
	if err := db.Create(&gormTag{ID: taken, Name: "taken"}).Error; err != nil {
		t.Fatal(err)
	}
	err := db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(&gormTag{Name: "before"}).Error; err != nil {
			return err
		}
		arm()
		batch := make([]gormTag, 3)
		if err := tx.CreateInBatches(&batch, 2).Error; err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatalf("transaction with a collision: %v", err)
	}
	var n int64
	if err := db.Model(&gormTag{}).Count(&n).Error; err != nil || n != 5 {
		t.Errorf("rows after the transaction: %d, %v; want 5 (taken, before, 3 of the batch)", n, err)
	}
}
