package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sortid/sortid/idtype"
	"github.com/sortid/sortid/migrations"
)

// sortidBinary is the path of the sortid binary TestMain builds, so that the
// tests below exercise the real executable: its exit codes, its streams.
var sortidBinary string

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

// buildAndRun builds sortid into a temporary directory, runs the tests and
// removes the directory.
func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "sortid-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "creating a directory for the binary:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	// go test puts its own GOROOT/bin first on PATH, so this is the go command
	// that runs the tests.
	goCmd, err := exec.LookPath("go")
	if err != nil {
		fmt.Fprintln(os.Stderr, "finding the go command:", err)
		return 1
	}
	sortidBinary = filepath.Join(dir, "sortid")
	build := exec.Command(goCmd, "build", "-o", sortidBinary, ".")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

// result is what one run of the binary produced.
type result struct {
	stdout, stderr string
	code           int
}

// runBinary runs the sortid binary with args and stdin, and returns its
// output and exit status. It fails the test when the binary cannot run.
func runBinary(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(sortidBinary, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		t.Fatalf("running sortid %q: %v", args, err)
	}
	return result{stdout: stdout.String(), stderr: stderr.String(), code: cmd.ProcessState.ExitCode()}
}

// mustSucceed fails the test unless r has exit status 0 and an empty stderr.
func (r result) mustSucceed(t *testing.T, args ...string) {
	t.Helper()
	if r.code != exitOK || r.stderr != "" {
		t.Fatalf("sortid %q: exit %d, stderr %q; want 0 and nothing", args, r.code, r.stderr)
	}
}

// lines splits output into its lines, without the final newline.
func lines(output string) []string {
	if output == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(output, "\n"), "\n")
}

func TestBinaryNewHUID(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"new", "-n", "1000"},
		{"new", "huid", "-n", "1000"},
		{"new", "--n=1000", "huid"},
		{"new", "HUID", "-n", "1000"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			before := time.Now().Truncate(time.Millisecond)
			r := runBinary(t, "", args...)
			after := time.Now()
			r.mustSucceed(t, args...)
			got := lines(r.stdout)
			if len(got) != 1000 {
				t.Fatalf("got %d lines, want 1000", len(got))
			}
			seen := make(map[idtype.HUID]bool)
			for _, line := range got {
				h, err := idtype.ParseHUID(line)
				if err != nil {
					t.Fatalf("line %q: %v", line, err)
				}
				if line != h.String() {
					t.Errorf("line %q is not the plain decimal form %q", line, h)
				}
				if seen[h] {
					t.Errorf("HUID %s repeated", h)
				}
				seen[h] = true
				if ht := h.Time(); ht.Before(before) || ht.After(after) {
					t.Errorf("HUID %s has time %v, outside the run [%v, %v]", h, ht, before, after)
				}
			}
		})
	}
}

func TestBinaryNewDefaultIsOneHUID(t *testing.T) {
	t.Parallel()
	r := runBinary(t, "", "new")
	r.mustSucceed(t, "new")
	got := lines(r.stdout)
	if len(got) != 1 {
		t.Fatalf("got %q, want one line", r.stdout)
	}
	if _, err := idtype.ParseHUID(got[0]); err != nil {
		t.Fatal(err)
	}
}

func TestBinaryNewSCRU128AscendingAndUnique(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"new", "scru128", "-n", "1000"},
		{"new", "-n", "1000", "scru128"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			r := runBinary(t, "", args...)
			r.mustSucceed(t, args...)
			got := lines(r.stdout)
			if len(got) != 1000 {
				t.Fatalf("got %d lines, want 1000", len(got))
			}
			var previous idtype.SCRU128
			for i, line := range got {
				id, err := idtype.ParseSCRU128(line)
				if err != nil {
					t.Fatalf("line %d %q: %v", i, line, err)
				}
				if line != id.String() {
					t.Errorf("line %q is not the canonical form %q", line, id)
				}
				// Strictly ascending implies unique.
				if i > 0 && previous.Compare(id) >= 0 {
					t.Fatalf("line %d %s does not sort above line %d %s", i, id, i-1, previous)
				}
				previous = id
			}
		})
	}
}

