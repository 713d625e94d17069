package gormtype_test

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/glebarez/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/sortid/sortid/gormtype"
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
