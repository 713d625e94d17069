package main

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/sortid/sortid/idtype"
	"github.com/sortid/sortid/internal/chars"
)

const inspectHelp = `Usage: sortid inspect [ID...]

Decode each ID given as an argument, or, with no arguments, each line of
stdin (blank lines are skipped), and print one JSON object per ID on stdout.
Spaces around an ID are ignored. No ID starts with "-": an argument that
does is a flag (only -h exists), except a negative number such as -5 or -0,
which is taken as an input; such an input, or any input starting with "-"
after -- or on stdin, is refused as invalid (a negative number is named as
an invalid HUID, anything else as looking like a flag).

The kind is detected from the text, which is never ambiguous:
  1 to 19 decimal digits            HUID (leading zeros allowed)
  26 base32 characters (0-9, A-V)   SCRU128
  36 characters, 8-4-4-4-12 hex     SCRU128 in UUID form
  32 hex digits                     SCRU128 bytes (the hex key below)
  \x and 32 hex digits              SCRU128 bytes as psql shows a bytea
A SCRU128 text always has 26 characters, more than any HUID's 19 digits.
A 25-character base36 string is a SCRU128 v2 ID, which sortid (SCRU128
v1.0.2) cannot read; it is named as such. A 26-character Crockford base32
string (0-9 and A-Z without I, L, O and U) that is not valid SCRU128
base32, because it has a W, X, Y or Z, is named as a ULID, which sortid
does not decode. A ULID without those letters reads as a SCRU128, and
nothing tells the two apart.

Keys of a HUID: input, kind ("huid"), decimal, padded (19 digits), hex
(16 digits of the 8 bytes), time (ISO 8601 UTC, milliseconds), unix_ms,
timestamp (ms since 2026-01-01), random.
Keys of a SCRU128: input, kind ("scru128"), base32, uuid, hex (32 digits),
time, unix_ms, timestamp (ms since 2020-01-01), counter, per_sec_random,
per_gen_random.

Any 128 bits decode as a SCRU128, so a UUID from another system would be
misread. When the bits carry an RFC 9562 UUID variant and version and the
times say it is not a SCRU128, a warning on stderr names the version (and,
for a UUIDv7, the time it encodes); the JSON line is still printed and the
exit status is unchanged. The times: a SCRU128 read from any such UUID
would lie in the future (more than a day after now); or, for version 7,
the first 48 bits as Unix milliseconds lie between 2020-01-01 and a day
after now. A real SCRU128 made now reads as a UUIDv7 of decades ahead.

An invalid ID is named in a warning on stderr; the other IDs are still
printed, and the exit status is 1. Inputs longer than 64 characters are
named by their first 64 characters and their length.
`

// isoMillis formats a UTC time in ISO 8601 with milliseconds, e.g.
// 2026-01-01T00:00:00.123Z, the precision both ID schemes store.
const isoMillis = "2006-01-02T15:04:05.000Z07:00"

// huidInfo is the JSON form of an inspected HUID.
type huidInfo struct {
	Input     string `json:"input"`
	Kind      idKind `json:"kind"`
	Decimal   string `json:"decimal"`
	Padded    string `json:"padded"`
	Hex       string `json:"hex"`
	Time      string `json:"time"`
	UnixMS    int64  `json:"unix_ms"`
	Timestamp int64  `json:"timestamp"`
	Random    uint32 `json:"random"`
}

// scru128Info is the JSON form of an inspected SCRU128.
type scru128Info struct {
	Input        string `json:"input"`
	Kind         idKind `json:"kind"`
	Base32       string `json:"base32"`
	UUID         string `json:"uuid"`
	Hex          string `json:"hex"`
	Time         string `json:"time"`
	UnixMS       int64  `json:"unix_ms"`
	Timestamp    uint64 `json:"timestamp"`
	Counter      uint32 `json:"counter"`
	PerSecRandom uint32 `json:"per_sec_random"`
	PerGenRandom uint32 `json:"per_gen_random"`
}

