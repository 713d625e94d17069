package idtype

import (
	"fmt"
	"time"
)

// HUIDRange returns the smallest and largest HUID made in a millisecond
// that overlaps [from, to), so that WHERE id BETWEEN lo AND hi selects every
// row whose HUID was made in that window, as a plain index range. A HUID
// carries only its millisecond, so when from or to falls inside a
// millisecond, that whole millisecond is included (no row made in the window
// is missed); for millisecond-aligned bounds the result is exact. It returns
// an error wrapping [ErrInvalidRange] when from is not before to, or wrapping
// [ErrTimeOutOfRange] when the window reaches outside
// [2026-01-01T00:00:00.000Z, 2165-05-15T07:35:11.103Z].
func HUIDRange(from, to time.Time) (lo, hi HUID, err error) {
	first, last, err := millisecondRange(from, to, HUIDEpochMillis, HUIDMaxTimestamp, "HUID")
	if err != nil {
		return 0, 0, err
	}
	return makeHUID(first, 0), makeHUID(last, HUIDMaxRandom), nil
}

// SCRU128Range returns the smallest and largest SCRU128 made in a
// millisecond that overlaps [from, to), with the same rounding as
// [HUIDRange]. It returns an error wrapping [ErrInvalidRange] when from is
// not before to, or wrapping [ErrTimeOutOfRange] when the window reaches
// outside the timestamps 0 to 2^44-1 ms after 2020-01-01T00:00:00Z.
func SCRU128Range(from, to time.Time) (lo, hi SCRU128, err error) {
	first, last, err := millisecondRange(from, to, SCRU128EpochMillis, SCRU128MaxTimestamp, "SCRU128")
	if err != nil {
		return SCRU128{}, SCRU128{}, err
	}
	lo = makeSCRU128(uint64(first), 0, 0, 0)
	hi = makeSCRU128(uint64(last), SCRU128MaxCounter, SCRU128MaxPerSecRandom, 1<<32-1)
	return lo, hi, nil
}

// millisecondRange returns the first and last time field (ms since epoch)
// of the milliseconds that overlap [from, to).
func millisecondRange(from, to time.Time, epoch, maxField int64, scheme string) (first, last int64, err error) {
	if !from.Before(to) {
		return 0, 0, fmt.Errorf("%w: from %s is not before to %s", ErrInvalidRange,
			from.UTC().Format(time.RFC3339Nano), to.UTC().Format(time.RFC3339Nano))
	}
	// Compared as times first: UnixMilli overflows far outside the window.
	if from.Before(time.UnixMilli(epoch)) || to.After(time.UnixMilli(epoch+maxField+1)) {
		return 0, 0, fmt.Errorf("%w: [%s, %s) reaches outside %s's window [%s, %s]", ErrTimeOutOfRange,
			from.UTC().Format(time.RFC3339Nano), to.UTC().Format(time.RFC3339Nano), scheme,
			formatMilli(epoch), formatMilli(epoch+maxField))
	}
	return from.UnixMilli() - epoch, ceilMilli(to) - epoch - 1, nil
}

// ceilMilli returns t in Unix milliseconds, rounded up.
func ceilMilli(t time.Time) int64 {
	ms := t.UnixMilli()
	if t.Nanosecond()%int(time.Millisecond) != 0 {
		ms++
	}
	return ms
}

// withinMillis reports whether t lies in the Unix milliseconds first to
// last, compared as times: t.UnixMilli wraps around far outside them.
func withinMillis(t time.Time, first, last int64) bool {
	return !t.Before(time.UnixMilli(first)) && t.Before(time.UnixMilli(last+1))
}

func formatMilli(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
}
