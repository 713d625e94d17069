package idtype

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"
)

func TestHUIDRangeSelectsExactlyTheWindow(t *testing.T) {
	t.Parallel()
	from := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	to := from.Add(5 * time.Minute)
	lo, hi, err := HUIDRange(from, to)
	if err != nil {
		t.Fatal(err)
	}
	inside := func(h HUID) bool { return h >= lo && h <= hi }
	mk := func(t0 time.Time, r uint32) HUID { h, _ := HUIDFromParts(t0, r); return h }
	checks := []struct {
		h    HUID
		want bool
	}{
		{mk(from, 0), true},
		{mk(from, HUIDMaxRandom), true},
		{mk(to.Add(-time.Millisecond), HUIDMaxRandom), true},
		{mk(to.Add(-time.Millisecond), 0), true},
		{mk(to, 0), false},
		{mk(from.Add(-time.Millisecond), HUIDMaxRandom), false},
	}
	for _, c := range checks {
		if inside(c.h) != c.want {
			t.Errorf("HUID at %v random %d: inside = %v, want %v", c.h.Time(), c.h.Random(), !c.want, c.want)
		}
	}
	if lo.Time() != from || hi.Time() != to.Add(-time.Millisecond) || lo.Random() != 0 || hi.Random() != HUIDMaxRandom {
		t.Errorf("lo %v/%d hi %v/%d", lo.Time(), lo.Random(), hi.Time(), hi.Random())
	}
}

// TestRangesAgreeWithTimes checks against random times that an ID lies in
// [lo, hi] exactly when its millisecond overlaps [from, to).
func TestRangesAgreeWithTimes(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	base := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	for range 5000 {
		from := base.Add(time.Duration(r.Int64N(int64(10 * time.Second))))
		to := from.Add(time.Duration(r.Int64N(int64(20*time.Millisecond))) + time.Nanosecond)
		at := base.Add(time.Duration(r.Int64N(int64(11 * time.Second)))).Truncate(time.Millisecond)
		want := at.Add(time.Millisecond).After(from) && at.Before(to)

		hlo, hhi, err := HUIDRange(from, to)
		if err != nil {
			t.Fatal(err)
		}
		h, _ := HUIDFromParts(at, r.Uint32N(HUIDMaxRandom+1))
		if got := h >= hlo && h <= hhi; got != want {
			t.Fatalf("HUID at %v in HUIDRange(%v, %v) = %v, want %v", at, from, to, got, want)
		}

		slo, shi, err := SCRU128Range(from, to)
		if err != nil {
			t.Fatal(err)
		}
		id, _ := SCRU128FromFields(uint64(at.UnixMilli()-SCRU128EpochMillis), r.Uint32N(1<<28), r.Uint32N(1<<24), r.Uint32())
		if got := id.Compare(slo) >= 0 && id.Compare(shi) <= 0; got != want {
			t.Fatalf("SCRU128 at %v in SCRU128Range(%v, %v) = %v, want %v", at, from, to, got, want)
		}
	}
}

func TestRangeRejects(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	hEpoch := time.UnixMilli(HUIDEpochMillis)
	hEnd := time.UnixMilli(HUIDEpochMillis + HUIDMaxTimestamp + 1)
	sEpoch := time.UnixMilli(SCRU128EpochMillis)
	sEnd := time.UnixMilli(SCRU128EpochMillis + SCRU128MaxTimestamp + 1)
	cases := []struct {
		name     string
		from, to time.Time
		huid     error
		scru     error
	}{
		{"from == to", at, at, ErrInvalidRange, ErrInvalidRange},
		{"from > to", at, at.Add(-time.Hour), ErrInvalidRange, ErrInvalidRange},
		{"before HUID epoch", hEpoch.Add(-time.Millisecond), hEpoch.Add(time.Hour), ErrTimeOutOfRange, nil},
		{"after HUID end", hEnd.Add(-time.Hour), hEnd.Add(time.Millisecond), ErrTimeOutOfRange, nil},
		{"before SCRU128 epoch", sEpoch.Add(-time.Millisecond), sEpoch.Add(time.Hour), ErrTimeOutOfRange, ErrTimeOutOfRange},
		{"after SCRU128 end", sEnd.Add(-time.Hour), sEnd.Add(time.Millisecond), ErrTimeOutOfRange, ErrTimeOutOfRange},
		{"to far past the end", at, wrapsToHUIDEpoch.Add(365 * 24 * time.Hour), ErrTimeOutOfRange, ErrTimeOutOfRange},
		{"from far before the epochs", time.Unix(-1<<61+HUIDEpochMillis/1000, 0), at, ErrTimeOutOfRange, ErrTimeOutOfRange},
	}
	for _, tc := range cases {
		if _, _, err := HUIDRange(tc.from, tc.to); !errors.Is(err, tc.huid) || (tc.huid == nil) != (err == nil) {
			t.Errorf("%s: HUIDRange error %v, want %v", tc.name, err, tc.huid)
		}
		if _, _, err := SCRU128Range(tc.from, tc.to); !errors.Is(err, tc.scru) || (tc.scru == nil) != (err == nil) {
			t.Errorf("%s: SCRU128Range error %v, want %v", tc.name, err, tc.scru)
		}
	}
	// A window inside one millisecond selects that millisecond.
	if lo, hi, err := HUIDRange(at.Add(time.Microsecond), at.Add(900*time.Microsecond)); err != nil ||
		lo.Time() != at || hi.Time() != at || lo.Random() != 0 || hi.Random() != HUIDMaxRandom {
		t.Errorf("HUIDRange within one millisecond = %v..%v, %v; want that millisecond", lo.Time(), hi.Time(), err)
	}
	// The whole windows are accepted, edges included.
	if lo, hi, err := HUIDRange(hEpoch, hEnd); err != nil || lo != 0 || hi != MaxHUID {
		t.Errorf("HUIDRange(whole window) = %d, %d, %v", lo, hi, err)
	}
	if lo, hi, err := SCRU128Range(sEpoch, sEnd); err != nil || lo != (SCRU128{}) || hi != MaxSCRU128 {
		t.Errorf("SCRU128Range(whole window) = %v, %v, %v", lo, hi, err)
	}
}
