package idtype

import (
	"bytes"
	"errors"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSCRU128Vectors(t *testing.T) {
	t.Parallel()
	for _, v := range scru128Vectors {
		id, err := ParseSCRU128(v.text)
		if err != nil {
			t.Fatalf("ParseSCRU128(%q): %v", v.text, err)
		}
		if id.Timestamp() != v.timestamp || id.Counter() != v.counter || id.PerSecRandom() != v.perSecRand || id.PerGenRandom() != v.perGen {
			t.Errorf("%s fields = %d %d %#x %#x; want %d %d %#x %#x", v.text,
				id.Timestamp(), id.Counter(), id.PerSecRandom(), id.PerGenRandom(),
				v.timestamp, v.counter, v.perSecRand, v.perGen)
		}
		if got := id.String(); got != v.text {
			t.Errorf("String() = %q, want %q", got, v.text)
		}
		if got := id.UUIDString(); got != v.uuid {
			t.Errorf("%s UUIDString() = %q, want %q", v.text, got, v.uuid)
		}
		for _, alt := range []string{strings.ToLower(v.text), v.uuid, strings.ToUpper(v.uuid)} {
			if got, err := ParseSCRU128(alt); err != nil || got != id {
				t.Errorf("ParseSCRU128(%q) = %v, %v; want %v", alt, got, err, id)
			}
		}
		built, err := SCRU128FromFields(v.timestamp, v.counter, v.perSecRand, v.perGen)
		if err != nil || built != id {
			t.Errorf("SCRU128FromFields(%s fields) = %v, %v", v.text, built, err)
		}
	}
}

func TestSCRU128SpecInteger(t *testing.T) {
	t.Parallel()
	n, _ := new(big.Int).SetString(scru128SpecInteger, 10)
	var id SCRU128
	n.FillBytes(id[:])
	if got := id.String(); got != "00QBTG0FERFTCCNFISUBO489DI" {
		t.Fatalf("%s encodes to %q, want 00QBTG0FERFTCCNFISUBO489DI", scru128SpecInteger, got)
	}
}

func TestSCRU128SpecExampleTime(t *testing.T) {
	t.Parallel()
	id := MustParseSCRU128("00QBTG0FERFTCCNFISUBO489DI")
	want := time.Date(2021, 10, 17, 11, 50, 39, 325_000_000, time.UTC)
	if !id.Time().Equal(want) {
		t.Fatalf("Time() = %v, want %v", id.Time(), want)
	}
}

func TestParseSCRU128Rejects(t *testing.T) {
	t.Parallel()
	for _, tc := range badSCRU128Text {
		if id, err := ParseSCRU128(tc.in); !errors.Is(err, ErrInvalidSCRU128) {
			t.Errorf("ParseSCRU128(%q) [%s] = %v, %v; want ErrInvalidSCRU128", tc.in, tc.why, id, err)
		}
	}
}

func TestParseSCRU128ErrorNamesInput(t *testing.T) {
	t.Parallel()
	_, err := ParseSCRU128("80000000000000000000000000")
	if err == nil || !strings.Contains(err.Error(), "80000000000000000000000000") || !strings.Contains(err.Error(), "7VVV") {
		t.Fatalf("error %q should quote the input and the rule", err)
	}
}

func TestSCRU128FromFieldsRejects(t *testing.T) {
	t.Parallel()
	cases := []struct {
		ts         uint64
		c, psr, pg uint32
	}{
		{1 << 44, 0, 0, 0},
		{0, 1 << 28, 0, 0},
		{0, 0, 1 << 24, 0},
	}
	for _, tc := range cases {
		if _, err := SCRU128FromFields(tc.ts, tc.c, tc.psr, tc.pg); !errors.Is(err, ErrInvalidSCRU128) {
			t.Errorf("SCRU128FromFields(%d, %d, %d, %d) error = %v", tc.ts, tc.c, tc.psr, tc.pg, err)
		}
	}
}

// TestSCRU128Orders checks that byte order, numeric order, uppercase text
// order, case-folded text order and Compare agree.
func TestSCRU128Orders(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	ids := []SCRU128{{}, MaxSCRU128}
	for range 2000 {
		var id SCRU128
		for i := range id {
			id[i] = byte(r.Uint32())
		}
		// Make shared prefixes common so that later digits decide.
		if r.IntN(2) == 0 {
			copy(id[:r.IntN(16)], ids[r.IntN(len(ids))][:])
		}
		ids = append(ids, id)
	}
	byBytes := slices.Clone(ids)
	slices.SortFunc(byBytes, func(a, b SCRU128) int { return bytes.Compare(a[:], b[:]) })
	sorts := map[string]func(a, b SCRU128) int{
		"Compare": SCRU128.Compare,
		"text":    func(a, b SCRU128) int { return strings.Compare(a.String(), b.String()) },
		"lowercase text": func(a, b SCRU128) int {
			return strings.Compare(strings.ToLower(a.String()), strings.ToLower(b.String()))
		},
		"UUID text": func(a, b SCRU128) int { return strings.Compare(a.UUIDString(), b.UUIDString()) },
		"number": func(a, b SCRU128) int {
			return new(big.Int).SetBytes(a[:]).Cmp(new(big.Int).SetBytes(b[:]))
		},
	}
	for name, cmp := range sorts {
		got := slices.Clone(ids)
		slices.SortFunc(got, cmp)
		if !slices.Equal(got, byBytes) {
			t.Errorf("order by %s differs from byte order", name)
		}
	}
}

func TestSCRU128ZeroAndMax(t *testing.T) {
	t.Parallel()
	if !(SCRU128{}).IsZero() || MaxSCRU128.IsZero() {
		t.Fatal("IsZero wrong")
	}
	if MaxSCRU128.String() != "7VVVVVVVVVVVVVVVVVVVVVVVVV" {
		t.Fatalf("MaxSCRU128 = %s", MaxSCRU128)
	}
}
