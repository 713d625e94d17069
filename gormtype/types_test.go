package gormtype_test

// Guarantee 8, the types: column types and storage forms on SQLite, the
// JSON and text forms, Scan and Value, queries by ID, Between and its
// typed forms, and the GORM sessions AutoID works in (DryRun, PrepareStmt,
// TranslateError).

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/sortid/sortid/gormtype"
	"github.com/sortid/sortid/idtype"
)

// nullCols has a nullable column of each type, none of them auto.
type nullCols struct {
	ID gormtype.HUID `gorm:"primaryKey"`
	H  gormtype.NullHUID
	S  gormtype.NullSCRU128
	B  gormtype.NullSCRU128Bytes
}

// TestColumnTypesSQLite: AutoMigrate makes HUIDs integer and SCRU128s
// blob, the nullable forms too, and a second AutoMigrate changes nothing.
func TestColumnTypesSQLite(t *testing.T) {
	t.Parallel()
	db := openDB(t, nil, gormtype.AutoID{}, &Author{}, &Book{}, &Tag{}, &nullCols{})
	want := map[string]map[string]string{
		"authors":   {"id": "integer", "ref": "blob"},
		"books":     {"id": "blob", "author_id": "integer", "parent": "blob"},
		"tags":      {"id": "blob"},
		"null_cols": {"id": "integer", "h": "integer", "s": "blob", "b": "blob"},
	}
	for round := range 2 {
		if round == 1 {
			if err := db.AutoMigrate(&Author{}, &Book{}, &Tag{}, &nullCols{}); err != nil {
				t.Fatalf("second AutoMigrate: %v", err)
			}
		}
		for table, cols := range want {
			types, err := db.Migrator().ColumnTypes(table)
			if err != nil {
				t.Fatalf("ColumnTypes(%s): %v", table, err)
			}
			seen := 0
			for _, ct := range types {
				if w, ok := cols[ct.Name()]; ok {
					seen++
					if !strings.EqualFold(ct.DatabaseTypeName(), w) {
						t.Errorf("round %d: %s.%s is %s, want %s", round, table, ct.Name(), ct.DatabaseTypeName(), w)
					}
					if inc, ok := ct.AutoIncrement(); ok && inc {
						t.Errorf("%s.%s is auto-increment", table, ct.Name())
					}
				}
			}
			if seen != len(cols) {
				t.Errorf("%s has %d of the columns %v", table, seen, cols)
			}
		}
	}
}

// TestStorageFormsSQLite: a HUID is stored as its integer, a SCRU128 and
// a SCRU128Bytes as their 16 bytes, and read back as they were.
func TestStorageFormsSQLite(t *testing.T) {
	t.Parallel()
	db := openDB(t, nil, gormtype.AutoID{}, &Author{}, &Book{}, &Tag{})
	a := Author{Name: "a", Books: []Book{{Title: "b"}}, Tags: []Tag{{Name: "t"}}}
	mustCreate(t, db, &a)
	for _, c := range []struct {
		query   string
		arg     any
		typ     string
		stored  string
		wantHex string
	}{
		{"SELECT typeof(id), quote(id) FROM authors WHERE id = ?", a.ID, "integer", a.ID.String(), ""},
		{"SELECT typeof(ref), hex(ref) FROM authors WHERE id = ?", a.ID, "blob", "", hex.EncodeToString(a.Ref[:])},
		{"SELECT typeof(id), hex(id) FROM books WHERE id = ?", a.Books[0].ID, "blob", "", hex.EncodeToString(a.Books[0].ID[:])},
		{"SELECT typeof(id), hex(id) FROM tags WHERE id = ?", a.Tags[0].ID, "blob", "", hex.EncodeToString(a.Tags[0].ID[:])},
	} {
		var got struct{ Typ, Val string }
		row := db.Raw(c.query, c.arg).Row()
		if err := row.Scan(&got.Typ, &got.Val); err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		want := c.stored
		if c.wantHex != "" {
			want = strings.ToUpper(c.wantHex)
		}
		if got.Typ != c.typ || got.Val != want {
			t.Errorf("%s: %s %s, want %s %s", c.query, got.Typ, got.Val, c.typ, want)
		}
	}
}

