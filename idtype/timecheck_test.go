package idtype_test

import (
	"errors"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sortid/sortid/idtype"
)

var checkNow = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// timeCheckVectors: an ID's time as an offset from checkNow (truncated to
// its millisecond, as an ID's time is), now as an offset from checkNow
// (often inside a millisecond: the check rounds it down), the skew, and the
// expected outcome ("" accepted, else a substring of the error). The edges
// are ±1 ms around the window, with now at the first and the last
// nanosecond of its millisecond.
var timeCheckVectors = []struct {
	offset, now, past, future time.Duration
	want                      string
}{
	{0, 0, time.Hour, time.Minute, ""},
	{-time.Hour, 0, time.Hour, time.Minute, ""},
	{-time.Hour - time.Millisecond, 0, time.Hour, time.Minute, "1h0m0.001s before now (2026-06-01T12:00:00.000Z); at most 1h0m0s"},
	{time.Minute, 0, time.Hour, time.Minute, ""},
	{time.Minute + time.Millisecond, 0, time.Hour, time.Minute, "1m0.001s after now (2026-06-01T12:00:00.000Z); at most 1m0s"},
	{-time.Hour, 999_999, time.Hour, time.Minute, ""},
	{-time.Hour - time.Millisecond, 999_999, time.Hour, time.Minute, "1h0m0.001s before now (2026-06-01T12:00:00.000Z); at most 1h0m0s"},
	{time.Minute, 999_999, time.Hour, time.Minute, ""},
	{time.Minute + time.Millisecond, 1, time.Hour, time.Minute, "1m0.001s after now (2026-06-01T12:00:00.000Z); at most 1m0s"},
	// No skew: exactly the IDs of now's millisecond pass, wherever in it now is.
	{0, 0, 0, 0, ""},
	{0, 1, 0, 0, ""},
	{0, 500 * time.Microsecond, 0, 0, ""},
	{0, 999_999, 0, 0, ""},
	{999_999, 999_999, 0, 0, ""}, // the ID's time is its millisecond
	{-time.Millisecond, 0, 0, 0, "1ms before now (2026-06-01T12:00:00.000Z); at most 0s is allowed"},
	{-time.Millisecond, 999_999, 0, 0, "1ms before now (2026-06-01T12:00:00.000Z); at most 0s is allowed"},
	{time.Millisecond, 0, 0, 0, "1ms after now (2026-06-01T12:00:00.000Z); at most 0s is allowed"},
	{time.Millisecond, 999_999, 0, 0, "1ms after now (2026-06-01T12:00:00.000Z); at most 0s is allowed"},
	{0, -1, 0, 0, "1ms after now (2026-06-01T11:59:59.999Z); at most 0s is allowed"},
	{-time.Millisecond, -1, 0, 0, ""},
	// A skew of 1 ms reaches one millisecond further; less than 1 ms, none.
	{-time.Millisecond, 999_999, time.Millisecond, 0, ""},
	{-2 * time.Millisecond, 999_999, time.Millisecond, 0, "2ms before now (2026-06-01T12:00:00.000Z); at most 1ms is allowed"},
	{-time.Millisecond, 999_999, 999_999, 0, "1ms before now (2026-06-01T12:00:00.000Z); at most 999.999µs is allowed"},
	{time.Millisecond, 0, 0, time.Millisecond, ""},
	{2 * time.Millisecond, 0, 0, time.Millisecond, "2ms after now (2026-06-01T12:00:00.000Z); at most 1ms is allowed"},
	{time.Millisecond, 0, 0, 999_999, "1ms after now (2026-06-01T12:00:00.000Z); at most 999.999µs is allowed"},
	{0, 0, -time.Second, 0, "skew must not be negative"},
	{0, 0, 0, -time.Second, "skew must not be negative"},
	{0, 0, -1, 0, "skew must not be negative"},
}

