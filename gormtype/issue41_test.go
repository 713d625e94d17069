package gormtype_test

// Issue 41: one Between scope on many goroutines; one Null contract with
// idtype; a Create naming the field AutoID leaves zero; Transaction in a
// hook with another context.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/sortid/sortid/gormtype"
	"github.com/sortid/sortid/idtype"
)

// TestBetweenScopeSharedByGoroutines: one scope value of Between and of
// BetweenHUID serves queries on several goroutines at once (run with
// -race), each query getting the rows of the window.
func TestBetweenScopeSharedByGoroutines(t *testing.T) {
	t.Parallel()
	db := openDB(t, nil, gormtype.AutoID{}, &Inv{})
	from := time.Now().Add(-time.Second)
	for range 3 {
		mustCreate(t, db, &Inv{Total: 1})
	}
	to := time.Now().Add(time.Second)
	for _, scope := range []func(*gorm.DB) *gorm.DB{gormtype.Between("invs.id", from, to), gormtype.BetweenHUID("id", from, to), gormtype.Between("nope", from, to)} {
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				var rows []Inv
				err := db.Model(&Inv{}).Scopes(scope).Find(&rows).Error
				if (err == nil) != (len(rows) == 3) {
					t.Errorf("Find: %d rows, %v; want 3 rows or ErrUnknownColumn", len(rows), err)
				}
			})
		}
		wg.Wait()
	}
}

// TestNullFollowsIdtypeNull: gormtype's Null scans and unmarshals as
// idtype's Null does, NULL, a valid zero ID and errors included; AutoID
// fills a Null auto field that is NULL whatever its V.
func TestNullFollowsIdtypeNull(t *testing.T) {
	t.Parallel()
	for _, src := range []any{nil, int64(5), int64(0), "5", []byte("7"), int64(-1), "x", idtype.HUID(9),
		idtype.NullHUID{V: 3}, idtype.NullHUID{V: 4, Valid: true}, (*idtype.HUID)(nil), 1.5} {
		var g gormtype.NullHUID
		var i idtype.NullHUID
		gerr, ierr := g.Scan(src), i.Scan(src)
		if int64(g.V) != int64(i.V) || g.Valid != i.Valid || (gerr == nil) != (ierr == nil) {
			t.Errorf("Scan(%#v): gormtype %+v, %v; idtype %+v, %v", src, g, gerr, i, ierr)
		}
	}
	for _, data := range []string{`null`, `"5"`, `"0"`, `"-1"`, `5`, `" null"`} {
		var g gormtype.NullSCRU128
		var i idtype.NullSCRU128
		if data == `"5"` || data == `"0"` {
			data = `"` + strings.Repeat("0", 25) + data[1:]
		}
		gerr, ierr := json.Unmarshal([]byte(data), &g), json.Unmarshal([]byte(data), &i)
		if g.V != gormtype.SCRU128(i.V) || g.Valid != i.Valid || (gerr == nil) != (ierr == nil) {
			t.Errorf("Unmarshal(%s): gormtype %+v, %v; idtype %+v, %v", data, g, gerr, i, ierr)
		}
	}
	db := openDB(t, nil, gormtype.AutoID{}, &nullKeyed{})
	row := nullKeyed{Ref: gormtype.NullSCRU128{V: gormtype.NewSCRU128()}} // NULL: V is ignored
	stale := row.Ref.V
	mustCreate(t, db, &row)
	if !row.Ref.Valid || row.Ref.V == stale || row.Ref.V.IsZero() {
		t.Errorf("Ref %+v after Create; want a fresh valid ID, not %v", row.Ref, stale)
	}
}

// plainRef has an untagged SCRU128 column: AutoID does not fill it.
type plainRef struct {
	ID    gormtype.HUID `gorm:"primaryKey"`
	Trace gormtype.SCRU128
}