// TestJSONAndText: HUIDs are JSON strings of their decimal form (they
// exceed 2^53), SCRU128s strings of their 26 characters; decoding
// round-trips and rejects bad input.
func TestJSONAndText(t *testing.T) {
	t.Parallel()
	h := gormtype.HUID(idtype.MustParseHUID("9223372036854775807"))
	s := gormtype.SCRU128(idtype.MustParseSCRU128("00QBTG0FERFTCCNFISUBO489DI"))
	cases := []struct {
		name string
		v    any
		want string
	}{
		{"HUID", h, `"9223372036854775807"`},
		{"SCRU128", s, `"00QBTG0FERFTCCNFISUBO489DI"`},
		{"SCRU128Bytes", gormtype.SCRU128Bytes(s), `"00QBTG0FERFTCCNFISUBO489DI"`},
		{"NullHUID null", gormtype.NullHUID{}, `null`},
		{"NullSCRU128 null", gormtype.NullSCRU128{}, `null`},
		{"NullSCRU128Bytes null", gormtype.NullSCRU128Bytes{}, `null`},
		{"model", Book{ID: s, AuthorID: h}, `{"ID":"00QBTG0FERFTCCNFISUBO489DI","AuthorID":"9223372036854775807","Title":"","Parent":null}`},
	}
	for _, c := range cases {
		got, err := json.Marshal(c.v)
		if err != nil || string(got) != c.want {
			t.Errorf("%s: json.Marshal = %s, %v; want %s", c.name, got, err, c.want)
		}
	}
	var back Book
	if err := json.Unmarshal([]byte(cases[len(cases)-1].want), &back); err != nil || back.ID != s || back.AuthorID != h {
		t.Errorf("json.Unmarshal(model) = %+v, %v", back, err)
	}
	for _, bad := range []struct {
		data string
		into any
		want error
	}{
		{`"-1"`, new(gormtype.HUID), idtype.ErrInvalidHUID},
		{`"x"`, new(gormtype.HUID), idtype.ErrInvalidHUID},
		{`"00QBTG0FERFTCCNFISUBO489D"`, new(gormtype.SCRU128), idtype.ErrInvalidSCRU128},
		{`"00QBTG0FERFTCCNFISUBO489D!"`, new(gormtype.SCRU128Bytes), idtype.ErrInvalidSCRU128},
	} {
		if err := json.Unmarshal([]byte(bad.data), bad.into); !errors.Is(err, bad.want) {
			t.Errorf("Unmarshal(%s) into %T: %v, want %v", bad.data, bad.into, err, bad.want)
		}
	}
	for _, c := range []struct {
		v    interface{ MarshalText() ([]byte, error) }
		want string
	}{{h, "9223372036854775807"}, {s, "00QBTG0FERFTCCNFISUBO489DI"}, {gormtype.SCRU128Bytes(s), "00QBTG0FERFTCCNFISUBO489DI"}} {
		if txt, err := c.v.MarshalText(); err != nil || string(txt) != c.want {
			t.Errorf("%T.MarshalText = %s, %v; want %s", c.v, txt, err, c.want)
		}
	}
	var ht gormtype.HUID
	if err := ht.UnmarshalText([]byte("9223372036854775807")); err != nil || ht != h || h.String() != "9223372036854775807" {
		t.Errorf("HUID.UnmarshalText = %v, %v", ht, err)
	}
	var st gormtype.SCRU128
	if err := st.UnmarshalText([]byte("00QBTG0FERFTCCNFISUBO489DI")); err != nil || st != s || s.String() != "00QBTG0FERFTCCNFISUBO489DI" {
		t.Errorf("SCRU128.UnmarshalText = %v, %v", st, err)
	}
}

