package gormtype_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/glebarez/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
	"gorm.io/gorm/logger"

	"github.com/sortid/sortid/gormtype"
	"github.com/sortid/sortid/idtype"
)

type Order struct {
	ID    gormtype.HUID `gorm:"primaryKey"`
	Total int
}

func Example() {
	db, err := gorm.Open(sqlite.Open("file:example?mode=memory"), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		panic(err)
	}
	if err := db.Use(gormtype.AutoID{}); err != nil { // fills zero keys on Create
		panic(err)
	}
	if err := db.AutoMigrate(&Order{}); err != nil {
		panic(err)
	}
	from := time.Now().Truncate(time.Millisecond)
	order := Order{Total: 42}
	if err := db.Create(&order).Error; err != nil {
		panic(err)
	}
	var recent []Order
	db.Scopes(gormtype.Between("id", from, time.Now().Add(time.Millisecond))).Find(&recent)
	js, _ := json.Marshal(recent[0])
	var decoded struct{ ID string }
	_ = json.Unmarshal(js, &decoded)
	fmt.Println(order.ID.IsZero(), len(recent), decoded.ID == order.ID.String())
	// Output: false 1 true
}

// openExample opens an in-memory SQLite database with the plugin and the
// Order table.
func openExample(name string) *gorm.DB {
	db, err := gorm.Open(sqlite.Open("file:"+name+"?mode=memory"), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		panic(err)
	}
	if err := db.Use(gormtype.AutoID{}); err != nil {
		panic(err)
	}
	if err := db.AutoMigrate(&Order{}); err != nil {
		panic(err)
	}
	return db
}

// An upsert that a fresh key could turn into an update of another row is
// refused; with the key set by the caller it runs as written.
func ExampleAutoID_refused() {
	db := openExample("refused")
	upsert := clause.OnConflict{UpdateAll: true} // aimed at the key
	err := db.Clauses(upsert).Create(&Order{Total: 1}).Error
	fmt.Println(errors.Is(err, gormtype.ErrRefused))
	err = db.Clauses(upsert).Create(&Order{ID: gormtype.NewHUID(), Total: 1}).Error
	fmt.Println(err)
	// Output:
	// true
	// <nil>
}

// BetweenHUID keeps the rows of a time window where the query has no
// model, such as a table named by db.Table.
func ExampleBetweenHUID() {
	db := openExample("between")
	from := time.Now().Truncate(time.Millisecond)
	db.Create(&[]Order{{Total: 1}, {Total: 2}})
	var totals []int
	db.Table("orders").Scopes(gormtype.BetweenHUID("id", from, time.Now().Add(time.Millisecond))).
		Order("id").Pluck("total", &totals)
	fmt.Println(totals)
	// Output: [1 2]
}

// A fresh key that another writer took is replaced: here the generator
// hands out a taken key first. A plain Create fails with ErrKeyTaken;
// Transaction runs its function again with a new key.
func ExampleAutoID_retry() {
	taken := gormtype.NewHUID()
	draws := 0
	db, _ := gorm.Open(sqlite.Open("file:retry?mode=memory"), &gorm.Config{Logger: logger.Discard})
	collisions := map[string]int{} // a service would export this as a metric
	_ = db.Use(gormtype.AutoID{
		GenerateHUID: func() (idtype.HUID, error) {
			if draws++; draws <= 2 {
				return taken.ID(), nil
			}
			return idtype.GenerateHUID()
		},
		OnCollision: func(_ context.Context, table string, _ error) { collisions[table]++ },
	})
	_ = db.AutoMigrate(&Order{})
	db.Create(&Order{ID: taken, Total: 1})
	order := Order{Total: 2}
	err := db.Create(&order).Error
	fmt.Println(errors.Is(err, gormtype.ErrKeyTaken), order.ID.IsZero())
	err = gormtype.Transaction(context.Background(), db, func(tx *gorm.DB) error {
		return tx.Create(&order).Error
	})
	var n int64
	db.Model(&Order{}).Count(&n)
	fmt.Println(err, order.ID != taken, draws, n, collisions)
	// Output:
	// true true
	// <nil> true 3 2 map[orders:2]
}

// Transaction runs a unit of work again, in a fresh transaction, when a key
// AutoID filled in it was taken; every field AutoID filled is reset first.
func ExampleTransaction() {
	db := openExample("transaction")
	order := Order{Total: 3}
	attempts := 0
	err := gormtype.Transaction(context.Background(), db, func(tx *gorm.DB) error {
		attempts++
		return tx.Create(&order).Error
	})
	fmt.Println(err, attempts, order.ID.IsZero())
	// Output: <nil> 1 false
}
