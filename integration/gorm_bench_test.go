package integration_test

import (
	"net/url"
	"testing"

	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

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

const (
	gormBenchRows  = 100_000
	gormBenchBatch = 1000
)

// BenchmarkGormCreateInBatches compares CreateInBatches of 100 000 rows in
// batches of 1000 with auto-filled HUID keys (AutoID) against the same rows
// with int64 keys the caller sets on plain GORM: sequential ones, HUID
// values made by the caller, and sequential ones inserted with ON CONFLICT
// DO NOTHING. Each runs in GORM's default transaction and with
// SkipDefaultTransaction. pkey-B is the size of the primary-key index
// afterwards, which tells index locality apart from client cost. Run the
// contenders interleaved: go test -c, then several
// -test.bench GormCreateInBatches -test.benchtime 2x, then benchstat.
func BenchmarkGormCreateInBatches(b *testing.B) {
	autoID, plain := gormBenchDBs(b)
	for _, tx := range []struct {
		name    string
		session *gorm.Session
	}{
		{"tx=default", &gorm.Session{}},
		{"tx=skip", &gorm.Session{SkipDefaultTransaction: true}},
	} {
		b.Run(tx.name+"/HUID=auto", func(b *testing.B) {
			benchCreate(b, autoID.Session(tx.session), func() []gormBenchHUID {
				return make([]gormBenchHUID, gormBenchRows)
			})
		})
		b.Run(tx.name+"/int64=preset-huid-values", func(b *testing.B) {
			benchCreate(b, plain.Session(tx.session), func() []gormBenchInt {
				rows := make([]gormBenchInt, gormBenchRows)
				for i := range rows {
					rows[i].ID = int64(idtype.NewHUID())
				}
				return rows
			})
		})
		next := int64(0)
		if tx.name == "tx=default" {
			// The alternative to a savepoint: let the insert skip a colliding
			// row (ON CONFLICT DO NOTHING) and re-insert it with a fresh key.
			// PostgreSQL pays for it on every row (speculative insertion).
			b.Run(tx.name+"/int64=preset-onconflict", func(b *testing.B) {
				doNothing := clause.OnConflict{Columns: []clause.Column{{Name: "id"}}, DoNothing: true}
				benchCreate(b, plain.Session(tx.session).Clauses(doNothing), func() []gormBenchInt {
					rows := make([]gormBenchInt, gormBenchRows)
					for i := range rows {
						next++
						rows[i].ID = next
					}
					return rows
				})
			})
		}
		b.Run(tx.name+"/int64=preset", func(b *testing.B) {
			benchCreate(b, plain.Session(tx.session), func() []gormBenchInt {
				rows := make([]gormBenchInt, gormBenchRows)
				for i := range rows {
					next++
					rows[i].ID = next
				}
				return rows
			})
		})
	}
}

// gormBenchDBs opens two GORMs on the test database: with AutoID, and
// plain GORM for the caller-set keys.
func gormBenchDBs(b *testing.B) (autoID, plain *gorm.DB) {
	url := gormBenchURL(b)
	return openGorm(b, postgres.Open(url), &gorm.Config{}, gormtype.AutoID{}),
		openGorm(b, postgres.Open(url), &gorm.Config{})
}

// gormBenchURL is the test database without waiting for the WAL flush at
// commit: on this kind of machine the disk's flush time varies more than
// the differences measured, and the fixed cost it adds would shrink them.
func gormBenchURL(b *testing.B) string {
	return pgURLWith(b, func(u *url.URL, q url.Values) { q.Set("synchronous_commit", "off") })
}

func benchCreate[T interface{ TableName() string }](b *testing.B, db *gorm.DB, rows func() []T) {
	var zero T
	table := zero.TableName()
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
		if err := db.CreateInBatches(&r, gormBenchBatch).Error; err != nil {
			b.Fatal(err)
		}
	}
	var pkeyBytes int64
	if err := db.Raw("SELECT pg_relation_size(?::regclass)", table+"_pkey").Scan(&pkeyBytes).Error; err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(pkeyBytes), "pkey-B")
}

// BenchmarkGormCreateOne is the latency of a single-row Create in GORM's
// default transaction: auto-filled HUID key (AutoID adds no statement to
// it), and the same in gormtype.Transaction, against an int64 key the
// caller sets on plain GORM, alone and after a SAVEPOINT.
func BenchmarkGormCreateOne(b *testing.B) {
	autoID, plain := gormBenchDBs(b)
	b.Run("HUID=auto", func(b *testing.B) {
		benchCreateOne(b, autoID, func() *gormBenchHUID { return &gormBenchHUID{} })
	})
	b.Run("HUID=auto-transaction", func(b *testing.B) {
		tx := autoID.Session(&gorm.Session{})
		var zero gormBenchHUID
		if err := tx.Migrator().DropTable(&zero); err != nil {
			b.Fatal(err)
		}
		if err := tx.AutoMigrate(&zero); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			row := &gormBenchHUID{}
			if err := gormtype.Transaction(tx.Statement.Context, tx, func(tx *gorm.DB) error { return tx.Create(row).Error }); err != nil {
				b.Fatal(err)
			}
		}
	})
	next := int64(0)
	b.Run("int64=preset", func(b *testing.B) {
		benchCreateOne(b, plain, func() *gormBenchInt { next++; return &gormBenchInt{ID: next} })
	})
	savepoint := openGorm(b, postgres.Open(gormBenchURL(b)), &gorm.Config{})
	if err := savepoint.Callback().Create().Before("gorm:create").Register("bench:savepoint", func(db *gorm.DB) {
		_, err := db.Statement.ConnPool.ExecContext(db.Statement.Context, "SAVEPOINT bench")
		db.AddError(err)
	}); err != nil {
		b.Fatal(err)
	}
	b.Run("int64=preset-savepoint", func(b *testing.B) {
		benchCreateOne(b, savepoint, func() *gormBenchInt { next++; return &gormBenchInt{ID: next} })
	})
}

func benchCreateOne[T interface{ TableName() string }](b *testing.B, db *gorm.DB, row func() *T) {
	var zero T
	if err := db.Migrator().DropTable(&zero); err != nil {
		b.Fatal(err)
	}
	if err := db.AutoMigrate(&zero); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := db.Create(row()).Error; err != nil {
			b.Fatal(err)
		}
	}
}