// TestScanAndValue: the forms database/sql gets and the forms Scan takes,
// and Scan's errors.
func TestScanAndValue(t *testing.T) {
	t.Parallel()
	h := gormtype.NewHUID()
	s := gormtype.NewSCRU128()
	if v, err := h.Value(); err != nil || v != int64(h) {
		t.Errorf("HUID.Value = %v, %v; want int64 %d", v, err, int64(h))
	}
	if v, err := s.Value(); err != nil || v != s.ID().UUIDString() {
		t.Errorf("SCRU128.Value = %v, %v; want the UUID text", v, err)
	}
	if v, err := gormtype.SCRU128Bytes(s).Value(); err != nil || !bytes.Equal(asBytes(v), s[:]) {
		t.Errorf("SCRU128Bytes.Value = %v, %v; want the 16 bytes", v, err)
	}
	for _, src := range []any{int64(h), h.String(), []byte(h.String())} {
		var got gormtype.HUID
		if err := got.Scan(src); err != nil || got != h {
			t.Errorf("HUID.Scan(%T %v) = %v, %v", src, src, got, err)
		}
	}
	for _, src := range []any{s[:], s.String(), s.ID().UUIDString()} {
		var got gormtype.SCRU128
		if err := got.Scan(src); err != nil || got != s {
			t.Errorf("SCRU128.Scan(%T %v) = %v, %v", src, src, got, err)
		}
	}
	var b gormtype.SCRU128Bytes
	if err := b.Scan(s[:]); err != nil || b != gormtype.SCRU128Bytes(s) {
		t.Errorf("SCRU128Bytes.Scan = %v, %v", b, err)
	}
	for _, bad := range []struct {
		into interface{ Scan(any) error }
		src  any
		want error
	}{
		{new(gormtype.HUID), int64(-1), idtype.ErrInvalidHUID},
		{new(gormtype.HUID), nil, idtype.ErrNull},
		{new(gormtype.SCRU128), nil, idtype.ErrNull},
		{new(gormtype.SCRU128), s[:15], idtype.ErrInvalidSCRU128},
		{new(gormtype.HUID), 1.5, idtype.ErrUnsupportedType},
	} {
		if err := bad.into.Scan(bad.src); !errors.Is(err, bad.want) {
			t.Errorf("%T.Scan(%v): %v, want %v", bad.into, bad.src, err, bad.want)
		}
	}
	if s.IsZero() || h.IsZero() || !(gormtype.HUID(0)).IsZero() || !(gormtype.SCRU128{}).IsZero() || !(gormtype.SCRU128Bytes{}).IsZero() {
		t.Errorf("IsZero is wrong")
	}
	if d := time.Since(h.Time()); d < 0 || d > time.Minute || time.Since(s.Time()) > time.Minute {
		t.Errorf("Time of new IDs: %v, %v", h.Time(), s.Time())
	}
}

// TestQueryByID: rows are found by a slice of keys, by one key, by a
// struct condition and by IN.
func TestQueryByID(t *testing.T) {
	t.Parallel()
	db := openSQLite(t, gormtype.AutoID{})
	a := Author{Name: "a", Books: []Book{{Title: "b1"}, {Title: "b2"}, {Title: "b3"}}}
	mustCreate(t, db, &a)
	var books []Book
	if err := db.Find(&books, []gormtype.SCRU128{a.Books[1].ID, a.Books[2].ID}).Error; err != nil || len(books) != 2 {
		t.Errorf("Find by SCRU128 keys = %+v, %v; want 2", books, err)
	}
	var one Book
	if err := db.First(&one, "id = ?", a.Books[0].ID).Error; err != nil || one.ID != a.Books[0].ID {
		t.Errorf("First by one SCRU128 = %+v, %v", one, err)
	}
	one = Book{}
	if err := db.Where(&Book{ID: a.Books[2].ID}).First(&one).Error; err != nil || one.Title != "b3" {
		t.Errorf("First by a struct condition = %+v, %v", one, err)
	}
	var n int64
	if err := db.Model(&Book{}).Where("author_id IN ?", []gormtype.HUID{a.ID, gormtype.NewHUID()}).Count(&n).Error; err != nil || n != 3 {
		t.Errorf("Count by HUIDs IN = %d, %v; want 3", n, err)
	}
	var got Author
	if err := db.First(&got, a.ID).Error; err != nil || got.ID != a.ID {
		t.Errorf("First(&row, huid) = %+v, %v", got, err)
	}
}

