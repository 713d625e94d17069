package main

import (
	"bufio"
	"encoding"
	"fmt"
	"slices"
	"strings"

	"github.com/sortid/sortid/idtype"
)

const newHelp = `Usage: sortid new [huid|scru128] [-n N]

Print N new IDs, one per line (default: one HUID).

  huid     HUID in plain decimal, e.g. 258037077 (the default)
  scru128  SCRU128 in its 26-character base32 form

HUIDs come from idtype's default generator (system clock, crypto/rand); it
never repeats an ID within the run, and the run's HUIDs are printed in
ascending order (made in batches, as idtype.FillHUIDs makes them for a bulk
insert). All SCRU128 IDs of one run come from one generator, so they are
unique and in strictly ascending order.
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
		err = writeSCRU128s(out, *count)
	} else {
		err = writeHUIDs(out, *count)
	}
	if err != nil {
		return err
	}
	return flushOutput(out)
}

// writeSCRU128s writes n SCRU128s to w, one per line: one generator makes
// them in strictly ascending order.
func writeSCRU128s(w *bufio.Writer, n int) error {
	for range n {
		id, err := idtype.GenerateSCRU128()
		if err != nil {
			return err
		}
		if err := writeID(w, id); err != nil {
			return err
		}
	}
	return nil
}

// huidBatch is how many HUIDs writeHUIDs makes with one FillHUIDs call.
const huidBatch = 4096

// writeHUIDs writes n HUIDs to w, one per line, in ascending order. Each
// batch comes sorted from FillHUIDs; the HUIDs of a batch's last
// millisecond are held back and sorted with the next batch, which may hold
// smaller ones of that millisecond, so that the whole run ascends without
// keeping all n in memory. (The generator's millisecond never goes back.)
func writeHUIDs(w *bufio.Writer, n int) error {
	var pending []idtype.HUID
	batch := make([]idtype.HUID, huidBatch)
	for n > 0 {
		k := min(n, huidBatch)
		batch := batch[:k]
		if err := idtype.FillHUIDs(batch); err != nil {
			return err
		}
		n -= k
		pending = append(pending, batch...)
		slices.Sort(pending)
		ready := len(pending)
		if n > 0 {
			last := pending[ready-1].Timestamp()
			for ready > 0 && pending[ready-1].Timestamp() == last {
				ready--
			}
		}
		for _, h := range pending[:ready] {
			if err := writeID(w, h); err != nil {
				return err
			}
		}
		pending = slices.Delete(pending, 0, ready)
	}
	return nil
}

// writeID writes id and a newline to w, appending straight into w's free
// buffer space so that no line allocates.
func writeID[ID encoding.TextAppender](w *bufio.Writer, id ID) error {
	line, err := id.AppendText(w.AvailableBuffer())
	if err != nil {
		return err
	}
	if _, err := w.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("writing output: %w", err)
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