func TestBinaryNewZero(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"huid", "scru128"} {
		r := runBinary(t, "", "new", kind, "-n", "0")
		r.mustSucceed(t, "new", kind, "-n", "0")
		if r.stdout != "" {
			t.Errorf("new %s -n 0 printed %q", kind, r.stdout)
		}
	}
}

// huidJSON and scru128JSON decode inspect's output independently of the
// structs that produce it, so a renamed key fails the test.
type huidJSON struct {
	Input     string `json:"input"`
	Kind      string `json:"kind"`
	Decimal   string `json:"decimal"`
	Padded    string `json:"padded"`
	Hex       string `json:"hex"`
	Time      string `json:"time"`
	UnixMS    int64  `json:"unix_ms"`
	Timestamp int64  `json:"timestamp"`
	Random    uint32 `json:"random"`
}

type scru128JSON struct {
	Input        string `json:"input"`
	Kind         string `json:"kind"`
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

// decodeStrict decodes one JSON line into v, rejecting unknown keys.
func decodeStrict(t *testing.T, line string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("decoding %s: %v", line, err)
	}
}

// The SCRU128 spec's first example, and the HUID 123 ms after the epoch
// with random part 0x15555.
var (
	specSCRU128 = scru128JSON{
		Input:        "00QBTG0FERFTCCNFISUBO489DI",
		Kind:         "scru128",
		Base32:       "00QBTG0FERFTCCNFISUBO489DI",
		UUID:         "00d2fb00-3ddb-7f58-cbbe-5cf2f04425b2",
		Hex:          "00d2fb003ddb7f58cbbe5cf2f04425b2",
		Time:         "2021-10-17T11:50:39.325Z",
		UnixMS:       1634471439325,
		Timestamp:    56634639325,
		Counter:      192895179,
		PerSecRandom: 0xbe5cf2,
		PerGenRandom: 0xf04425b2,
	}
	specHUID = huidJSON{
		Input:     "258037077",
		Kind:      "huid",
		Decimal:   "258037077",
		Padded:    "0000000000258037077",
		Hex:       "000000000f615555",
		Time:      "2026-01-01T00:00:00.123Z",
		UnixMS:    1767225600123,
		Timestamp: 123,
		Random:    87381,
	}
)

func TestBinaryInspectVectors(t *testing.T) {
	t.Parallel()
	uuidForm := specSCRU128
	uuidForm.Input = "00D2FB00-3DDB-7F58-CBBE-5CF2F04425B2"
	lowerCase := specSCRU128
	lowerCase.Input = "00qbtg0ferftccnfisubo489di"
	padded := specHUID
	padded.Input = "0000000000258037077"
	tests := []struct {
		input string
		want  any
	}{
		{specSCRU128.Input, specSCRU128},
		{uuidForm.Input, uuidForm},
		{lowerCase.Input, lowerCase},
		{specHUID.Input, specHUID},
		{padded.Input, padded},
	}
	args := []string{"inspect"}
	for _, tt := range tests {
		args = append(args, tt.input)
	}
	r := runBinary(t, "", args...)
	r.mustSucceed(t, args...)
	got := lines(r.stdout)
	if len(got) != len(tests) {
		t.Fatalf("got %d lines, want %d:\n%s", len(got), len(tests), r.stdout)
	}
	for i, tt := range tests {
		switch want := tt.want.(type) {
		case huidJSON:
			var decoded huidJSON
			decodeStrict(t, got[i], &decoded)
			if decoded != want {
				t.Errorf("inspect %s:\n got %+v\nwant %+v", tt.input, decoded, want)
			}
		case scru128JSON:
			var decoded scru128JSON
			decodeStrict(t, got[i], &decoded)
			if decoded != want {
				t.Errorf("inspect %s:\n got %+v\nwant %+v", tt.input, decoded, want)
			}
		}
	}
}