// TestCreateNamesTheUnsetField: with AutoID registered, a Create leaving
// an untagged ID field zero (as after AutoMigrate dropped its DEFAULT)
// fails with ErrZeroID naming the field, the sortid:"auto" tag and the
// model's default tag, not registering AutoID; nothing is stored. A Create
// omitting the column writes no zero and runs.
func TestCreateNamesTheUnsetField(t *testing.T) {
	t.Parallel()
	db := openDB(t, nil, gormtype.AutoID{}, &plainRef{})
	err := db.Create(&plainRef{}).Error
	checkRefused(t, err, gormtype.ErrZeroID, "plainRef.Trace", `sortid:"auto"`, `gorm:"default:`, "AutoMigrate")
	if err != nil && strings.Contains(err.Error(), "db.Use") {
		t.Errorf("%v tells to register AutoID, which is registered", err)
	}
	checkCount(t, db, 0, "plain_refs", "1 = 1")
	if err := db.Omit("trace").Create(&plainRef{}).Error; err != nil {
		t.Errorf("Create omitting trace, which writes no zero: %v", err)
	}
}

// hookTx writes an audit row through gormtype.Transaction in AfterCreate,
// with a context of its own.
type hookTx struct {
	ID   gormtype.HUID `gorm:"primaryKey"`
	Name string
}

type hookCtx struct{}

func (h *hookTx) AfterCreate(tx *gorm.DB) error {
	ctx := context.WithValue(tx.Statement.Context, hookCtx{}, h.Name)
	return gormtype.Transaction(ctx, tx, func(tx *gorm.DB) error {
		if tx.Statement.Context.Value(hookCtx{}) != h.Name {
			return fmt.Errorf("fn's tx has not the context given")
		}
		return tx.Create(&auditRow{Note: "created " + h.Name}).Error
	})
}

// TestTransactionInAHook: Transaction called in a hook with another
// context than the hook's writes fn's rows, not the hooked row again, and
// retries a taken key of theirs.
func TestTransactionInAHook(t *testing.T) {
	t.Parallel()
	src := &keySource{}
	db := openDB(t, nil, src.plugin(0), &hookTx{}, &auditRow{})
	mustCreate(t, db, &hookTx{Name: "a"})
	var first auditRow
	if err := db.First(&first).Error; err != nil {
		t.Fatal(err)
	}
	src.next(0, first.ID) // the hooked row's key, then a taken audit key
	if err := db.Create(&hookTx{Name: "b"}).Error; err != nil {
		t.Fatalf("Create: %v", err)
	}
	checkCount(t, db, 2, "hook_txes", "1 = 1")
	checkCount(t, db, 2, "audit_rows", "1 = 1")
	checkCount(t, db, 1, "audit_rows", "note = 'created b'")
}

// TestConditionsSharedByGoroutines: one query value with an inline
// SCRU128Bytes key in Not, and one with a zero ID in a map condition, serve
// queries on several goroutines at once (run with -race): AutoID binds and
// refuses in copies, so each query gets the rows but the key's, or
// ErrZeroID.
func TestConditionsSharedByGoroutines(t *testing.T) {
	t.Parallel()
	db := openDB(t, nil, gormtype.AutoID{}, &Tag{})
	tags := []Tag{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	mustCreate(t, db, &tags)
	not := db.Model(&Tag{}).Not(tags[0].ID)
	zero := db.Model(&Tag{}).Where(map[string]any{"id": gormtype.SCRU128Bytes{}})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			var rows []Tag
			if err := not.Session(&gorm.Session{}).Find(&rows).Error; err != nil || len(rows) != 2 {
				t.Errorf("Not(key).Find: %d rows, %v; want 2", len(rows), err)
			}
			if err := zero.Session(&gorm.Session{}).Find(&rows).Error; !errors.Is(err, gormtype.ErrZeroID) || !strings.Contains(err.Error(), "gormtype.SCRU128Bytes") {
				t.Errorf("Where(map{id: zero}).Find: %v; want ErrZeroID naming its type", err)
			}
		})
	}
	wg.Wait()
}