func runInspect(args []string, s streams) error {
	fs := newFlagSet("inspect")
	ids, err := parseArgs(fs, args, inspectHelp)
	if err != nil {
		return err
	}
	in := &inspector{out: bufio.NewWriterSize(s.stdout, outputBufferSize), stderr: s.stderr}
	in.enc = json.NewEncoder(in.out)
	in.enc.SetEscapeHTML(false) // inputs are echoed; keep them readable

	if len(ids) > 0 {
		for _, id := range ids {
			if err := in.inspect(strings.TrimSpace(id)); err != nil {
				return err
			}
		}
	} else if err := in.inspectLines(s.stdin); err != nil {
		return err
	}
	if err := flushOutput(in.out); err != nil {
		return err
	}
	if in.invalid > 0 {
		return fmt.Errorf("%d of %d IDs invalid", in.invalid, in.total)
	}
	return nil
}

// inspector decodes IDs to JSON lines and counts the invalid ones.
type inspector struct {
	out     *bufio.Writer
	enc     *json.Encoder // writes to out
	stderr  io.Writer
	total   int
	invalid int
}

// inspectLines inspects each non-blank line of r. It flushes the output
// whenever it is about to wait for more input, so a person typing IDs sees
// each answer at once while piped input is still written in large blocks.
func (in *inspector) inspectLines(r io.Reader) error {
	br := bufio.NewReaderSize(r, outputBufferSize)
	for {
		if br.Buffered() == 0 {
			if err := flushOutput(in.out); err != nil {
				return err
			}
		}
		line, readErr := br.ReadString('\n')
		if id := strings.TrimSpace(line); id != "" {
			if err := in.inspect(id); err != nil {
				return err
			}
		}
		if errors.Is(readErr, io.EOF) {
			return nil
		}
		if readErr != nil {
			return fmt.Errorf("reading stdin: %w", readErr)
		}
	}
}

// inspect prints the JSON form of id, or a warning naming it when it is not
// a valid ID. Only a failure to write the output is returned.
func (in *inspector) inspect(id string) error {
	in.total++
	info, warning, err := describe(id, time.Now())
	if err != nil {
		in.invalid++
		return in.warn(id, err.Error())
	}
	if warning != "" {
		if err := in.warn(id, "warning: "+warning); err != nil {
			return err
		}
	}
	if err := in.enc.Encode(info); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	return nil
}

// warn writes a message about id to stderr. It flushes stdout first so that
// stdout and stderr, when they share a terminal, show the message after the
// IDs that preceded it. Only a failure to write the output is returned.
func (in *inspector) warn(id, message string) error {
	if err := flushOutput(in.out); err != nil {
		return err
	}
	fmt.Fprintf(in.stderr, "sortid: inspect: %s: %s\n", quoteInput(id), message)
	return nil
}

// describe detects the kind of id from its length and characters and returns
// its JSON form (a huidInfo or a scru128Info), and a warning when a SCRU128
// looks like someone else's UUID (see detectForeignUUID).
func describe(id string, now time.Time) (info any, warning string, err error) {
	switch {
	case isDigits(id) && len(id) <= huidMaxDigits:
		h, err := idtype.ParseHUID(id)
		if err != nil {
			return nil, "", err
		}
		return describeHUID(id, h), "", nil
	case len(id) == scru128V2Len && isBase36(id):
		return nil, "", errors.New("a 25-character base36 string is a SCRU128 v2 ID; sortid implements SCRU128 v1.0.2 (26 base32 characters) and cannot read v2 IDs")
	case strings.HasPrefix(id, "-"):
		return nil, "", errDashInput(id)
	}
	u, ok, err := parseSCRU128Forms(id)
	if !ok {
		if isDigits(id) {
			return nil, "", fmt.Errorf("%d decimal digits; a HUID has at most %d", len(id), huidMaxDigits)
		}
		return nil, "", errNotAnID
	}
	if err != nil {
		if looksLikeULID(id) {
			return nil, "", fmt.Errorf("looks like a ULID (26 Crockford base32 characters: 0-9 and A-Z without I, L, O, U), which sortid does not decode; as a SCRU128: %w", err)
		}
		return nil, "", err
	}
	if foreign, ok := detectForeignUUID(u, now); ok {
		warning = foreign.describe(u)
	}
	return describeSCRU128(id, u), warning, nil
}

const (
	huidMaxDigits = 19 // 2^63-1 has 19 digits
	scru128V2Len  = 25 // SCRU128 v2: 25 base36 digits
)