func TestBinaryInspectRoundTripsNewIDs(t *testing.T) {
	t.Parallel()
	huids := runBinary(t, "", "new", "-n", "50")
	scru128s := runBinary(t, "", "new", "scru128", "-n", "50")
	r := runBinary(t, huids.stdout+scru128s.stdout, "inspect")
	r.mustSucceed(t, "inspect")
	inputs := append(lines(huids.stdout), lines(scru128s.stdout)...)
	got := lines(r.stdout)
	if len(got) != len(inputs) {
		t.Fatalf("got %d lines for %d IDs", len(got), len(inputs))
	}
	for i, input := range inputs {
		if i < 50 {
			var decoded huidJSON
			decodeStrict(t, got[i], &decoded)
			h := idtype.MustParseHUID(input)
			if decoded.Decimal != input || decoded.UnixMS != h.Time().UnixMilli() || decoded.Random != h.Random() {
				t.Errorf("inspect %s gave %+v", input, decoded)
			}
			continue
		}
		var decoded scru128JSON
		decodeStrict(t, got[i], &decoded)
		id := idtype.MustParseSCRU128(input)
		if decoded.Base32 != input || decoded.UUID != id.UUIDString() || decoded.Counter != id.Counter() ||
			decoded.PerGenRandom != id.PerGenRandom() || decoded.UnixMS != id.Time().UnixMilli() {
			t.Errorf("inspect %s gave %+v", input, decoded)
		}
	}
}

func TestBinaryInspectInvalidInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		stdin       string
		args        []string
		wantInputs  []string // the inputs of the JSON lines, in order
		wantWarning []string // each must be named on stderr
	}{
		{
			name:        "arguments",
			args:        []string{"inspect", "258037077", "xyz", specSCRU128.Input, "9223372036854775808"},
			wantInputs:  []string{"258037077", specSCRU128.Input},
			wantWarning: []string{`"xyz"`, `"9223372036854775808"`},
		},
		{
			name:        "stdin with blank lines and CRLF",
			stdin:       "258037077\r\n\n   \nnot-an-id\n" + specSCRU128.UUID + "\n8VVVVVVVVVVVVVVVVVVVVVVVVV\n",
			args:        []string{"inspect"},
			wantInputs:  []string{"258037077", specSCRU128.UUID},
			wantWarning: []string{`"not-an-id"`, `"8VVVVVVVVVVVVVVVVVVVVVVVVV"`},
		},
		{
			name:        "stdin without final newline",
			stdin:       "-1\n258037077",
			args:        []string{"inspect"},
			wantInputs:  []string{"258037077"},
			wantWarning: []string{`"-1"`},
		},
		{
			name:        "flags after -- are IDs",
			args:        []string{"inspect", "--", "-5", "258037077"},
			wantInputs:  []string{"258037077"},
			wantWarning: []string{`"-5"`},
		},
		{
			name:        "negative numbers are IDs, not flags",
			args:        []string{"inspect", "-5", "258037077", "-9223372036854775808"},
			wantInputs:  []string{"258037077"},
			wantWarning: []string{`"-5": idtype: invalid HUID`, `"-9223372036854775808": idtype: invalid HUID`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := runBinary(t, tt.stdin, tt.args...)
			if r.code != exitFailure {
				t.Errorf("exit %d, want %d", r.code, exitFailure)
			}
			got := lines(r.stdout)
			if len(got) != len(tt.wantInputs) {
				t.Fatalf("stdout has %d lines, want %d:\n%s", len(got), len(tt.wantInputs), r.stdout)
			}
			for i, line := range got {
				var decoded struct{ Input string }
				if err := json.Unmarshal([]byte(line), &decoded); err != nil {
					t.Fatalf("decoding %s: %v", line, err)
				}
				if decoded.Input != tt.wantInputs[i] {
					t.Errorf("line %d is for %q, want %q", i, decoded.Input, tt.wantInputs[i])
				}
			}
			for _, name := range tt.wantWarning {
				if !strings.Contains(r.stderr, "sortid: inspect: "+name+": ") {
					t.Errorf("stderr does not warn about %s:\n%s", name, r.stderr)
				}
			}
		})
	}
}