func TestTimeCheck(t *testing.T) {
	t.Parallel()
	for _, v := range timeCheckVectors {
		now := checkNow.Add(v.now)
		c := idtype.TimeCheck{Past: v.past, Future: v.future, Now: func() time.Time { return now }}
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
				t.Errorf("%s at now%+v, now at %+v, skew -%v/+%v: %v, want nil", name, v.offset, v.now, v.past, v.future, err)
			case v.want != "" && (err == nil || !strings.Contains(err.Error(), v.want)):
				t.Errorf("%s at now%+v, now at %+v, skew -%v/+%v: %v, want an error with %q", name, v.offset, v.now, v.past, v.future, err, v.want)
			case v.want != "" && v.past >= 0 && v.future >= 0 && !errors.Is(err, idtype.ErrImplausibleTime):
				t.Errorf("%s: %v does not wrap ErrImplausibleTime", name, err)
			case v.want != "" && (v.past < 0 || v.future < 0) && !errors.Is(err, idtype.ErrInvalidArgument):
				t.Errorf("%s: %v does not wrap ErrInvalidArgument", name, err)
			}
		}
	}
}

// TestTimeCheckZeroSkewAcceptsItsMillisecond: the zero TimeCheck{} accepts
// an ID made in the current millisecond, with the generators' own clock:
// one fixed inside a millisecond, and the real one. With the real clock an
// ID is only sure to be of the check's millisecond when the clock read the
// same millisecond before the ID was made and after it was checked (and
// the generator was not ahead of the clock); most iterations are.
func TestTimeCheckZeroSkewAcceptsItsMillisecond(t *testing.T) {
	t.Parallel()
	for _, sub := range []time.Duration{0, 1, 999_999} {
		now := checkNow.Add(sub)
		clock := idtype.WithClock(func() time.Time { return now })
		c := idtype.TimeCheck{Now: func() time.Time { return now }}
		h, err := idtype.NewHUIDGenerator(clock).Generate()
		if err != nil {
			t.Fatal(err)
		}
		s, err := idtype.NewSCRU128Generator(clock).Generate()
		if err != nil {
			t.Fatal(err)
		}
		if err := c.HUID(h); err != nil {
			t.Errorf("HUID made at now+%v: %v", sub, err)
		}
		if err := c.SCRU128(s); err != nil {
			t.Errorf("SCRU128 made at now+%v: %v", sub, err)
		}
	}
	sure := 0
	for range 1000 {
		before := time.Now().UnixMilli()
		h := idtype.NewHUID()
		hErr := (idtype.TimeCheck{}).HUID(h)
		s := idtype.NewSCRU128()
		sErr := (idtype.TimeCheck{}).SCRU128(s)
		if time.Now().UnixMilli() != before || h.Time().UnixMilli() != before || s.Time().UnixMilli() != before {
			continue
		}
		sure++
		if hErr != nil || sErr != nil {
			t.Fatalf("IDs of the current millisecond refused by TimeCheck{}: %v; %v", hErr, sErr)
		}
	}
	if sure == 0 {
		t.Fatal("no iteration made and checked its IDs within one millisecond")
	}
}

// TestTimeCheckZeroNow: a Now that returns the zero time.Time is an error
// naming it, whatever the skew (a skew wide enough would otherwise let
// anything through), and never a verdict on the ID.
func TestTimeCheckZeroNow(t *testing.T) {
	t.Parallel()
	zero := func() time.Time { return time.Time{} }
	for _, c := range []idtype.TimeCheck{
		{Now: zero},
		{Past: time.Hour, Future: time.Minute, Now: zero},
		{Past: math.MaxInt64, Future: math.MaxInt64, Now: zero},
	} {
		for name, err := range map[string]error{"HUID": c.HUID(idtype.NewHUID()), "SCRU128": c.SCRU128(idtype.NewSCRU128())} {
			if !errors.Is(err, idtype.ErrInvalidArgument) || errors.Is(err, idtype.ErrImplausibleTime) ||
				!strings.Contains(err.Error(), "TimeCheck.Now returned the zero time.Time") {
				t.Errorf("%s, skew -%v/+%v, zero Now: %v, want ErrInvalidArgument naming the zero time", name, c.Past, c.Future, err)
			}
		}
	}
	// A nil Now is time.Now.
	if err := (idtype.TimeCheck{Past: time.Minute, Future: time.Minute, Now: nil}).HUID(idtype.NewHUID()); err != nil {
		t.Errorf("nil Now: %v", err)
	}
}

