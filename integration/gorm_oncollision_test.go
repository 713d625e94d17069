package integration_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"gorm.io/gorm"

	"github.com/sortid/sortid/gormtype"
)

// ocAccount is the table of TestGormOnCollision alone.
type ocAccount struct {
	ID    gormtype.HUID `gorm:"primaryKey"`
	Email string        `gorm:"size:100;uniqueIndex"`
}

func (ocAccount) TableName() string { return "oc_accounts" }

// collisionLog records AutoID.OnCollision calls.
type collisionLog struct {
	mu     sync.Mutex
	tables []string
	errs   []error
}

func (l *collisionLog) record(_ context.Context, table string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tables, l.errs = append(l.tables, table), append(l.errs, err)
}

// take returns the calls so far and forgets them.
func (l *collisionLog) take() ([]string, []error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	tables, errs := l.tables, l.errs
	l.tables, l.errs = nil, nil
	return tables, errs
}

// TestGormOnCollision: on every dialect, in GORM's transaction and a
// caller's, AutoID.OnCollision is called once per collision of a fresh key,
// with the table and the driver's unique violation: twice for a Create
// that collides twice and then succeeds, Retries+1 times for one that ends
// with ErrKeyTaken, never with Retries < 0 or without a collision.
func TestGormOnCollision(t *testing.T) {
	t.Parallel()
	for _, d := range colDialects {
		t.Run(d.name, func(t *testing.T) {
			src := &takenFirst{}
			log := &collisionLog{}
			db := d.open(t, gormtype.AutoID{GenerateHUID: src.generate, OnCollision: log.record})
			off := gormOn(t, d.name, &gorm.Config{}, gormtype.AutoID{Retries: -1, GenerateHUID: src.generate, OnCollision: log.record})
			resetTables(t, db, &ocAccount{})
			a, b := ocAccount{ID: gormtype.NewHUID(), Email: "a"}, ocAccount{ID: gormtype.NewHUID(), Email: "b"}
			if err := db.Create([]*ocAccount{&a, &b}).Error; err != nil {
				t.Fatal(err)
			}
			check := func(step string, wantCalls int) {
				t.Helper()
				tables, errs := log.take()
				if len(tables) != wantCalls {
					t.Errorf("%s: %d OnCollision calls, want %d", step, len(tables), wantCalls)
				}
				for i, table := range tables {
					if table != "oc_accounts" || !isUniqueViolation(errs[i]) {
						t.Errorf("%s: call %d with table %q, error %v", step, i+1, table, errs[i])
					}
				}
			}

			src.next(a.ID, b.ID)
			if err := db.Create(&ocAccount{Email: "c@example.com"}).Error; err != nil {
				t.Fatalf("two collisions, then a fresh key: %v", err)
			}
			check("two collisions", 2)

			err := db.Transaction(func(tx *gorm.DB) error {
				src.next(a.ID)
				return tx.Create(&ocAccount{Email: "d@example.com"}).Error
			})
			if err != nil {
				t.Fatalf("a collision in a caller's transaction: %v", err)
			}
			check("caller's transaction", 1)

			src.next(a.ID, a.ID, a.ID, a.ID)
			if err := db.Create(&ocAccount{Email: "e@example.com"}).Error; !errors.Is(err, gormtype.ErrKeyTaken) {
				t.Fatalf("every key taken: %v, want ErrKeyTaken", err)
			}
			check("every key taken", gormtype.DefaultRetries+1)

			src.next(a.ID)
			if err := off.Create(&ocAccount{Email: "f@example.com"}).Error; err == nil {
				t.Fatal("Retries < 0 with a taken key: no error")
			}
			check("Retries < 0", 0)

			if err := db.Create(&ocAccount{Email: "g@example.com"}).Error; err != nil {
				t.Fatal(err)
			}
			check("no collision", 0)
			if n := src.pending(); n != 0 {
				t.Errorf("%d forced keys never drawn", n)
			}
		})
	}
}
