package idtype

import (
	"fmt"
	"time"
)

// TimeCheck tells whether an ID made elsewhere, by a client or another
// service, carries a plausible time: one at most Past before now and at
// most Future after it. A client with a wrong clock otherwise stores keys
// that sort wrongly forever. The SQL functions huid_check_time and
// scru128_check_time apply the same rule.
type TimeCheck struct {
	// Past and Future are the skew allowed each way; neither may be
	// negative.
	Past, Future time.Duration
	// Now reads the clock, at every check; nil means time.Now.
	Now func() time.Time
}

// HUID returns nil when h's millisecond lies within [now-Past, now+Future],
// both ends included. Otherwise it returns an error wrapping
// [ErrImplausibleTime] that names h, its time, now and the skew, or
// wrapping [ErrInvalidHUID] for a negative h, or [ErrInvalidArgument] for a
// negative skew.
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

func (c TimeCheck) check(kind, id string, t time.Time) error {
	if c.Past < 0 || c.Future < 0 {
		return fmt.Errorf("%w: TimeCheck skew must not be negative (Past %s, Future %s)", ErrInvalidArgument, c.Past, c.Future)
	}
	now := time.Now()
	if c.Now != nil {
		now = c.Now()
	}
	const layout = "2006-01-02T15:04:05.000Z07:00"
	switch {
	case t.Before(now.Add(-c.Past)):
		return fmt.Errorf("%w: %s %s was made at %s, %s before now (%s); at most %s is allowed",
			ErrImplausibleTime, kind, id, t.Format(layout), now.Sub(t), now.UTC().Format(layout), c.Past)
	case t.After(now.Add(c.Future)):
		return fmt.Errorf("%w: %s %s was made at %s, %s after now (%s); at most %s is allowed",
			ErrImplausibleTime, kind, id, t.Format(layout), t.Sub(now), now.UTC().Format(layout), c.Future)
	}
	return nil
}
