package idtype

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// TimeCheck tells whether an ID made elsewhere, by a client or another
// service, carries a plausible time: one at most Past before now and at
// most Future after it. A client with a wrong clock otherwise stores keys
// that sort wrongly forever. The SQL functions huid_check_time and
// scru128_check_time apply the same rule.
//
// The check is at millisecond granularity, the precision both ID schemes
// store: the ID's millisecond is compared with the millisecond now lies in
// (now rounded down to a whole millisecond), so an ID made in the current
// millisecond always passes, even with no skew allowed: the zero
// TimeCheck{} accepts exactly the IDs of the current millisecond, and one
// made 1 ms before or after it is refused.
type TimeCheck struct {
	// Past and Future are the skew allowed each way; neither may be
	// negative.
	Past, Future time.Duration
	// Now reads the clock, at every check; nil means time.Now. A Now that
	// returns the zero time.Time (a clock never set) is an error wrapping
	// [ErrInvalidArgument]: no ID is checked against it.
	Now func() time.Time
}

// HUID returns nil when h's millisecond lies within [now-Past, now+Future],
// both ends included, now being rounded down to its millisecond (see
// [TimeCheck]). Otherwise it returns an error wrapping [ErrImplausibleTime]
// that names h, its time, now and the skew, or wrapping [ErrInvalidHUID]
// for a negative h, or [ErrInvalidArgument] for a negative skew or a Now
// that returned the zero time.
func (c TimeCheck) HUID(h HUID) error {
	if !h.Valid() {
		return fmt.Errorf("%w: %d is negative", ErrInvalidHUID, int64(h))
	}
	return c.check("HUID", h.String(), h.Time())
}

// SCRU128 is [TimeCheck.HUID] for a SCRU128 (any 44-bit timestamp).
func (c TimeCheck) SCRU128(id SCRU128) error {
	return c.check("SCRU128", id.String(), id.Time())
}

// check applies the rule to t, a whole millisecond (an ID's time).
func (c TimeCheck) check(kind, id string, t time.Time) error {
	if c.Past < 0 || c.Future < 0 {
		return fmt.Errorf("%w: TimeCheck skew must not be negative (Past %s, Future %s)", ErrInvalidArgument, c.Past, c.Future)
	}
	now := time.Now()
	if c.Now != nil {
		now = c.Now()
		if now.IsZero() {
			return fmt.Errorf("%w: TimeCheck.Now returned the zero time.Time (0001-01-01T00:00:00Z), not a clock reading; leave Now nil to read time.Now", ErrInvalidArgument)
		}
	}
	// Truncate counts from the zero time, a whole second, so this is the
	// floor of now to its millisecond, before or after 1970 alike.
	now = now.Truncate(time.Millisecond)
	const layout = "2006-01-02T15:04:05.000Z07:00"
	switch {
	case t.Before(now.Add(-c.Past)):
		return fmt.Errorf("%w: %s %s was made at %s, %s before now (%s); at most %s is allowed",
			ErrImplausibleTime, kind, id, t.Format(layout), span(t, now), now.UTC().Format(layout), c.Past)
	case t.After(now.Add(c.Future)):
		return fmt.Errorf("%w: %s %s was made at %s, %s after now (%s); at most %s is allowed",
			ErrImplausibleTime, kind, id, t.Format(layout), span(now, t), now.UTC().Format(layout), c.Future)
	}
	return nil
}

// span formats to - from, two whole milliseconds with from before to, as
// time.Duration does, also beyond the 292 years a Duration holds (a SCRU128
// may lie 557 years after 2020), where to.Sub(from) would stop at its
// largest value and name a wrong span.
func span(from, to time.Time) string {
	if d := to.Sub(from); d != math.MaxInt64 {
		return d.String()
	}
	ms := to.UnixMilli() - from.UnixMilli()
	hours, rest := ms/3_600_000, time.Duration(ms%3_600_000)*time.Millisecond
	// (1h + rest).String() is "1h" and rest in minutes and seconds.
	return strconv.FormatInt(hours, 10) + "h" + strings.TrimPrefix((time.Hour+rest).String(), "1h")
}