func TestBinaryRange(t *testing.T) {
	t.Parallel()
	tests := []struct {
		from, to string
		fromTime time.Time
		toTime   time.Time
	}{
		{"2026-03-01T00:00:00Z", "2026-03-02T00:00:00Z",
			time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)},
		{"2026-03-01T09:30:00.2505+01:00", "2026-03-01T09:30:01.5+01:00",
			time.Date(2026, 3, 1, 8, 30, 0, 250_500_000, time.UTC), time.Date(2026, 3, 1, 8, 30, 1, 500_000_000, time.UTC)},
		{"1767225600000", "1767225600001", time.UnixMilli(1767225600000), time.UnixMilli(1767225600001)},
		{"2026-01-01T00:00:00.0001Z", "2026-01-01T00:00:00.0009Z",
			time.Date(2026, 1, 1, 0, 0, 0, 100_000, time.UTC), time.Date(2026, 1, 1, 0, 0, 0, 900_000, time.UTC)},
		{"1767225600123", "2026-01-01T00:00:01Z", time.UnixMilli(1767225600123), time.UnixMilli(1767225601000)},
	}
	for _, tt := range tests {
		t.Run("huid "+tt.from+" "+tt.to, func(t *testing.T) {
			t.Parallel()
			args := []string{"range", "--from", tt.from, "--to", tt.to}
			r := runBinary(t, "", args...)
			r.mustSucceed(t, args...)
			wantLo, wantHi, err := idtype.HUIDRange(tt.fromTime, tt.toTime)
			if err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("lo  %d\nhi  %d\nsql id BETWEEN %d AND %d\n", wantLo, wantHi, wantLo, wantHi)
			if r.stdout != want {
				t.Fatalf("got\n%s\nwant\n%s", r.stdout, want)
			}
			checkWindowBounds(t, wantLo.Time(), wantHi.Time(), tt.fromTime, tt.toTime)
			if wantLo.Random() != 0 || wantHi.Random() != idtype.HUIDMaxRandom {
				t.Errorf("lo %s or hi %s do not span the random parts", wantLo, wantHi)
			}
		})
		t.Run("scru128 "+tt.from+" "+tt.to, func(t *testing.T) {
			t.Parallel()
			args := []string{"range", "--kind", "scru128", "--from", tt.from, "--to", tt.to, "--column", "events.id"}
			r := runBinary(t, "", args...)
			r.mustSucceed(t, args...)
			fields := keyValues(t, r.stdout)
			lo, hi := idtype.MustParseSCRU128(fields["lo"]), idtype.MustParseSCRU128(fields["hi"])
			wantLo, wantHi, err := idtype.SCRU128Range(tt.fromTime, tt.toTime)
			if err != nil {
				t.Fatal(err)
			}
			if lo != wantLo || hi != wantHi {
				t.Errorf("lo, hi = %s, %s; want %s, %s", lo, hi, wantLo, wantHi)
			}
			if fields["lo_uuid"] != lo.UUIDString() || fields["hi_uuid"] != hi.UUIDString() {
				t.Errorf("UUID forms %q, %q do not match lo, hi", fields["lo_uuid"], fields["hi_uuid"])
			}
			wantSQL := fmt.Sprintf("events.id BETWEEN '%s'::uuid AND '%s'::uuid", lo.UUIDString(), hi.UUIDString())
			if fields["sql"] != wantSQL {
				t.Errorf("sql = %q, want %q", fields["sql"], wantSQL)
			}
			checkWindowBounds(t, lo.Time(), hi.Time(), tt.fromTime, tt.toTime)
		})
	}
}

// checkWindowBounds checks that lo and hi are the first and last millisecond
// overlapping [from, to).
func checkWindowBounds(t *testing.T, lo, hi, from, to time.Time) {
	t.Helper()
	if !lo.Add(time.Millisecond).After(from) || lo.After(from) {
		t.Errorf("lo time %v is not the first millisecond overlapping [%v, ...)", lo, from)
	}
	if !hi.Before(to) || hi.Add(time.Millisecond).Before(to) {
		t.Errorf("hi time %v is not the last millisecond before %v", hi, to)
	}
}

