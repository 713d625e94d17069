package integration_test

import (
	"testing"

	"gorm.io/gorm"

	"github.com/sortid/sortid/gormtype"
	"github.com/sortid/sortid/idtype"
)

type gormBenchHUID struct {
	ID      gormtype.HUID `gorm:"primaryKey"`
	Payload int64
}

func (gormBenchHUID) TableName() string { return "gorm_bench_huid" }

type gormBenchInt struct {
	ID      int64 `gorm:"primaryKey;autoIncrement:false"`
	Payload int64
}

func (gormBenchInt) TableName() string { return "gorm_bench_int" }

const gormBenchRows = 100_000

// BenchmarkGormCreateInBatches compares CreateInBatches of 100 000 rows with
// auto-filled HUID keys against the same rows with int64 keys the caller
// sets: sequential ones, and HUID values made by the caller (the same index
// locality as the auto-filled keys, so the difference is the plugin's own
// cost). Run: go test -run '^$' -bench GormCreateInBatches -count 6 .
func BenchmarkGormCreateInBatches(b *testing.B) {
	db := openGormPostgres(b, gormtype.AutoID{})
	b.Run("HUID=auto", func(b *testing.B) {
		benchCreate(b, db, "gorm_bench_huid", func() []gormBenchHUID {
			return make([]gormBenchHUID, gormBenchRows)
		})
	})
	// Without retries AutoID takes no SAVEPOINT per batch: the difference to
	// HUID=auto is the price of surviving a collision inside a transaction.
	noRetry := openGormPostgres(b, gormtype.AutoID{Retries: -1})
	b.Run("HUID=auto-noretry", func(b *testing.B) {
		benchCreate(b, noRetry, "gorm_bench_huid", func() []gormBenchHUID {
			return make([]gormBenchHUID, gormBenchRows)
		})
	})
	b.Run("int64=preset-huid-values", func(b *testing.B) {
		benchCreate(b, db, "gorm_bench_int", func() []gormBenchInt {
			rows := make([]gormBenchInt, gormBenchRows)
			for i := range rows {
				rows[i].ID = int64(idtype.NewHUID())
			}
			return rows
		})
	})
	b.Run("int64=preset", func(b *testing.B) {
		next := int64(0)
		benchCreate(b, db, "gorm_bench_int", func() []gormBenchInt {
			rows := make([]gormBenchInt, gormBenchRows)
			for i := range rows {
				next++
				rows[i].ID = next
			}
			return rows
		})
	})
}

func benchCreate[T any](b *testing.B, db *gorm.DB, table string, rows func() []T) {
	var zero T
	if err := db.Migrator().DropTable(&zero); err != nil {
		b.Fatal(err)
	}
	if err := db.AutoMigrate(&zero); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		b.StopTimer()
		if err := db.Exec("TRUNCATE " + table).Error; err != nil {
			b.Fatal(err)
		}
		r := rows()
		b.StartTimer()
		if err := db.CreateInBatches(&r, 1000).Error; err != nil {
			b.Fatal(err)
		}
	}
}