// windowed has ID fields of every type under Go names that differ from
// their columns, one of them a pointer.
type windowed struct {
	ID      gormtype.HUID         `gorm:"primaryKey"`
	TraceID gormtype.SCRU128      `sortid:"auto"`
	Blob    gormtype.SCRU128Bytes `sortid:"auto"`
	Parent  *gormtype.SCRU128     `sortid:"auto"`
	Opt     gormtype.NullHUID     `sortid:"auto"`
	Name    string
}

// seedWindow stores a row made an hour ago and then two new ones, and
// returns the two and a window around them.
func seedWindow(t *testing.T, db *gorm.DB) (fresh []windowed, from, to time.Time) {
	t.Helper()
	past := time.Now().Add(-time.Hour)
	oldS := gormtype.SCRU128(must(idtype.GenerateSCRU128At(past)))
	oldH := gormtype.HUID(must(idtype.HUIDFromParts(past, 7)))
	old := windowed{ID: oldH, TraceID: oldS, Blob: gormtype.SCRU128Bytes(oldS), Parent: &oldS, Opt: nullHUID(oldH), Name: "old"}
	mustCreate(t, db, &old)
	from = time.Now().Truncate(time.Millisecond)
	fresh = []windowed{{Name: "n1"}, {Name: "n2"}}
	mustCreate(t, db, &fresh)
	return fresh, from, time.Now().Add(time.Millisecond)
}

// TestBetween: the rows made in a window, by every ID column of the model
// named by its column, Go or qualified name; an unknown column and a bad
// window are the query's error.
func TestBetween(t *testing.T) {
	t.Parallel()
	db := openDB(t, nil, gormtype.AutoID{}, &windowed{})
	fresh, from, to := seedWindow(t, db)
	for _, col := range []string{"id", "ID", "windoweds.id", "TraceID", "trace_id", "windoweds.trace_id", "Blob", "parent", "Opt"} {
		var got []windowed
		if err := db.Scopes(gormtype.Between(col, from, to)).Order("name").Find(&got).Error; err != nil {
			t.Errorf("Between(%q): %v", col, err)
			continue
		}
		if len(got) != 2 || got[0].ID != fresh[0].ID || got[1].ID != fresh[1].ID {
			t.Errorf("Between(%q) = %+v; want the 2 new rows", col, got)
		}
	}
	var got []windowed
	checkRefused(t, db.Scopes(gormtype.Between("name", from, to)).Find(&got).Error, gormtype.ErrUnknownColumn, "name", "windowed")
	checkRefused(t, db.Scopes(gormtype.Between("nope", from, to)).Find(&got).Error, gormtype.ErrUnknownColumn, "nope")
	if err := db.Scopes(gormtype.Between("id", to, from)).Find(&got).Error; !errors.Is(err, idtype.ErrInvalidRange) {
		t.Errorf("Between with to < from: %v, want ErrInvalidRange", err)
	}
}

