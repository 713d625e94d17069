package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sortid/sortid/idtype"
)

// runInProcess calls run as main would, with stdin and captured output.
func runInProcess(stdin string, args ...string) result {
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(stdin), &stdout, &stderr)
	return result{stdout: stdout.String(), stderr: stderr.String(), code: code}
}

func TestRunExitCodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		args       []string
		stdin      string
		wantCode   int
		wantStdout string // substring
		wantStderr string // substring; "" means stderr must be empty
	}{
		{"no arguments", nil, "", exitUsage, "", "Usage:"},
		{"top help", []string{"help"}, "", exitOK, "sortid odds --rate R", ""},
		{"help for a command", []string{"help", "range"}, "", exitOK, "Usage: sortid range", ""},
		{"unknown command", []string{"mint"}, "", exitUsage, "", `unknown command "mint"`},
		{"new huid", []string{"new", "-n", "3"}, "", exitOK, "\n", ""},
		{"new scru128 flag first", []string{"new", "--n", "2", "scru128"}, "", exitOK, "\n", ""},
		{"new negative", []string{"new", "-n=-3"}, "", exitUsage, "", "-n -3: the count must be at least 0"},
		{"inspect vector", []string{"inspect", specHUID.Input}, "", exitOK, `"random":87381`, ""},
		{"inspect stdin", []string{"inspect"}, specSCRU128.Input + "\n", exitOK, `"counter":192895179`, ""},
		{"inspect mixed", []string{"inspect", "", specHUID.Input}, "", exitFailure, `"decimal":"258037077"`, `sortid: inspect: "": not an ID`},
		{"inspect -0", []string{"inspect", "-0"}, "", exitFailure, "", `sortid: inspect: "-0": idtype: invalid HUID: a negative number`},
		{"inspect -00 after --", []string{"inspect", "--", "-00"}, "", exitFailure, "", `sortid: inspect: "-00": idtype: invalid HUID: a negative number`},
		{"inspect -0 on stdin", []string{"inspect"}, "-0\n", exitFailure, "", `sortid: inspect: "-0": idtype: invalid HUID: a negative number`},
		{"inspect flag-like on stdin", []string{"inspect"}, "-n\n", exitFailure, "", `sortid: inspect: "-n": not an ID: it starts with "-" like a flag`},
		{"inspect count of invalid", []string{"inspect", "x", "y", specHUID.Input}, "", exitFailure, specHUID.Input, "2 of 3 IDs invalid"},
		{"range", []string{"range", "--from", "1767225600000", "--to", "1767225600001"}, "", exitOK, "sql id BETWEEN 0 AND 2097151\n", ""},
		{"range empty", []string{"range", "--from", "1767225600001", "--to", "1767225600000"}, "", exitFailure, "", "invalid time window"},
		{"sql down", []string{"sql", "down"}, "", exitOK, "DROP", ""},
		{"odds", []string{"odds", "--rate", "1000", "--generators", "2"}, "", exitOK, "rate 1000 IDs/s over 2 generators: 0.5 IDs/ms per generator", ""},
		{"odds bad rate", []string{"odds", "--rate", "1e", "--generators", "2"}, "", exitUsage, "", `--rate "1e"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := runInProcess(tt.stdin, tt.args...)
			if r.code != tt.wantCode {
				t.Errorf("exit %d, want %d (stderr %q)", r.code, tt.wantCode, r.stderr)
			}
			if !strings.Contains(r.stdout, tt.wantStdout) {
				t.Errorf("stdout lacks %q:\n%s", tt.wantStdout, r.stdout)
			}
			if tt.wantStderr == "" && r.stderr != "" || !strings.Contains(r.stderr, tt.wantStderr) {
				t.Errorf("stderr %q, want it to contain %q", r.stderr, tt.wantStderr)
			}
		})
	}
}

func TestParseArgsAllowsFlagsAnywhere(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args           []string
		wantPositional []string
		wantN          int
	}{
		{nil, nil, 1},
		{[]string{"scru128"}, []string{"scru128"}, 1},
		{[]string{"scru128", "-n", "5"}, []string{"scru128"}, 5},
		{[]string{"-n", "5", "scru128"}, []string{"scru128"}, 5},
		{[]string{"a", "--n=7", "b"}, []string{"a", "b"}, 7},
		{[]string{"a", "--", "-n", "9"}, []string{"a", "-n", "9"}, 1},
		{[]string{"--", "--"}, []string{"--"}, 1},
	}
	for _, tt := range tests {
		fs := newFlagSet("test")
		n := fs.Int("n", 1, "")
		positional, err := parseArgs(fs, tt.args, "help")
		if err != nil {
			t.Errorf("parseArgs(%q): %v", tt.args, err)
			continue
		}
		if !slices.Equal(positional, tt.wantPositional) || *n != tt.wantN {
			t.Errorf("parseArgs(%q) = %q, n=%d; want %q, n=%d", tt.args, positional, *n, tt.wantPositional, tt.wantN)
		}
	}
}

func TestParseArgsErrors(t *testing.T) {
	t.Parallel()
	var help *helpRequest
	var usage *usageError
	for _, args := range [][]string{{"-h"}, {"x", "--help"}, {"-help"}} {
		if _, err := parseArgs(newFlagSet("test"), args, "help"); !errors.As(err, &help) {
			t.Errorf("parseArgs(%q) = %v, want a helpRequest", args, err)
		}
	}
	for _, args := range [][]string{{"-q"}, {"x", "--unknown=1"}} {
		if _, err := parseArgs(newFlagSet("test"), args, "help"); !errors.As(err, &usage) {
			t.Errorf("parseArgs(%q) = %v, want a usageError", args, err)
		}
	}
}

// describeVectors: an input and the kind describe detects, "" for invalid.
// TestDescribeDetectsKind checks them; FuzzDescribe starts from them.
var describeVectors = []struct {
	input    string
	wantKind idKind // "" for invalid
}{
	{"0", kindHUID},
	{"258037077", kindHUID},
	{"9223372036854775807", kindHUID},
	{"0000000000000000000", kindHUID},
	{"9223372036854775808", ""},                 // 2^63
	{"00000000000000000000", ""},                // 20 digits
	{"12345678901234567890123456", kindSCRU128}, // 26 digits are base32 digits
	{"00QBTG0FERFTCCNFISUBO489DI", kindSCRU128},
	{"00d2fb00-3ddb-7f58-cbbe-5cf2f04425b2", kindSCRU128},
	{"00d2fb003ddb7f58cbbe5cf2f04425b2", kindSCRU128},   // the hex key
	{`\x00d2fb003ddb7f58cbbe5cf2f04425b2`, kindSCRU128}, // psql's bytea
	{"00d2fb003ddb7f58cbbe5cf2f04425bg", ""},
	{`\y00d2fb003ddb7f58cbbe5cf2f04425b2`, ""},
	{"0123456789abcdefghijklmno", ""}, // SCRU128 v2
	{"00d2fb00-3ddb-7f58-cbbe-5cf2f04425bz", ""},
	{"00QBTG0FERFTCCNFISUBO489DW", ""}, // W is not base32hex
	{"", ""},
	{"+1", ""},
	{"1 2", ""},
	{"١٢٣", ""}, // non-ASCII digits
	// No ID starts with "-": a negative number is refused even when its value
	// is 0 (ParseInt reads -0 and -00 as 0, which once printed null), and so
	// is any other input with a leading "-", of any length.
	{"-0", ""},
	{"-00", ""},
	{"-1", ""},
	{"-9223372036854775808", ""},
	{"-9223372036854775809", ""},
	{"-", ""},
	{"--", ""},
	{"-x", ""},
	{"--n=3", ""},
	{"-1234567890123456789012345", ""},       // 26 characters
	{"-0QBTG0FERFTCCNFISUBO489DI", ""},       // 26, base32 after the "-"
	{"-0d2fb003ddb7f58cbbe5cf2f04425b2", ""}, // 32, hex after the "-"
	{"-00d2fb0-3ddb-7f58-cbbe-5cf2f04425b2", ""}, // 36, a UUID's length
}

func TestDescribeDetectsKind(t *testing.T) {
	t.Parallel()
	for _, tt := range describeVectors {
		info, _, err := describe(tt.input, time.Now())
		var kind idKind
		switch info := info.(type) {
		case huidInfo:
			kind = info.Kind
		case scru128Info:
			kind = info.Kind
		}
		if kind != tt.wantKind || (err == nil) != (tt.wantKind != "") {
			t.Errorf("describe(%q) = kind %q, error %v; want kind %q", tt.input, kind, err, tt.wantKind)
		}
	}
}

// FuzzDescribe checks what inspect promises of any input: it is either an
// ID, described with the input it came from, or refused with an error;
// never neither (a nil description with no error printed null and exited
// 0). No ID starts with "-", so such an input is always refused, and a
// negative number is named as one.
func FuzzDescribe(f *testing.F) {
	for _, v := range describeVectors {
		f.Add(v.input)
	}
	f.Fuzz(func(t *testing.T, id string) {
		info, _, err := describe(id, time.Now())
		var input string
		switch info := info.(type) {
		case huidInfo:
			input = info.Input
		case scru128Info:
			input = info.Input
		case nil:
			if err == nil {
				t.Fatalf("describe(%q): no description and no error", id)
			}
			input = id
		default:
			t.Fatalf("describe(%q) = %T", id, info)
		}
		switch {
		case err != nil && info != nil:
			t.Fatalf("describe(%q) = %+v and error %v", id, info, err)
		case input != id:
			t.Fatalf("describe(%q) describes input %q", id, input)
		case strings.HasPrefix(id, "-") && err == nil:
			t.Fatalf("describe(%q) accepted an input starting with \"-\"", id)
		case isNegativeNumber(id) && !strings.Contains(fmt.Sprint(err), "a negative number"):
			t.Fatalf("describe(%q): %v, want it named as a negative number", id, err)
		}
	})
}

func TestIsSQLIdentifier(t *testing.T) {
	t.Parallel()
	tests := map[string]bool{
		"id":                    true,
		"_id":                   true,
		"Created_At2":           true,
		"col$1":                 true,
		"public.events.id":      true,
		"events.id":             true,
		strings.Repeat("a", 63): true,
		strings.Repeat("a", 64): false,
		"":                      false,
		"1id":                   false,
		"$id":                   false,
		"id;":                   false,
		"id--":                  false,
		`"id"`:                  false,
		"events.":               false,
		".id":                   false,
		"e..id":                 false,
		"id name":               false,
		"ïd":                    false,
	}
	for input, want := range tests {
		if got := isSQLIdentifier(input); got != want {
			t.Errorf("isSQLIdentifier(%q) = %v, want %v", input, got, want)
		}
	}
}

func TestParseWindowTime(t *testing.T) {
	t.Parallel()
	tests := []struct {
		input   string
		want    time.Time
		wantErr bool
	}{
		{"1767225600123", time.UnixMilli(1767225600123), false},
		{"0", time.UnixMilli(0), false},
		{"-1", time.UnixMilli(-1), false},
		{"2026-01-01T00:00:00Z", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{"2026-01-01T00:00:00.123456789Z", time.Date(2026, 1, 1, 0, 0, 0, 123456789, time.UTC), false},
		{"2026-01-01T01:00:00.5+01:00", time.Date(2026, 1, 1, 0, 0, 0, 500_000_000, time.UTC), false},
		{"", time.Time{}, true},
		{"2026-01-01 00:00:00Z", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{"1.5", time.Time{}, true},
		{"99999999999999999999", time.Time{}, true},
	}
	for _, tt := range tests {
		got, err := parseWindowTime("--from", tt.input, time.Now())
		var usage *usageError
		if tt.wantErr {
			if !errors.As(err, &usage) {
				t.Errorf("parseWindowTime(%q) = %v, %v; want a usage error", tt.input, got, err)
			}
			continue
		}
		if err != nil || !got.Equal(tt.want) {
			t.Errorf("parseWindowTime(%q) = %v, %v; want %v", tt.input, got, err, tt.want)
		}
	}
}

// TestInspectAnswersBeforeEndOfInput checks that inspect flushes each answer
// while it waits for the next line, so it works interactively.
func TestInspectAnswersBeforeEndOfInput(t *testing.T) {
	t.Parallel()
	stdinReader, stdinWriter := io.Pipe()
	stdoutReader, stdoutWriter := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"inspect"}, stdinReader, stdoutWriter, io.Discard)
		stdoutWriter.Close()
	}()

	answers := bufio.NewReader(stdoutReader)
	for _, id := range []string{specHUID.Input, specSCRU128.Input} {
		if _, err := io.WriteString(stdinWriter, id+"\n"); err != nil {
			t.Fatal(err)
		}
		line, err := answers.ReadString('\n') // blocks until inspect flushes
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(line, `"input":"`+id+`"`) {
			t.Errorf("answer to %s is %s", id, line)
		}
	}
	stdinWriter.Close()
	if rest, _ := io.ReadAll(answers); len(rest) != 0 {
		t.Errorf("unexpected output after the last ID: %q", rest)
	}
	if code := <-done; code != exitOK {
		t.Errorf("exit %d, want 0", code)
	}
}

// failingWriter fails every write, like a closed pipe or a full disk.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestOutputErrorsFail(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"new", "-n", "100000"},
		{"new", "scru128"},
		{"inspect", specHUID.Input},
		{"range", "--from", "1767225600000", "--to", "1767225600001"},
		{"sql"},
		{"odds", "--rate", "1", "--generators", "2"},
	} {
		var stderr bytes.Buffer
		code := run(args, strings.NewReader(""), failingWriter{}, &stderr)
		if code != exitFailure || !strings.Contains(stderr.String(), "writing output: disk full") {
			t.Errorf("sortid %q to a failing stdout: exit %d, stderr %q; want 1 and the write error", args, code, stderr.String())
		}
	}
}

// TestNewManyIDs checks a count far above the output buffer, in process.
func TestNewManyIDs(t *testing.T) {
	t.Parallel()
	const count = 200_000
	r := runInProcess("", "new", "scru128", "-n", "200000")
	r.mustSucceed(t, "new", "scru128", "-n", "200000")
	got := lines(r.stdout)
	if len(got) != count {
		t.Fatalf("got %d lines, want %d", len(got), count)
	}
	if !slices.IsSorted(got) {
		t.Error("SCRU128 lines are not in ascending order")
	}
	if _, err := idtype.ParseSCRU128(got[count-1]); err != nil {
		t.Error(err)
	}
}

// TestNewHUIDsAscend checks that new prints its HUIDs in strictly ascending
// order: a few (likely all of one millisecond, which the generator makes in
// random order) and many more than one FillHUIDs batch.
func TestNewHUIDsAscend(t *testing.T) {
	t.Parallel()
	for _, n := range []string{"5", "100000"} {
		r := runInProcess("", "new", "-n", n)
		r.mustSucceed(t, "new", "-n", n)
		got := lines(r.stdout)
		if want, _ := strconv.Atoi(n); len(got) != want {
			t.Fatalf("new -n %s printed %d lines", n, len(got))
		}
		var previous idtype.HUID = -1
		for i, line := range got {
			h, err := idtype.ParseHUID(line)
			if err != nil {
				t.Fatalf("new -n %s line %d: %v", n, i, err)
			}
			if h <= previous {
				t.Fatalf("new -n %s: line %d %d does not sort above line %d %d", n, i, h, i-1, previous)
			}
			previous = h
		}
	}
}
