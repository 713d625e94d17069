// Command sortid generates, inspects and queries time-sortable IDs: HUID
// (63-bit, PostgreSQL bigint) and SCRU128 (128-bit, PostgreSQL uuid).
//
// Usage:
//
//	sortid new [huid|scru128] [-n N]
//	sortid inspect [ID...]
//	sortid range --from T [--to T] [--kind huid|scru128] [--column NAME]
//	sortid sql [up|down]
//	sortid odds --rate R --generators G
//	sortid version (or sortid --version)
//
// Data goes to stdout, errors and warnings to stderr. The exit status is 0 on
// full success, 1 when something failed at run time (an invalid ID, a time
// outside an ID scheme's window, an I/O error) and 2 for bad usage. Help
// (-h on any command, or sortid help [COMMAND]) goes to stdout with status 0.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// Exit statuses.
const (
	exitOK      = 0
	exitFailure = 1 // a run-time failure: invalid ID, time out of range, I/O error
	exitUsage   = 2 // bad command line
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// streams are the standard streams a command reads and writes.
type streams struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// command is one subcommand of sortid.
type command struct {
	name    string
	summary string // one line for the top-level usage
	run     func(args []string, s streams) error
}

// commands lists the subcommands in the order the top-level usage shows them.
var commands = []command{
	{"new", "print new IDs, one per line", runNew},
	{"inspect", "decode IDs (arguments or stdin lines) into JSON", runInspect},
	{"range", "lowest and highest ID of a time window, and a SQL condition", runRange},
	{"sql", "print the PostgreSQL migration SQL", runSQL},
	{"odds", "expected HUID and SCRU128 collisions (birthday bound)", runOdds},
	{"version", "print the version of sortid", runVersion},
}

const topUsage = `sortid - time-sortable IDs (HUID, SCRU128) for Go and PostgreSQL

Usage:
  sortid new [huid|scru128] [-n N]
  sortid inspect [ID...]
  sortid range --from T [--to T] [--kind huid|scru128] [--column NAME]
  sortid sql [up|down]
  sortid odds --rate R --generators G
  sortid version (or sortid --version)
  sortid help [COMMAND]

Commands:
`

const topUsageFooter = `
Run 'sortid COMMAND -h' for a command's details. Flags may come before or
after positional arguments and may be written -flag or --flag.

Data goes to stdout, errors and warnings to stderr. Exit status: 0 on full
success, 1 on a run-time failure (an invalid ID, a time outside an ID
scheme's window, an I/O error), 2 on bad usage. Help goes to stdout, status 0.
`

// run executes the command line args (without the program name) and returns
// the exit status. It is main without the process: tests call it directly.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	s := streams{stdin: stdin, stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		printTopUsage(stderr)
		return exitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "-h", "-help", "--help", "help":
		if name == "help" && len(rest) > 0 {
			return dispatch(rest[0], []string{"-h"}, s)
		}
		printTopUsage(stdout)
		return exitOK
	case "-version", "--version":
		name = "version"
	}
	return dispatch(name, rest, s)
}

// dispatch runs the subcommand called name and maps its error to an exit
// status, reporting the error on stderr.
func dispatch(name string, args []string, s streams) int {
	cmd, ok := lookupCommand(name)
	if !ok {
		fmt.Fprintf(s.stderr, "sortid: unknown command %s\n\n", quoteInput(name))
		printTopUsage(s.stderr)
		return exitUsage
	}
	err := cmd.run(args, s)
	var help *helpRequest
	var usage *usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &help):
		help.print(s.stdout)
		return exitOK
	case errors.As(err, &usage):
		fmt.Fprintf(s.stderr, "sortid: %s: %v\nRun 'sortid %s -h' for usage.\n", name, usage.err, name)
		return exitUsage
	default:
		fmt.Fprintf(s.stderr, "sortid: %s: %v\n", name, err)
		return exitFailure
	}
}

func lookupCommand(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func printTopUsage(w io.Writer) {
	var b strings.Builder
	b.WriteString(topUsage)
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-8s %s\n", c.name, c.summary)
	}
	b.WriteString(topUsageFooter)
	io.WriteString(w, b.String())
}

// helpRequest is returned by a command whose arguments asked for help; the
// help text goes to stdout and the exit status is 0.
type helpRequest struct {
	fs   *flag.FlagSet
	text string // synopsis and description, before the flag list
}

func (h *helpRequest) Error() string { return "help requested" }

func (h *helpRequest) print(w io.Writer) {
	io.WriteString(w, h.text)
	if hasFlags(h.fs) {
		io.WriteString(w, "\nFlags:\n")
		h.fs.SetOutput(w)
		h.fs.PrintDefaults()
	}
}

func hasFlags(fs *flag.FlagSet) bool {
	found := false
	fs.VisitAll(func(*flag.Flag) { found = true })
	return found
}

// usageError is a bad command line; it makes the exit status 2.
type usageError struct{ err error }

func (u *usageError) Error() string { return u.err.Error() }
func (u *usageError) Unwrap() error { return u.err }

// usagef returns a usageError with a formatted message.
func usagef(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// newFlagSet returns a flag set for a subcommand that reports nothing by
// itself: parseArgs turns its errors into helpRequest or usageError, so that
// help goes to stdout and errors to stderr in sortid's own format.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("sortid "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseArgs parses args with fs, allowing flags after positional arguments
// (the flag package alone stops at the first non-flag), and returns the
// positional arguments. After "--" everything is positional, and so is a
// negative number such as -5 where a flag could stand (no flag is named by
// digits), so that it reaches the command as an input. help is the
// command's help text, returned in a helpRequest for -h or --help.
func parseArgs(fs *flag.FlagSet, args []string, help string) ([]string, error) {
	all := args
	var positional []string
	for {
		if len(args) > 0 && isNegativeNumber(args[0]) && fs.Lookup(args[0][1:]) == nil {
			positional = append(positional, args[0])
			args = args[1:]
			continue
		}
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, &helpRequest{fs: fs, text: help}
			}
			return nil, &usageError{errors.New(truncateEchoes(err.Error(), all))}
		}
		rest := fs.Args()
		consumed := len(args) - len(rest)
		if consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), nil
		}
		if len(rest) == 0 {
			return positional, nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// isNegativeNumber reports whether s is a minus sign followed by digits.
func isNegativeNumber(s string) bool {
	return len(s) > 1 && s[0] == '-' && isDigits(s[1:])
}