// TestBetweenWithoutModel: Between needs the model to pick the bounds;
// without one it is ErrUnknownColumn naming the ways out, and the typed
// forms work on a table named by db.Table.
func TestBetweenWithoutModel(t *testing.T) {
	t.Parallel()
	db := openDB(t, nil, gormtype.AutoID{}, &windowed{})
	_, from, to := seedWindow(t, db)
	var rows []map[string]any
	err := db.Table("windoweds").Scopes(gormtype.Between("id", from, to)).Find(&rows).Error
	checkRefused(t, err, gormtype.ErrUnknownColumn, "id", "db.Model", "BetweenHUID")
	for _, c := range []struct {
		name  string
		scope func(string, time.Time, time.Time) func(*gorm.DB) *gorm.DB
		col   string
	}{
		{"BetweenHUID", gormtype.BetweenHUID, "id"},
		{"BetweenHUID on a NullHUID", gormtype.BetweenHUID, "opt"},
		{"BetweenSCRU128", gormtype.BetweenSCRU128, "trace_id"},
		{"BetweenSCRU128 on a pointer", gormtype.BetweenSCRU128, "parent"},
		{"BetweenSCRU128Bytes", gormtype.BetweenSCRU128Bytes, "blob"},
	} {
		var names []string
		if err := db.Table("windoweds").Scopes(c.scope(c.col, from, to)).Order("name").Pluck("name", &names).Error; err != nil {
			t.Errorf("%s(%q): %v", c.name, c.col, err)
		} else if strings.Join(names, ",") != "n1,n2" {
			t.Errorf("%s(%q) found %v, want [n1 n2]", c.name, c.col, names)
		}
	}
}

// TestDryRunFillsNothing: a DryRun Create builds its INSERT but draws no
// ID, fills no field and writes nothing.
func TestDryRunFillsNothing(t *testing.T) {
	t.Parallel()
	src := &keySource{}
	db := openDB(t, nil, src.plugin(0), &Account{}, &Inv{})
	src.next()
	a := Account{Email: "a@x"}
	inv := Inv{Total: 1}
	dry := db.Session(&gorm.Session{DryRun: true})
	stmts := []*gorm.Statement{dry.Create(&a).Statement, dry.Create(&inv).Statement}
	for _, stmt := range stmts {
		if !strings.Contains(stmt.SQL.String(), "INSERT INTO") {
			t.Errorf("DryRun built %q; want an INSERT", stmt.SQL.String())
		}
	}
	if h, s := src.draws(); h+s != 0 || !a.ID.IsZero() || !inv.ID.IsZero() || !inv.Trace.IsZero() {
		t.Errorf("DryRun drew %d IDs, filled %+v and %+v; want nothing", h+s, a, inv)
	}
	checkCount(t, db, 0, "accounts", "1 = 1")
	checkCount(t, db, 0, "invs", "1 = 1")
}

// TestPrepareStmtSessions: with prepared statements a collision is
// retried by Transaction, alone and inside the caller's transaction, for
// a row and a batch.
func TestPrepareStmtSessions(t *testing.T) {
	t.Parallel()
	for _, session := range []string{"Config.PrepareStmt", "Session.PrepareStmt"} {
		t.Run(session, func(t *testing.T) {
			t.Parallel()
			src := &keySource{}
			db := openDB(t, &gorm.Config{PrepareStmt: session == "Config.PrepareStmt"}, src.plugin(0), &Account{})
			if session == "Session.PrepareStmt" {
				db = db.Session(&gorm.Session{PrepareStmt: true})
			}
			taken := seedAccount(t, db, "taken@x")
			for i, w := range []func(func(*gorm.DB) error) error{
				func(f func(*gorm.DB) error) error { return f(db) },
				func(f func(*gorm.DB) error) error { return db.Transaction(f) },
			} {
				one := Account{Email: string(rune('a'+i)) + "1@x"}
				batch := []Account{{Email: string(rune('a'+i)) + "2@x"}, {Email: string(rune('a'+i)) + "3@x"}}
				err := w(func(tx *gorm.DB) error {
					src.next(taken.ID)
					if err := retried(tx, func(tx *gorm.DB) error { return tx.Create(&one).Error }); err != nil {
						return err
					}
					src.checkDrawn(t, "accounts", 1)
					src.next(taken.ID)
					return retried(tx, func(tx *gorm.DB) error { return tx.Create(&batch).Error })
				})
				if err != nil {
					t.Fatalf("case %d: %v", i, err)
				}
				src.checkDrawn(t, "accounts", 1)
				for _, a := range append(batch, one) {
					checkFresh(t, db, a, taken)
				}
			}
			checkAccount(t, db, taken)
			checkCount(t, db, 7, "accounts", "1 = 1")
		})
	}
}