// TestTimeCheckSpanBeyondDuration: a SCRU128 can lie 557 years from 2020,
// further than a time.Duration (292 years) reaches; the error still names
// the true span, not Duration's largest value.
func TestTimeCheckSpanBeyondDuration(t *testing.T) {
	t.Parallel()
	c := idtype.TimeCheck{Past: time.Hour, Future: time.Minute, Now: func() time.Time { return checkNow.Add(999_999) }}
	err := c.SCRU128(idtype.MaxSCRU128)
	want := "SCRU128 7VVVVVVVVVVVVVVVVVVVVVVVVV was made at 2577-06-22T06:20:44.415Z, 4830474h20m44.415s after now (2026-06-01T12:00:00.000Z); at most 1m0s is allowed"
	if !errors.Is(err, idtype.ErrImplausibleTime) || !strings.Contains(err.Error(), want) {
		t.Errorf("max SCRU128: %v, want %q", err, want)
	}
	early, _ := idtype.SCRU128FromFields(1, 0, 0, 0)
	c.Now = func() time.Time { return time.Date(2600, 1, 1, 0, 0, 0, 0, time.UTC) }
	err = c.SCRU128(early)
	want = "was made at 2020-01-01T00:00:00.001Z, 5084183h59m59.999s before now (2600-01-01T00:00:00.000Z); at most 1h0m0s is allowed"
	if !errors.Is(err, idtype.ErrImplausibleTime) || !strings.Contains(err.Error(), want) {
		t.Errorf("SCRU128 of 2020 in 2600: %v, want %q", err, want)
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

// FuzzTimeCheck checks the rule against its definition, in whole
// nanoseconds, for a HUID and a SCRU128 of the same millisecond, seeded by
// the vectors; and that a refusal names a span equal to the difference of
// the two times it names.
func FuzzTimeCheck(f *testing.F) {
	for _, v := range timeCheckVectors {
		f.Add(int64(v.offset), int64(v.now), int64(v.past), int64(v.future))
	}
	message := regexp.MustCompile(`was made at (\S+), (\S+) (before|after) now \((\S+)\); at most (\S+) is allowed$`)
	f.Fuzz(func(t *testing.T, offset, nowOffset, past, future int64) {
		const limit = int64(100 * 365 * 24 * time.Hour)
		if offset < -limit || offset > limit || nowOffset < -limit || nowOffset > limit || past > limit || future > limit {
			return
		}
		at := checkNow.Add(time.Duration(offset))
		now := checkNow.Add(time.Duration(nowOffset))
		h, err := idtype.HUIDFromParts(at, 0)
		if err != nil {
			return // outside HUID's window
		}
		s, err := idtype.SCRU128FromFields(uint64(at.UnixMilli()-idtype.SCRU128EpochMillis), 0, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		c := idtype.TimeCheck{Past: time.Duration(past), Future: time.Duration(future), Now: func() time.Time { return now }}
		err = c.HUID(h)
		if sErr := c.SCRU128(s); (err == nil) != (sErr == nil) {
			t.Fatalf("HUID %v, SCRU128 %v", err, sErr)
		}
		idNs := h.Time().UnixNano()
		floorNs := now.UnixNano() / 1e6 * 1e6 // now lies after 1970
		in := idNs >= floorNs-past && idNs <= floorNs+future
		switch {
		case past < 0 || future < 0:
			if !errors.Is(err, idtype.ErrInvalidArgument) {
				t.Fatalf("negative skew: %v", err)
			}
			return
		case in != (err == nil):
			t.Fatalf("HUID at %s, now %s, skew -%d/+%d: err %v, in window %v", h.Time(), now, past, future, err, in)
		case err == nil:
			return
		}
		m := message.FindStringSubmatch(err.Error())
		if m == nil {
			t.Fatalf("message %q", err)
		}
		made, err1 := time.Parse(time.RFC3339, m[1])
		span, err2 := time.ParseDuration(m[2])
		named, err3 := time.Parse(time.RFC3339, m[4])
		if err := errors.Join(err1, err2, err3); err != nil {
			t.Fatalf("message %q: %v", m[0], err)
		}
		if m[3] == "after" {
			span = -span
		}
		if !made.Equal(h.Time()) || named.UnixNano() != floorNs || named.Sub(made) != span {
			t.Fatalf("message %q does not name the ID's time, now's millisecond and their difference", m[0])
		}
	})
}
