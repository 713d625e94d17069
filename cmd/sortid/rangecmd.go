package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/sortid/sortid/idtype"
)

const rangeHelp = `Usage: sortid range --from T [--to T] [--kind huid|scru128] [--column NAME]

Print the lowest and highest ID made in a millisecond that overlaps the
window [from, to), and a SQL condition that selects the rows made in it
with an index range scan. IDs carry only their millisecond, so a bound
inside a millisecond takes in that whole millisecond; millisecond-aligned
bounds are exact. --to defaults to now. A time T is one of:

` + timeForms + `
HUID output:
  lo  <decimal>
  hi  <decimal>
  sql <column> BETWEEN <lo> AND <hi>
SCRU128 output:
  lo       <26-character form>
  hi       <26-character form>
  lo_uuid  <UUID form>
  hi_uuid  <UUID form>
  sql      <column> BETWEEN '<lo_uuid>'::uuid AND '<hi_uuid>'::uuid
Each line is a key, spaces, and the value, e.g. for a script:
  sortid range --from ... --to ... | sed -n 's/^sql *//p'

A window that is empty or reaches outside the scheme's time window (HUID:
2026-01-01T00:00:00.000Z to 2165-05-15T07:35:11.103Z) is an error, status 1.
`

func runRange(args []string, s streams) error {
	fs := newFlagSet("range")
	from := fs.String("from", "", "start of the window, inclusive (a time in a form above; required)")
	to := fs.String("to", "now", "end of the window, exclusive (a time in a form above)")
	kindName := fs.String("kind", string(kindHUID), "ID kind: huid or scru128")
	column := fs.String("column", "id", "column name in the SQL condition (a plain or schema-qualified identifier)")
	positional, err := parseArgs(fs, args, rangeHelp)
	if err != nil {
		return err
	}
	if len(positional) > 0 {
		return usagef("unexpected arguments %s", quoteInputs(positional))
	}
	kind, err := parseKind(*kindName)
	if err != nil {
		return &usageError{err}
	}
	if !isSQLIdentifier(*column) {
		return usagef("--column %s is not a plain SQL identifier (letters, digits, _ and $, not starting with a digit or $; optionally qualified with dots)", quoteInput(*column))
	}
	now := time.Now()
	fromTime, err := parseWindowTime("--from", *from, now)
	if err != nil {
		return err
	}
	toTime, err := parseWindowTime("--to", *to, now)
	if err != nil {
		return err
	}
	if kind == kindSCRU128 {
		return printSCRU128Range(s.stdout, fromTime, toTime, *column)
	}
	return printHUIDRange(s.stdout, fromTime, toTime, *column)
}

// timeForms lists the forms parseWindowTime accepts, for the help and for
// its error message.
const timeForms = `  RFC 3339               2026-11-30T10:00:00Z, 2026-11-30T10:00:00.250+01:00
  Unix milliseconds      1796032800000
  now                    the time the command runs
  signed duration        -5m, -2h30m, +90s: relative to now (units ns, us,
                         ms, s, m, h)
  date                   2026-11-30 (midnight)
  date and time          2026-11-30 10:00, 2026-11-30 10:00:00.5
A date, or a date and time, is UTC unless a zone follows: Z, +01, +01:00
(with or without a space before it), e.g. 2026-11-30 10:00:00+01.
`

// calendarLayouts are the date and date-time forms, without a zone and
// with each zone form; a layout without a zone parses as UTC.
var calendarLayouts = func() []string {
	var layouts []string
	for _, base := range []string{"2006-01-02", "2006-01-02 15:04", "2006-01-02 15:04:05"} {
		for _, zone := range []string{"", "Z07:00", "Z07", " Z07:00", " Z07"} {
			layouts = append(layouts, base+zone)
		}
	}
	return layouts
}()

// parseWindowTime parses the value of the flag name in one of the
// timeForms; now is the time that "now" and durations refer to. A missing
// or malformed value is a usage error.
func parseWindowTime(name, value string, now time.Time) (time.Time, error) {
	if value == "" {
		return time.Time{}, usagef("%s is required", name)
	}
	if value == "now" {
		return now, nil
	}
	if ms, err := strconv.ParseInt(value, 10, 64); err == nil {
		return time.UnixMilli(ms).UTC(), nil
	}
	if value[0] == '-' || value[0] == '+' {
		if d, err := time.ParseDuration(value); err == nil {
			return now.Add(d), nil
		}
	}
	// time.RFC3339 and the layouts also accept fractional seconds.
	if t, err := time.Parse(time.RFC3339, value); err == nil {
		return t, nil
	}
	for _, layout := range calendarLayouts {
		if t, err := time.ParseInLocation(layout, value, time.UTC); err == nil {
			return t, nil
		}
	}
	return time.Time{}, usagef("%s %s is not a time; the forms are:\n%s", name, quoteInput(value), timeForms)
}

func printHUIDRange(w io.Writer, from, to time.Time, column string) error {
	lo, hi, err := idtype.HUIDRange(from, to)
	if err != nil {
		return err
	}
	return writeAll(w, fmt.Sprintf("lo  %s\nhi  %s\nsql %s BETWEEN %s AND %s\n", lo, hi, column, lo, hi))
}

func printSCRU128Range(w io.Writer, from, to time.Time, column string) error {
	lo, hi, err := idtype.SCRU128Range(from, to)
	if err != nil {
		return err
	}
	loUUID, hiUUID := lo.UUIDString(), hi.UUIDString()
	return writeAll(w, fmt.Sprintf("lo       %s\nhi       %s\nlo_uuid  %s\nhi_uuid  %s\nsql      %s BETWEEN '%s'::uuid AND '%s'::uuid\n",
		lo, hi, loUUID, hiUUID, column, loUUID, hiUUID))
}

// isSQLIdentifier reports whether s is one or more unquoted PostgreSQL
// identifiers joined by dots (column, table.column, schema.table.column),
// so that it can be pasted into SQL without quoting or injection.
func isSQLIdentifier(s string) bool {
	for part := range strings.SplitSeq(s, ".") {
		if !isSimpleIdentifier(part) {
			return false
		}
	}
	return true
}

// isSimpleIdentifier reports whether s is an unquoted identifier of ASCII
// letters, digits, _ and $ that does not start with a digit or $, within
// PostgreSQL's 63-byte limit.
func isSimpleIdentifier(s string) bool {
	if s == "" || len(s) > 63 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || c != '$' && (c < '0' || c > '9')) {
			return false
		}
	}
	return true
}

// writeAll writes text to w, naming a failure as an output error.
func writeAll(w io.Writer, text string) error {
	if _, err := io.WriteString(w, text); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	return nil
}