// TestTranslateError: with gorm.Config.TranslateError a taken fresh key
// is still ErrKeyTaken, retried by Transaction; another key's violation
// comes back translated, as GORM does, without a retry.
func TestTranslateError(t *testing.T) {
	t.Parallel()
	src := &keySource{}
	db := openDB(t, &gorm.Config{TranslateError: true}, src.plugin(1), &Account{})
	taken := seedAccount(t, db, "taken@x")

	src.next(taken.ID)
	a := Account{Email: "new@x"}
	if err := retried(db, func(tx *gorm.DB) error { return tx.Create(&a).Error }); err != nil {
		t.Fatalf("Create with a taken key: %v", err)
	}
	src.checkDrawn(t, "accounts", 1)
	checkFresh(t, db, a, taken)

	src.next(taken.ID, taken.ID)
	err := retried(db, func(tx *gorm.DB) error { return tx.Create(&Account{Email: "every@x"}).Error })
	checkRefused(t, err, gormtype.ErrKeyTaken, "accounts")
	if !errors.Is(err, gorm.ErrDuplicatedKey) {
		t.Errorf("%v does not wrap gorm.ErrDuplicatedKey", err)
	}
	src.checkDrawn(t, "accounts", 2)

	src.next()
	err = db.Create(&Account{Email: "taken@x"}).Error
	if !errors.Is(err, gorm.ErrDuplicatedKey) || errors.Is(err, gormtype.ErrKeyTaken) {
		t.Errorf("Create with a taken email: %v; want gorm.ErrDuplicatedKey, not ErrKeyTaken", err)
	}
	if h, _ := src.draws(); h != 1 || len(src.calls()) != 0 {
		t.Errorf("%d draws, %d collisions; want 1 and none", h, len(src.calls()))
	}
	checkAccount(t, db, taken)
	checkCount(t, db, 2, "accounts", "1 = 1")
}

// TestNullTypesStoreNULL: a Null field that is not Valid is stored as
// NULL and read back not Valid, with the plugin and without it.
func TestNullTypesStoreNULL(t *testing.T) {
	t.Parallel()
	for name, plugin := range map[string]gorm.Plugin{"AutoID": gormtype.AutoID{}, "no plugin": nil} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			db := openDB(t, nil, plugin, &nullCols{})
			row := nullCols{ID: gormtype.NewHUID()}
			mustCreate(t, db, &row)
			checkCount(t, db, 1, "null_cols", "id = ? AND h IS NULL AND s IS NULL AND b IS NULL", row.ID)
			var back nullCols
			if err := db.First(&back, "id = ?", row.ID).Error; err != nil || back != row || back.H.Valid || back.S.Valid || back.B.Valid {
				t.Errorf("loaded %+v, %v; want %+v", back, err, row)
			}
		})
	}
}

// TestNoPgxInBuild: a MySQL or SQLite user of gormtype does not build pgx.
func TestNoPgxInBuild(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "github.com/jackc/") {
			t.Errorf("gormtype builds %s", pkg)
		}
	}
}

func asBytes(v any) []byte {
	b, _ := v.([]byte)
	return b
}

// TestBetweenFromTheHUIDEpoch: a window from 2026-01-01T00:00:00Z has the
// HUID 0 as its lower bound, which binds although a zero gormtype.HUID is
// never stored.
func TestBetweenFromTheHUIDEpoch(t *testing.T) {
	t.Parallel()
	db := openDB(t, nil, gormtype.AutoID{}, &windowed{})
	mustCreate(t, db, &windowed{Name: "now"})
	epoch := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, scope := range []func(*gorm.DB) *gorm.DB{
		gormtype.Between("id", epoch, time.Now().Add(time.Second)),
		gormtype.BetweenHUID("id", epoch, time.Now().Add(time.Second)),
	} {
		var got []windowed
		if err := db.Scopes(scope).Find(&got).Error; err != nil || len(got) != 1 {
			t.Errorf("window from the epoch = %d rows, %v; want the one row", len(got), err)
		}
	}
}
