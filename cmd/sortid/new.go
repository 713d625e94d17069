package main

import (
	"bufio"
	"encoding"
	"fmt"
	"strings"

	"github.com/sortid/sortid/idtype"
)

const newHelp = `Usage: sortid new [huid|scru128] [-n N]

Print N new IDs, one per line (default: one HUID).

  huid     HUID in plain decimal, e.g. 258037077 (the default)
  scru128  SCRU128 in its 26-character base32 form

HUIDs come from idtype's default generator (system clock, crypto/rand); it
never repeats an ID within the run. All SCRU128 IDs of one run come from one
generator, so they are unique and in strictly ascending order.
`

// outputBufferSize is the stdout buffer of new and inspect: large enough that
// writing millions of IDs costs few system calls.
const outputBufferSize = 64 << 10

// idKind names an ID scheme on the command line.
type idKind string

const (
	kindHUID    idKind = "huid"
	kindSCRU128 idKind = "scru128"
)

// parseKind accepts "huid" or "scru128", in any letter case.
func parseKind(s string) (idKind, error) {
	switch k := idKind(strings.ToLower(s)); k {
	case kindHUID, kindSCRU128:
		return k, nil
	}
	return "", fmt.Errorf("unknown ID kind %s; want huid or scru128", quoteInput(s))
}

func runNew(args []string, s streams) error {
	fs := newFlagSet("new")
	count := fs.Int("n", 1, "number of IDs to print (at least 0)")
	positional, err := parseArgs(fs, args, newHelp)
	if err != nil {
		return err
	}
	kind := kindHUID
	switch len(positional) {
	case 0:
	case 1:
		if kind, err = parseKind(positional[0]); err != nil {
			return &usageError{err}
		}
	default:
		return usagef("want at most one ID kind, got %s", quoteInputs(positional))
	}
	if *count < 0 {
		return usagef("-n %d: the count must be at least 0", *count)
	}

	out := bufio.NewWriterSize(s.stdout, outputBufferSize)
	if kind == kindSCRU128 {
		err = writeIDs(out, *count, idtype.GenerateSCRU128)
	} else {
		err = writeIDs(out, *count, idtype.GenerateHUID)
	}
	if err != nil {
		return err
	}
	return flushOutput(out)
}

// writeIDs writes n IDs from generate to w, one per line. Each line is
// appended straight into w's free buffer space, so no line allocates.
func writeIDs[ID encoding.TextAppender](w *bufio.Writer, n int, generate func() (ID, error)) error {
	for range n {
		id, err := generate()
		if err != nil {
			return err
		}
		line, err := id.AppendText(w.AvailableBuffer())
		if err != nil {
			return err
		}
		if _, err := w.Write(append(line, '\n')); err != nil {
			return fmt.Errorf("writing output: %w", err)
		}
	}
	return nil
}

// flushOutput flushes w, naming the failure as an output error.
func flushOutput(w *bufio.Writer) error {
	if err := w.Flush(); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	return nil
}
