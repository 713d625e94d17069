package gormtype_test

// Guarantee 9 (NEW API): the nullable types are one generic Null[T] with
// the fields V and Valid; NullHUID, NullSCRU128 and NullSCRU128Bytes are
// its aliases. A Null is NULL/null when not Valid, else its V; as a key
// or an auto field AutoID fills it Valid; as a foreign key GORM sets it.

import (
	"database/sql/driver"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/sortid/sortid/gormtype"
	"github.com/sortid/sortid/idtype"
)

// The aliases are the generic type.
var (
	_ gormtype.Null[gormtype.HUID]         = gormtype.NullHUID{}
	_ gormtype.Null[gormtype.SCRU128]      = gormtype.NullSCRU128{}
	_ gormtype.Null[gormtype.SCRU128Bytes] = gormtype.NullSCRU128Bytes{}
)

// TestNullIsGeneric: the aliases are the same types as Null[T].
func TestNullIsGeneric(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ alias, generic reflect.Type }{
		{reflect.TypeFor[gormtype.NullHUID](), reflect.TypeFor[gormtype.Null[gormtype.HUID]]()},
		{reflect.TypeFor[gormtype.NullSCRU128](), reflect.TypeFor[gormtype.Null[gormtype.SCRU128]]()},
		{reflect.TypeFor[gormtype.NullSCRU128Bytes](), reflect.TypeFor[gormtype.Null[gormtype.SCRU128Bytes]]()},
	} {
		if c.alias != c.generic {
			t.Errorf("%v is not %v", c.alias, c.generic)
		}
		if f, ok := c.alias.FieldByName("V"); !ok || c.alias.NumField() != 2 || f.Index[0] != 0 {
			t.Errorf("%v's fields are not V, Valid", c.alias)
		}
	}
}

// TestNullJSONScanValue: the forms of a Valid Null are those of its V;
// of a Null that is not Valid, null and NULL.
func TestNullJSONScanValue(t *testing.T) {
	t.Parallel()
	h := gormtype.HUID(idtype.MustParseHUID("9223372036854775807"))
	s := gormtype.SCRU128(idtype.MustParseSCRU128("00QBTG0FERFTCCNFISUBO489DI"))
	nh := gormtype.NullHUID{V: h, Valid: true}
	ns := gormtype.NullSCRU128{V: s, Valid: true}
	nb := gormtype.NullSCRU128Bytes{V: gormtype.SCRU128Bytes(s), Valid: true}
	for _, c := range []struct {
		v    any
		json string
	}{
		{nh, `"9223372036854775807"`},
		{ns, `"00QBTG0FERFTCCNFISUBO489DI"`},
		{nb, `"00QBTG0FERFTCCNFISUBO489DI"`},
		{gormtype.NullHUID{V: h}, `null`},
		{gormtype.NullSCRU128{}, `null`},
	} {
		if got, err := json.Marshal(c.v); err != nil || string(got) != c.json {
			t.Errorf("json.Marshal(%+v) = %s, %v; want %s", c.v, got, err, c.json)
		}
	}
	var back gormtype.NullHUID
	if err := json.Unmarshal([]byte(`"9223372036854775807"`), &back); err != nil || back != nh {
		t.Errorf("Unmarshal = %+v, %v; want %+v", back, err, nh)
	}
	if err := json.Unmarshal([]byte(`null`), &back); err != nil || back.Valid {
		t.Errorf("Unmarshal(null) = %+v, %v", back, err)
	}
	if err := json.Unmarshal([]byte(`"-1"`), &back); !errors.Is(err, idtype.ErrInvalidHUID) {
		t.Errorf("Unmarshal(-1): %v, want ErrInvalidHUID", err)
	}

	if v, err := nh.Value(); err != nil || v != int64(h) {
		t.Errorf("NullHUID.Value = %v, %v", v, err)
	}
	if v, err := nb.Value(); err != nil || string(asBytes(v)) != string(s[:]) {
		t.Errorf("NullSCRU128Bytes.Value = %v, %v", v, err)
	}
	for _, n := range []driver.Valuer{gormtype.NullHUID{}, gormtype.NullSCRU128{}, gormtype.NullSCRU128Bytes{}} {
		if v, err := n.Value(); v != nil || err != nil {
			t.Errorf("Value of a NULL %T = %v, %v; want nil", n, v, err)
		}
	}
	var sh gormtype.NullHUID
	if err := sh.Scan(int64(h)); err != nil || sh != nh {
		t.Errorf("NullHUID.Scan = %+v, %v", sh, err)
	}
	if err := sh.Scan(nil); err != nil || sh.Valid {
		t.Errorf("NullHUID.Scan(nil) = %+v, %v", sh, err)
	}
	var ss gormtype.NullSCRU128
	if err := ss.Scan(s[:]); err != nil || ss != ns {
		t.Errorf("NullSCRU128.Scan = %+v, %v", ss, err)
	}
	var sb gormtype.NullSCRU128Bytes
	if err := sb.Scan(s[:]); err != nil || sb != nb {
		t.Errorf("NullSCRU128Bytes.Scan = %+v, %v", sb, err)
	}
}