// keyValues parses range output: each line a key, spaces, and a value.
func keyValues(t *testing.T, output string) map[string]string {
	t.Helper()
	fields := make(map[string]string)
	for _, line := range lines(output) {
		key, value, ok := strings.Cut(line, " ")
		if !ok {
			t.Fatalf("line %q has no value", line)
		}
		fields[key] = strings.TrimLeft(value, " ")
	}
	return fields
}

func TestBinaryRangeRuntimeErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"range", "--from", "2026-03-02T00:00:00Z", "--to", "2026-03-01T00:00:00Z"}, "invalid time window"},
		{[]string{"range", "--from", "1767225600000", "--to", "1767225600000"}, "invalid time window"},
		{[]string{"range", "--from", "2026-01-01T00:00:00.0009Z", "--to", "2026-01-01T00:00:00.0001Z"}, "invalid time window"},
		{[]string{"range", "--from", "2025-12-31T23:59:59Z", "--to", "2026-01-02T00:00:00Z"}, "outside HUID's window"},
		{[]string{"range", "--kind", "scru128", "--from", "2019-12-31T00:00:00Z", "--to", "2020-01-02T00:00:00Z"}, "outside SCRU128's window"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			r := runBinary(t, "", tt.args...)
			if r.code != exitFailure || r.stdout != "" || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 1, no output, stderr containing %q",
					r.code, r.stdout, r.stderr, tt.want)
			}
		})
	}
}

func TestBinarySQL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args     []string
		want     string
		contains string
	}{
		{[]string{"sql"}, "BEGIN;\n" + migrations.Up() + "COMMIT;\n", "huid_generate"},
		{[]string{"sql", "up"}, "BEGIN;\n" + migrations.Up() + "COMMIT;\n", "huid_generate"},
		{[]string{"sql", "down"}, "BEGIN;\n" + migrations.Down() + "COMMIT;\n", "DROP"},
	}
	for _, tt := range tests {
		r := runBinary(t, "", tt.args...)
		r.mustSucceed(t, tt.args...)
		if strings.TrimSuffix(r.stdout, "\n") != strings.TrimSuffix(tt.want, "\n") || !strings.HasSuffix(r.stdout, "\n") {
			t.Errorf("sortid %q does not print the migration text in BEGIN/COMMIT with a final newline", tt.args)
		}
		if !strings.Contains(r.stdout, tt.contains) {
			t.Errorf("sortid %q output lacks %q", tt.args, tt.contains)
		}
	}
}

func TestBinaryOdds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		rate       float64
		generators int
	}{
		{10000, 4},
		{1e6, 64},
		{2.5, 1},
		{0, 3},
	}
	for _, tt := range tests {
		args := []string{"odds", "--rate", fmt.Sprint(tt.rate), "--generators", fmt.Sprint(tt.generators)}
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			r := runBinary(t, "", args...)
			r.mustSucceed(t, args...)
			for scheme, estimate := range map[string]func(float64, int) (idtype.CollisionEstimate, error){
				"HUID":    idtype.HUIDCollisions,
				"SCRU128": idtype.SCRU128Collisions,
			} {
				est, err := estimate(tt.rate, tt.generators)
				if err != nil {
					t.Fatal(err)
				}
				want := []string{scheme, formatNumber(est.IDsPerMillisecondEach),
					formatNumber(est.PerMillisecond), formatNumber(est.PerDay), formatNumber(est.PerYear)}
				if got := tableRow(r.stdout, scheme); !slices.Equal(got, want) {
					t.Errorf("%s row = %q, want %q", scheme, got, want)
				}
			}
			for _, assumption := range []string{"spread evenly", "never repeats its own IDs",
				"database session", "independent and uniform", "pair of equal IDs"} {
				if !strings.Contains(r.stdout, assumption) {
					t.Errorf("output does not state the assumption %q", assumption)
				}
			}
		})
	}
}