// idForms lists the forms inspect reads, for the errors that name none.
const idForms = "a HUID (1 to 19 decimal digits), a SCRU128 (26 base32 characters), or a SCRU128 as a UUID (36 characters), as 32 hex digits or as \\x and 32 hex digits"

var errNotAnID = errors.New("not an ID: want " + idForms)

// errDashInput is the one rule for an input that starts with "-", whether it
// came as an argument (a negative number, which parseArgs passes on as an
// input, or anything after --) or as a line of stdin: no form of an ID
// starts with "-", so it is refused, never decoded. A minus sign and digits
// (-5, -0, -00) is named as a negative number, which no HUID is, even when
// its value is 0; anything else (-x, --n=3) is named as looking like a flag.
// The message does not repeat id: the warning that carries it quotes it.
func errDashInput(id string) error {
	if isNegativeNumber(id) {
		return fmt.Errorf("%w: a negative number (a minus sign and digits, -0 included); a HUID is 1 to 19 decimal digits without a sign, in [0, 2^63-1]", idtype.ErrInvalidHUID)
	}
	return errors.New(`not an ID: it starts with "-" like a flag, and no ID does (inspect's only flag is -h); want ` + idForms)
}

// parseSCRU128Forms parses the forms of a SCRU128 inspect accepts: 26
// base32 characters, a UUID, 32 hex digits (inspect's own hex key) and \x
// followed by 32 hex digits (a bytea as psql shows it). ok is false when id
// has none of their lengths.
func parseSCRU128Forms(id string) (u idtype.SCRU128, ok bool, err error) {
	switch len(id) {
	case 26, 36:
		u, err = idtype.ParseSCRU128(id)
		return u, true, err
	case 2 + hexLen:
		if id[:2] != `\x` && id[:2] != `\X` {
			return u, false, nil
		}
		u, err = parseHex(id[2:])
		return u, true, err
	case hexLen:
		u, err = parseHex(id)
		return u, true, err
	}
	return u, false, nil
}

const hexLen = 32 // hex digits of 16 bytes

// parseHex decodes 32 hex digits, in either case, into a SCRU128.
func parseHex(digits string) (idtype.SCRU128, error) {
	var u idtype.SCRU128
	for i := 0; i < len(digits); i++ {
		if !isHexDigit(digits[i]) {
			return u, fmt.Errorf("%s is not a hex digit; a SCRU128 in hex is 32 hex digits, optionally after \\x", chars.At(digits, i))
		}
	}
	hex.Decode(u[:], []byte(digits)) // cannot fail: the digits were checked
	return u, nil
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isBase36(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// describe words the warning for an ID read as the SCRU128 id.
func (f foreignUUID) describe(id idtype.SCRU128) string {
	if f.version == 7 && !f.v7Time.IsZero() {
		return fmt.Sprintf("a UUIDv7 (RFC 9562) made at %s, not a SCRU128; read as a SCRU128 its time would be %s",
			f.v7Time.Format(isoMillis), id.Time().Format(isoMillis))
	}
	return fmt.Sprintf("a UUID version %d (RFC 9562), not a SCRU128: read as a SCRU128 its time %s is in the future",
		f.version, id.Time().Format(isoMillis))
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func describeHUID(input string, h idtype.HUID) huidInfo {
	t := h.Time()
	return huidInfo{
		Input:     input,
		Kind:      kindHUID,
		Decimal:   h.String(),
		Padded:    h.PaddedString(),
		Hex:       fmt.Sprintf("%016x", uint64(h)),
		Time:      t.Format(isoMillis),
		UnixMS:    t.UnixMilli(),
		Timestamp: h.Timestamp(),
		Random:    h.Random(),
	}
}

func describeSCRU128(input string, id idtype.SCRU128) scru128Info {
	t := id.Time()
	return scru128Info{
		Input:        input,
		Kind:         kindSCRU128,
		Base32:       id.String(),
		UUID:         id.UUIDString(),
		Hex:          hex.EncodeToString(id[:]),
		Time:         t.Format(isoMillis),
		UnixMS:       t.UnixMilli(),
		Timestamp:    id.Timestamp(),
		Counter:      id.Counter(),
		PerSecRandom: id.PerSecRandom(),
		PerGenRandom: id.PerGenRandom(),
	}
}
