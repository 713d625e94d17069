package idtype_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sortid/sortid/idtype"
)

var checkNow = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// timeCheckVectors: an ID's time as an offset from checkNow, the skew, and
// the expected outcome ("" accepted, else a substring of the error).
var timeCheckVectors = []struct {
	offset, past, future time.Duration
	want                 string
}{
	{0, time.Hour, time.Minute, ""},
	{-time.Hour, time.Hour, time.Minute, ""},
	{-time.Hour - time.Millisecond, time.Hour, time.Minute, "1h0m0.001s before now (2026-06-01T12:00:00.000Z); at most 1h0m0s"},
	{time.Minute, time.Hour, time.Minute, ""},
	{time.Minute + time.Millisecond, time.Hour, time.Minute, "1m0.001s after now (2026-06-01T12:00:00.000Z); at most 1m0s"},
	{0, 0, 0, ""},
	{-time.Millisecond, 0, 0, "before now"},
	{time.Millisecond, 0, 0, "after now"},
	{0, -time.Second, 0, "skew must not be negative"},
	{0, 0, -time.Second, "skew must not be negative"},
}

func TestTimeCheck(t *testing.T) {
	t.Parallel()
	for _, v := range timeCheckVectors {
		c := idtype.TimeCheck{Past: v.past, Future: v.future, Now: func() time.Time { return checkNow }}
		at := checkNow.Add(v.offset)
		h, err := idtype.HUIDFromParts(at, 12345)
		if err != nil {
			t.Fatal(err)
		}
		s, err := idtype.SCRU128FromFields(uint64(at.UnixMilli()-idtype.SCRU128EpochMillis), 1, 2, 3)
		if err != nil {
			t.Fatal(err)
		}
		for name, err := range map[string]error{"HUID": c.HUID(h), "SCRU128": c.SCRU128(s)} {
			switch {
			case v.want == "" && err != nil:
				t.Errorf("%s at now%+v, skew -%v/+%v: %v, want nil", name, v.offset, v.past, v.future, err)
			case v.want != "" && (err == nil || !strings.Contains(err.Error(), v.want)):
				t.Errorf("%s at now%+v, skew -%v/+%v: %v, want an error with %q", name, v.offset, v.past, v.future, err, v.want)
			case v.want != "" && v.past >= 0 && v.future >= 0 && !errors.Is(err, idtype.ErrImplausibleTime):
				t.Errorf("%s: %v does not wrap ErrImplausibleTime", name, err)
			case v.want != "" && (v.past < 0 || v.future < 0) && !errors.Is(err, idtype.ErrInvalidArgument):
				t.Errorf("%s: %v does not wrap ErrInvalidArgument", name, err)
			}
		}
	}
}

// TestTimeCheckNamesTheID: the error names the ID and its time.
func TestTimeCheckNamesTheID(t *testing.T) {
	t.Parallel()
	h, _ := idtype.HUIDFromParts(checkNow.Add(-2*time.Hour), 7)
	err := idtype.TimeCheck{Past: time.Hour, Now: func() time.Time { return checkNow }}.HUID(h)
	if err == nil || !strings.Contains(err.Error(), "HUID "+h.String()+" was made at 2026-06-01T10:00:00.000Z") {
		t.Errorf("error %v does not name the HUID and its time", err)
	}
	if err := (idtype.TimeCheck{}).HUID(-1); !errors.Is(err, idtype.ErrInvalidHUID) {
		t.Errorf("negative HUID: %v, want ErrInvalidHUID", err)
	}
}

// TestTimeCheckReadsClockEachCall: one TimeCheck, the clock moving between
// calls: the same ID is accepted, then refused once now has moved past it.
func TestTimeCheckReadsClockEachCall(t *testing.T) {
	t.Parallel()
	now := checkNow
	c := idtype.TimeCheck{Past: time.Hour, Future: time.Minute, Now: func() time.Time { return now }}
	h, _ := idtype.HUIDFromParts(checkNow, 1)
	if err := c.HUID(h); err != nil {
		t.Fatal(err)
	}
	now = checkNow.Add(time.Hour + time.Millisecond)
	if err := c.HUID(h); !errors.Is(err, idtype.ErrImplausibleTime) {
		t.Errorf("after the clock moved on: %v, want ErrImplausibleTime", err)
	}
	now = checkNow.Add(-time.Minute - time.Millisecond)
	if err := c.HUID(h); !errors.Is(err, idtype.ErrImplausibleTime) {
		t.Errorf("with the clock behind: %v, want ErrImplausibleTime", err)
	}
	// Without Now, time.Now at each call: a HUID of now passes.
	if err := (idtype.TimeCheck{Past: time.Minute, Future: time.Minute}).HUID(idtype.NewHUID()); err != nil {
		t.Errorf("a fresh HUID against the real clock: %v", err)
	}
}

// FuzzTimeCheck checks the rule against its definition, seeded by the vectors.
func FuzzTimeCheck(f *testing.F) {
	for _, v := range timeCheckVectors {
		f.Add(int64(v.offset), int64(v.past), int64(v.future))
	}
	f.Fuzz(func(t *testing.T, offset, past, future int64) {
		const limit = int64(100 * 365 * 24 * time.Hour)
		if offset < -limit || offset > limit || past > limit || future > limit {
			return
		}
		at := checkNow.Add(time.Duration(offset))
		h, err := idtype.HUIDFromParts(at, 0)
		if err != nil {
			return // outside HUID's window
		}
		c := idtype.TimeCheck{Past: time.Duration(past), Future: time.Duration(future), Now: func() time.Time { return checkNow }}
		err = c.HUID(h)
		ms := h.Time()
		in := !ms.Before(checkNow.Add(-time.Duration(past))) && !ms.After(checkNow.Add(time.Duration(future)))
		switch {
		case past < 0 || future < 0:
			if !errors.Is(err, idtype.ErrInvalidArgument) {
				t.Fatalf("negative skew: %v", err)
			}
		case in != (err == nil):
			t.Fatalf("HUID at %s, skew -%d/+%d: err %v, in window %v", ms, past, future, err, in)
		}
	})
}