// tableRow returns the whitespace-separated cells of the line of output
// that starts with scheme.
func tableRow(output, scheme string) []string {
	for _, line := range lines(output) {
		if cells := strings.Fields(line); len(cells) > 0 && cells[0] == scheme {
			return cells
		}
	}
	return nil
}

func TestBinaryHelp(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-h"}, "Usage:\n  sortid new"},
		{[]string{"--help"}, "Usage:\n  sortid new"},
		{[]string{"help"}, "Usage:\n  sortid new"},
		{[]string{"help", "odds"}, "Usage: sortid odds"},
		{[]string{"new", "-h"}, "Usage: sortid new"},
		{[]string{"new", "scru128", "--help"}, "Usage: sortid new"},
		{[]string{"inspect", "-h"}, "Usage: sortid inspect"},
		{[]string{"range", "-h"}, "Usage: sortid range"},
		{[]string{"sql", "-h"}, "Usage: sortid sql"},
		{[]string{"odds", "-h"}, "Usage: sortid odds"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			r := runBinary(t, "", tt.args...)
			r.mustSucceed(t, tt.args...)
			if !strings.Contains(r.stdout, tt.want) {
				t.Errorf("stdout lacks %q:\n%s", tt.want, r.stdout)
			}
		})
	}
}

func TestBinaryBadArguments(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string // on stderr
	}{
		{nil, "Usage:"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"help", "frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"new", "-n", "-1"}, "at least 0"},
		{[]string{"new", "-n", "ten"}, `invalid value "ten"`},
		{[]string{"new", "-n", "1.5"}, `invalid value "1.5"`},
		{[]string{"new", "-n"}, "flag needs an argument"},
		{[]string{"new", "uuid"}, `unknown ID kind "uuid"`},
		{[]string{"new", "huid", "scru128"}, "at most one ID kind"},
		{[]string{"new", "-x"}, "flag provided but not defined: -x"},
		{[]string{"inspect", "-x"}, "flag provided but not defined: -x"},
		{[]string{"new", "-5"}, `unknown ID kind "-5"`},
		{[]string{"range", "--to", "2026-03-01T00:00:00Z"}, "--from is required"},
		{[]string{"range", "--from", "yesterday", "--to", "1767225600000"}, `--from "yesterday" is not a time`},
		{[]string{"range", "--from", "1", "--to", "2", "--kind", "ulid"}, `unknown ID kind "ulid"`},
		{[]string{"range", "--from", "1", "--to", "2", "--column", "id; DROP TABLE t"}, "not a plain SQL identifier"},
		{[]string{"range", "--from", "1", "--to", "2", "extra"}, "unexpected arguments"},
		{[]string{"sql", "sideways"}, `unknown direction "sideways"`},
		{[]string{"sql", "up", "down"}, "at most one direction"},
		{[]string{"odds", "--generators", "2"}, "--rate is required"},
		{[]string{"odds", "--rate", "100"}, "--generators is required"},
		{[]string{"odds", "--rate", "-1", "--generators", "2"}, `--rate "-1"`},
		{[]string{"odds", "--rate", "lots", "--generators", "2"}, `--rate "lots"`},
		{[]string{"odds", "--rate", "NaN", "--generators", "2"}, `--rate "NaN"`},
		{[]string{"odds", "--rate", "+Inf", "--generators", "2"}, `--rate "+Inf"`},
		{[]string{"odds", "--rate", "100", "--generators", "0"}, "--generators 0"},
		{[]string{"odds", "--rate", "100", "--generators", "two"}, `invalid value "two"`},
		{[]string{"odds", "--rate", "1e10", "--generators", "1"}, "exceeds"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			r := runBinary(t, "", tt.args...)
			if r.code != exitUsage {
				t.Errorf("exit %d, want %d", r.code, exitUsage)
			}
			if r.stdout != "" {
				t.Errorf("stdout %q, want nothing", r.stdout)
			}
			if !strings.Contains(r.stderr, tt.want) {
				t.Errorf("stderr lacks %q:\n%s", tt.want, r.stderr)
			}
		})
	}
}
