package main

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/sortid/sortid/idtype"
)

const inspectHelp = `Usage: sortid inspect [ID...]

Decode each ID given as an argument, or, with no arguments, each line of
stdin (blank lines are skipped), and print one JSON object per ID on stdout.
Spaces around an ID are ignored; use -- before IDs that start with "-".

The kind is detected from the text, which is never ambiguous:
  1 to 19 decimal digits            HUID (leading zeros allowed)
  26 base32 characters (0-9, A-V)   SCRU128
  36 characters, 8-4-4-4-12 hex     SCRU128 in UUID form
A SCRU128 text always has 26 characters, more than any HUID's 19 digits.

Keys of a HUID: input, kind ("huid"), decimal, padded (19 digits), hex
(16 digits of the 8 bytes), time (ISO 8601 UTC, milliseconds), unix_ms,
timestamp (ms since 2026-01-01), random.
Keys of a SCRU128: input, kind ("scru128"), base32, uuid, hex (32 digits),
time, unix_ms, timestamp (ms since 2020-01-01), counter, per_sec_random,
per_gen_random.

An invalid ID is named in a warning on stderr; the other IDs are still
printed, and the exit status is 1.
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
	info, err := describe(id)
	if err != nil {
		in.invalid++
		// Flush first so that stdout and stderr, when they share a terminal,
		// show the warning after the IDs that preceded it.
		if err := flushOutput(in.out); err != nil {
			return err
		}
		fmt.Fprintf(in.stderr, "sortid: inspect: %q: %v\n", id, err)
		return nil
	}
	if err := in.enc.Encode(info); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	return nil
}

// describe detects the kind of id from its length and characters and returns
// its JSON form (a huidInfo or a scru128Info).
func describe(id string) (any, error) {
	switch {
	case len(id) == 26 || len(id) == 36:
		u, err := idtype.ParseSCRU128(id)
		if err != nil {
			return nil, err
		}
		return describeSCRU128(id, u), nil
	case isDigits(id):
		h, err := idtype.ParseHUID(id) // rejects more than 19 digits
		if err != nil {
			return nil, err
		}
		return describeHUID(id, h), nil
	}
	return nil, errors.New("not an ID: want a HUID (1 to 19 decimal digits), a SCRU128 (26 base32 characters) or a SCRU128 in UUID form (36 characters)")
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