// nullKeyed has a Null key and a Null auto field.
type nullKeyed struct {
	ID   gormtype.NullHUID          `gorm:"primaryKey"`
	Ref  gormtype.NullSCRU128       `sortid:"auto"`
	Blob gormtype.NullSCRU128Bytes  `sortid:"auto"`
	Opt  gormtype.NullSCRU128       // untagged: stays NULL
	Ptr  *gormtype.NullSCRU128Bytes `sortid:"auto"`
}

// TestNullAutoFields: AutoID fills Null keys and auto fields Valid, a nil
// pointer to a Null included; a taken Null key is retried.
func TestNullAutoFields(t *testing.T) {
	t.Parallel()
	src := &keySource{}
	db := openDB(t, nil, src.plugin(0), &nullKeyed{})
	other := nullKeyed{}
	mustCreate(t, db, &other)
	if !other.ID.Valid || other.ID.V.IsZero() || !other.Ref.Valid || other.Ref.V.IsZero() || !other.Blob.Valid ||
		other.Ptr == nil || !other.Ptr.Valid || other.Ptr.V.IsZero() || other.Opt.Valid {
		t.Fatalf("filled %+v", other)
	}
	src.next(other.ID.V)
	mine := nullKeyed{}
	mustCreate(t, db, &mine)
	src.checkDrawn(t, "null_keyeds", 1)
	if mine.ID == other.ID || !mine.ID.Valid {
		t.Errorf("key %+v after the collision with %+v", mine.ID, other.ID)
	}
	for _, r := range []nullKeyed{other, mine} {
		var back nullKeyed
		if err := db.First(&back, "id = ?", r.ID.V).Error; err != nil || back.ID != r.ID || back.Ref != r.Ref ||
			back.Blob != r.Blob || back.Ptr == nil || *back.Ptr != *r.Ptr || back.Opt.Valid {
			t.Errorf("stored %+v, %v; want %+v", back, err, r)
		}
	}
}

// TestNullForeignKeyAndBetween: GORM sets a NullHUID foreign key from the
// belongs-to record, and Between selects by a Null column.
func TestNullForeignKeyAndBetween(t *testing.T) {
	t.Parallel()
	db := openDB(t, nil, gormtype.AutoID{}, append(purchaseModels, &nullCols{})...)
	p := Purchase{Name: "p", Buyer: &Account{Email: "b@x"}}
	mustCreate(t, db, &p)
	if !p.BuyerID.Valid || p.BuyerID.V != p.Buyer.ID {
		t.Errorf("BuyerID %+v, want the buyer's key %s", p.BuyerID, p.Buyer.ID)
	}
	past := time.Now().Add(-time.Hour)
	old := nullCols{ID: gormtype.NewHUID(), H: gormtype.NullHUID{V: gormtype.HUID(must(idtype.HUIDFromParts(past, 1))), Valid: true}}
	mustCreate(t, db, &old)
	from := time.Now().Truncate(time.Millisecond)
	s := gormtype.NewSCRU128()
	in := nullCols{ID: gormtype.NewHUID(), H: gormtype.NullHUID{V: gormtype.NewHUID(), Valid: true},
		S: gormtype.NullSCRU128{V: s, Valid: true}, B: gormtype.NullSCRU128Bytes{V: gormtype.SCRU128Bytes(s), Valid: true}}
	mustCreate(t, db, &in)
	to := time.Now().Add(time.Millisecond)
	for _, col := range []string{"h", "s", "b"} {
		var got []nullCols
		if err := db.Scopes(gormtype.Between(col, from, to)).Find(&got).Error; err != nil || len(got) != 1 || got[0] != in {
			t.Errorf("Between(%q) = %+v, %v; want %+v", col, got, err, in)
		}
	}
}

// TestNullKeepsItsValueOnError: a Scan or UnmarshalJSON that fails leaves
// the Null as it was, as idtype.Null does, for every V type.
func TestNullKeepsItsValueOnError(t *testing.T) {
	t.Parallel()
	s := idtype.MustParseSCRU128("00QBTG0FERFTCCNFISUBO489DI")
	for _, c := range []struct {
		name string
		n    interface {
			Scan(any) error
			UnmarshalJSON([]byte) error
		}
	}{
		{"NullHUID", &gormtype.NullHUID{V: gormtype.HUID(258037077), Valid: true}},
		{"NullSCRU128", &gormtype.NullSCRU128{V: gormtype.SCRU128(s), Valid: true}},
		{"NullSCRU128Bytes", &gormtype.NullSCRU128Bytes{V: gormtype.SCRU128Bytes(s), Valid: true}},
	} {
		before := reflect.ValueOf(c.n).Elem().Interface()
		for name, decode := range map[string]func() error{
			"Scan":          func() error { return c.n.Scan("bad") },
			"UnmarshalJSON": func() error { return c.n.UnmarshalJSON([]byte(`"bad"`)) },
		} {
			if err := decode(); err == nil {
				t.Errorf("%s.%s of bad input: no error", c.name, name)
			}
			if after := reflect.ValueOf(c.n).Elem().Interface(); after != before {
				t.Errorf("%s.%s failed and changed %+v to %+v", c.name, name, before, after)
			}
		}
	}
}
