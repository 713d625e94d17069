package main

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sortid/sortid/idtype"
)

// uuidV7 returns the UUID form of a version 7 UUID made at t, with fixed
// random bits so that expected output is exact.
func uuidV7(t time.Time) string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[0:8], uint64(t.UnixMilli())<<16|0x7123)
	binary.BigEndian.PutUint64(b[8:16], 0x9abcdef012345678) // variant 10
	return idtype.SCRU128(b).UUIDString()
}

// scru128Time is the SCRU128 reading of a UUID, as inspect prints it.
func scru128Time(uuid string) string {
	return idtype.MustParseSCRU128(uuid).Time().Format("2006-01-02T15:04:05.000Z")
}

func TestBinaryInspectForeignUUIDs(t *testing.T) {
	t.Parallel()
	now := time.Now().UTC().Truncate(time.Millisecond)
	v7Warning := func(made time.Time) string {
		u := uuidV7(made)
		return fmt.Sprintf("sortid: inspect: %q: warning: a UUIDv7 (RFC 9562) made at %s, not a SCRU128; read as a SCRU128 its time would be %s\n",
			u, made.Format("2006-01-02T15:04:05.000Z"), scru128Time(u))
	}
	const v4Future = "d3e2062e-fef6-4ca6-b3b0-319e0ae65289" // SCRU128 reading: 2481
	tests := []struct {
		name       string
		input      string
		wantStderr string
	}{
		{"UUIDv7 made now", uuidV7(now), v7Warning(now)},
		{"UUIDv7 at the earliest accepted time", uuidV7(uuidv7Earliest), v7Warning(uuidv7Earliest)},
		{"UUIDv7 a millisecond before it", uuidV7(uuidv7Earliest.Add(-time.Millisecond)), ""},
		{"UUIDv7 23 h ahead", uuidV7(now.Add(23 * time.Hour)), v7Warning(now.Add(23 * time.Hour))},
		{"UUIDv7 25 h ahead", uuidV7(now.Add(25 * time.Hour)), ""},
		{"SCRU128 spec vector with v7 bits (reads as 1998)", specSCRU128.UUID, ""},
		{"UUIDv4 whose SCRU128 time is in the future", v4Future,
			`sortid: inspect: "` + v4Future + `": warning: a UUID version 4 (RFC 9562), not a SCRU128: read as a SCRU128 its time 2481-05-27T02:28:08.303Z is in the future` + "\n"},
		{"UUIDv6 (SCRU128 reading 2087)", "1f0ced6a-bc1e-6f2a-8000-0242ac120002",
			`sortid: inspect: "1f0ced6a-bc1e-6f2a-8000-0242ac120002": warning: a UUID version 6 (RFC 9562), not a SCRU128: read as a SCRU128 its time ` + scru128Time("1f0ced6a-bc1e-6f2a-8000-0242ac120002") + " is in the future\n"},
		{"version 4 bits, SCRU128 time in the past", "00d2fb00-3ddb-4f58-8bbe-5cf2f04425b2", ""},
		{"future time, variant 11", "d3e2062e-fef6-4ca6-f3b0-319e0ae65289", ""},
		{"future time, variant 10, version 9", "d3e2062e-fef6-9ca6-b3b0-319e0ae65289", ""},
		{"future time, variant 10, version 0", "d3e2062e-fef6-0ca6-b3b0-319e0ae65289", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := runBinary(t, "", "inspect", tt.input)
			id := idtype.MustParseSCRU128(tt.input)
			wantStdout := fmt.Sprintf(`{"input":%q,"kind":"scru128","base32":%q,"uuid":%q,"hex":%q,"time":%q,"unix_ms":%d,"timestamp":%d,"counter":%d,"per_sec_random":%d,"per_gen_random":%d}`+"\n",
				tt.input, id.String(), id.UUIDString(), strings.ReplaceAll(id.UUIDString(), "-", ""), scru128Time(tt.input),
				id.Time().UnixMilli(), id.Timestamp(), id.Counter(), id.PerSecRandom(), id.PerGenRandom())
			if r.code != exitOK || r.stdout != wantStdout || r.stderr != tt.wantStderr {
				t.Errorf("sortid inspect %s:\nexit %d, stdout %q, stderr %q\nwant 0, %q, %q",
					tt.input, r.code, r.stdout, r.stderr, wantStdout, tt.wantStderr)
			}
		})
	}
}

func TestDetectForeignUUIDBoundaries(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	latest := now.Add(clockSkew)
	// v4At is a version 4 UUID whose SCRU128 reading is t.
	v4At := func(t time.Time) idtype.SCRU128 {
		id, err := idtype.SCRU128FromFields(uint64(t.UnixMilli()-idtype.SCRU128EpochMillis), 0, 0, 0)
		if err != nil {
			panic(err)
		}
		id[6] |= 0x40 // version 4, in the counter's bits
		id[8] |= 0x80 // variant 10, in per_sec_random's bits
		return id
	}
	withV7Bits := func(t time.Time) idtype.SCRU128 {
		id := v4At(t)
		id[6] = 0x70 | id[6]&0x0f
		return id
	}
	tests := []struct {
		name        string
		id          idtype.SCRU128
		wantVersion int // 0: not foreign
	}{
		{"v7 at now", idtype.MustParseSCRU128(uuidV7(now)), 7},
		{"v7 at now+skew", idtype.MustParseSCRU128(uuidV7(latest)), 7},
		{"v7 at now+skew+1ms", idtype.MustParseSCRU128(uuidV7(latest.Add(time.Millisecond))), 0},
		{"v7 at 2020-01-01", idtype.MustParseSCRU128(uuidV7(uuidv7Earliest)), 7},
		{"v7 at 2020-01-01 minus 1ms", idtype.MustParseSCRU128(uuidV7(uuidv7Earliest.Add(-time.Millisecond))), 0},
		{"v4 read at now+skew", v4At(latest), 0},
		{"v4 read at now+skew+1ms", v4At(latest.Add(time.Millisecond)), 4},
		{"v4 read at now", v4At(now), 0},
		// A SCRU128 of 2023-05 reads as a UUIDv7 of 2023-04: in the window
		// the README says cannot be told apart. One of 2023-01 reads as 2018.
		{"SCRU128 of 2023-05-01 with v7 bits", withV7Bits(time.Date(2023, 5, 1, 0, 0, 0, 0, time.UTC)), 7},
		{"SCRU128 of 2023-01-01 with v7 bits", withV7Bits(time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC)), 0},
	}
	for _, tt := range tests {
		got, ok := detectForeignUUID(tt.id, now)
		if ok != (tt.wantVersion != 0) || got.version != tt.wantVersion {
			t.Errorf("%s: detectForeignUUID(%s) = %+v, %v; want version %d", tt.name, tt.id.UUIDString(), got, ok, tt.wantVersion)
		}
	}
}

// TestBinaryInspectNoFalseAlarm feeds fresh SCRU128s through one inspect
// run: 100 000 from sortid new, whose counters move slowly so few carry the
// UUIDv7 bits, and 20 000 with random fields at the current time, of which
// about 1 in 64 do. None may be reported as a UUID.
func TestBinaryInspectNoFalseAlarm(t *testing.T) {
	t.Parallel()
	fresh := runBinary(t, "", "new", "scru128", "-n", "100000")
	fresh.mustSucceed(t, "new", "scru128", "-n", "100000")
	var input strings.Builder
	input.WriteString(fresh.stdout)
	withV7Bits := 0
	now := uint64(time.Now().UnixMilli() - idtype.SCRU128EpochMillis)
	for range 20_000 {
		var r [12]byte
		rand.Read(r[:])
		id, err := idtype.SCRU128FromFields(now, binary.BigEndian.Uint32(r[0:4])&idtype.SCRU128MaxCounter,
			binary.BigEndian.Uint32(r[4:8])&idtype.SCRU128MaxPerSecRandom, binary.BigEndian.Uint32(r[8:12]))
		if err != nil {
			t.Fatal(err)
		}
		if id[6]>>4 == 7 && id[8]>>6 == 0b10 {
			withV7Bits++
		}
		input.WriteString(id.String() + "\n")
	}
	if withV7Bits < 100 {
		t.Fatalf("only %d of 20000 random SCRU128s carry the v7 bits; the test does not test", withV7Bits)
	}
	r := runBinary(t, input.String(), "inspect")
	r.mustSucceed(t, "inspect")
	if n := len(lines(r.stdout)); n != 120_000 {
		t.Errorf("%d JSON lines, want 120000", n)
	}
}

func TestBinaryInspectBytesForms(t *testing.T) {
	t.Parallel()
	const hexForm = "00d2fb003ddb7f58cbbe5cf2f04425b2"
	tests := []string{hexForm, strings.ToUpper(hexForm), `\x` + hexForm, `\X` + strings.ToUpper(hexForm)}
	args := append([]string{"inspect"}, tests...)
	r := runBinary(t, "", args...)
	r.mustSucceed(t, args...)
	got := lines(r.stdout)
	if len(got) != len(tests) {
		t.Fatalf("got %d lines, want %d", len(got), len(tests))
	}
	for i, input := range tests {
		want := specSCRU128
		want.Input = input
		var decoded scru128JSON
		decodeStrict(t, got[i], &decoded)
		if decoded != want {
			t.Errorf("inspect %s:\n got %+v\nwant %+v", input, decoded, want)
		}
	}

	// inspect reads its own hex key back.
	again := runBinary(t, "", "inspect", specSCRU128.Hex)
	again.mustSucceed(t, "inspect", specSCRU128.Hex)
	var decoded scru128JSON
	decodeStrict(t, again.stdout, &decoded)
	if want := specSCRU128; decoded.Base32 != want.Base32 || decoded.Hex != want.Hex {
		t.Errorf("inspect of the hex key gave %+v", decoded)
	}
}

// The refusals of an input starting with "-" (errDashInput).
const (
	negativeNumber = `idtype: invalid HUID: a negative number (a minus sign and digits, -0 included); a HUID is 1 to 19 decimal digits without a sign, in [0, 2^63-1]`
	flagLike       = `not an ID: it starts with "-" like a flag, and no ID does (inspect's only flag is -h); want a HUID (1 to 19 decimal digits), a SCRU128 (26 base32 characters), or a SCRU128 as a UUID (36 characters), as 32 hex digits or as \x and 32 hex digits`
)

// TestBinaryInspectRefusesDashInputs: -0 and -00 once printed null with
// exit status 0, as ParseInt reads them as 0. Given as arguments (where
// parseArgs passes a negative number on as an input), after --, or on
// stdin, every input starting with "-" is refused with exit status 1, named,
// and nothing is printed on stdout.
func TestBinaryInspectRefusesDashInputs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		stdin      string
		args       []string
		wantStderr string
	}{
		{"-0", "", []string{"inspect", "-0"},
			`sortid: inspect: "-0": ` + negativeNumber + "\nsortid: inspect: 1 of 1 IDs invalid\n"},
		{"-00 and -0 and -5", "", []string{"inspect", "-00", "-0", "-5"},
			`sortid: inspect: "-00": ` + negativeNumber + "\n" + `sortid: inspect: "-0": ` + negativeNumber + "\n" +
				`sortid: inspect: "-5": ` + negativeNumber + "\nsortid: inspect: 3 of 3 IDs invalid\n"},
		{"after --", "", []string{"inspect", "--", "-0", "-x", "--"},
			`sortid: inspect: "-0": ` + negativeNumber + "\n" + `sortid: inspect: "-x": ` + flagLike + "\n" +
				`sortid: inspect: "--": ` + flagLike + "\nsortid: inspect: 3 of 3 IDs invalid\n"},
		{"stdin", "-0\n-00\r\n  -0  \n--n=3\n", []string{"inspect"},
			`sortid: inspect: "-0": ` + negativeNumber + "\n" + `sortid: inspect: "-00": ` + negativeNumber + "\n" +
				`sortid: inspect: "-0": ` + negativeNumber + "\n" + `sortid: inspect: "--n=3": ` + flagLike + "\nsortid: inspect: 4 of 4 IDs invalid\n"},
		{"stdin without final newline", "-0", []string{"inspect"},
			`sortid: inspect: "-0": ` + negativeNumber + "\nsortid: inspect: 1 of 1 IDs invalid\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := runBinary(t, tt.stdin, tt.args...)
			if r.code != exitFailure || r.stdout != "" || r.stderr != tt.wantStderr {
				t.Errorf("exit %d, stdout %q, stderr %q\nwant 1, nothing, %q", r.code, r.stdout, r.stderr, tt.wantStderr)
			}
		})
	}
	// A flag inspect does not have is still bad usage, not an input.
	r := runBinary(t, "", "inspect", "-x")
	if r.code != exitUsage || r.stdout != "" || !strings.HasPrefix(r.stderr, "sortid: inspect: flag provided but not defined: -x\n") {
		t.Errorf("inspect -x: exit %d, stdout %q, stderr %q; want 2 and a usage error", r.code, r.stdout, r.stderr)
	}
}

func TestBinaryInspectRejections(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 10<<20)
	tests := []struct {
		input      string
		wantStderr string
	}{
		{"0123456789abcdefghijklmno", `sortid: inspect: "0123456789abcdefghijklmno": a 25-character base36 string is a SCRU128 v2 ID; sortid implements SCRU128 v1.0.2 (26 base32 characters) and cannot read v2 IDs` + "\n"},
		{"0123456789ABCDEFGHIJKLMNZ", `sortid: inspect: "0123456789ABCDEFGHIJKLMNZ": a 25-character base36 string is a SCRU128 v2 ID; sortid implements SCRU128 v1.0.2 (26 base32 characters) and cannot read v2 IDs` + "\n"},
		{"0123456789abcdefghijklmn-", `sortid: inspect: "0123456789abcdefghijklmn-": ` + errNotAnID.Error() + "\n"},
		{`\x00d2fb003ddb7f58cbbe5cf2f04425bg`, `sortid: inspect: "\\x00d2fb003ddb7f58cbbe5cf2f04425bg": 'g' (U+0067) at offset 31 is not a hex digit; a SCRU128 in hex is 32 hex digits, optionally after \x` + "\n"},
		{`00d2fb003ddb7f58cbbe5cf2f04425b-`, `sortid: inspect: "00d2fb003ddb7f58cbbe5cf2f04425b-": '-' (U+002D) at offset 31 is not a hex digit; a SCRU128 in hex is 32 hex digits, optionally after \x` + "\n"},
		{"00d2fb003ddb7f58cbbe5cf2f04425é", `sortid: inspect: "00d2fb003ddb7f58cbbe5cf2f04425é": 'é' (U+00E9) at offset 30 is not a hex digit; a SCRU128 in hex is 32 hex digits, optionally after \x` + "\n"},
		{`\y00d2fb003ddb7f58cbbe5cf2f04425b2`, `sortid: inspect: "\\y00d2fb003ddb7f58cbbe5cf2f04425b2": ` + errNotAnID.Error() + "\n"},
		{"-1", `sortid: inspect: "-1": ` + negativeNumber + "\n"},
		{"-0", `sortid: inspect: "-0": ` + negativeNumber + "\n"},
		{"-00", `sortid: inspect: "-00": ` + negativeNumber + "\n"},
		{" -0 ", `sortid: inspect: "-0": ` + negativeNumber + "\n"},
		{"-99999999999999999999999999", `sortid: inspect: "-99999999999999999999999999": ` + negativeNumber + "\n"},
		{"-n", `sortid: inspect: "-n": ` + flagLike + "\n"},
		{"--", `sortid: inspect: "--": ` + flagLike + "\n"},
		{"-" + long, `sortid: inspect: "-` + long[:63] + `"... (10485761 characters): ` + flagLike + "\n"},
		{"01ARZ3NDEKTSV4RRFFQ69G5FAV", `sortid: inspect: "01ARZ3NDEKTSV4RRFFQ69G5FAV": looks like a ULID (26 Crockford base32 characters: 0-9 and A-Z without I, L, O, U), which sortid does not decode; as a SCRU128: idtype: invalid SCRU128: "01ARZ3NDEKTSV4RRFFQ69G5FAV" has 'Z' (U+005A) at offset 4; base32 digits are 0-9 and A-V` + "\n"},
		{"7zzzzzzzzzzzzzzzzzzzzzzzzz", `sortid: inspect: "7zzzzzzzzzzzzzzzzzzzzzzzzz": looks like a ULID (26 Crockford base32 characters: 0-9 and A-Z without I, L, O, U), which sortid does not decode; as a SCRU128: idtype: invalid SCRU128: "7zzzzzzzzzzzzzzzzzzzzzzzzz" has 'z' (U+007A) at offset 1; base32 digits are 0-9 and A-V` + "\n"},
		{"8ZZZZZZZZZZZZZZZZZZZZZZZZZ", `sortid: inspect: "8ZZZZZZZZZZZZZZZZZZZZZZZZZ": idtype: invalid SCRU128: "8ZZZZZZZZZZZZZZZZZZZZZZZZZ" has 'Z' (U+005A) at offset 1; base32 digits are 0-9 and A-V` + "\n"},
		{"01ARZ3NDEKTSV4RRFFQ69G5FAU", `sortid: inspect: "01ARZ3NDEKTSV4RRFFQ69G5FAU": idtype: invalid SCRU128: "01ARZ3NDEKTSV4RRFFQ69G5FAU" has 'Z' (U+005A) at offset 4; base32 digits are 0-9 and A-V` + "\n"},
		{"12345678901234567890", `sortid: inspect: "12345678901234567890": 20 decimal digits; a HUID has at most 19` + "\n"},
		{long, `sortid: inspect: "` + long[:64] + `"... (10485760 characters): ` + errNotAnID.Error() + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.input[:min(len(tt.input), 40)], func(t *testing.T) {
			t.Parallel()
			r := runBinary(t, tt.input+"\n", "inspect")
			wantStderr := tt.wantStderr + "sortid: inspect: 1 of 1 IDs invalid\n"
			if r.code != exitFailure || r.stdout != "" || r.stderr != wantStderr {
				t.Errorf("exit %d, stdout %q, stderr %q\nwant 1, nothing, %q", r.code, r.stdout, r.stderr, wantStderr)
			}
		})
	}
}

// TestBinaryLongInputsAreTruncated checks every place the CLI echoes an
// argument: each shows its first 64 characters and its length, once.
func TestBinaryLongInputsAreTruncated(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("7", 100_000) // Linux limits one argument to 128 KiB
	echo := `"` + long[:64] + `"... (100000 characters)`
	tests := []struct {
		args     []string
		wantCode int
		want     string // the first line of stderr
	}{
		{[]string{long}, exitUsage, "sortid: unknown command " + echo},
		{[]string{"inspect", long}, exitFailure, "sortid: inspect: " + echo + ": 100000 decimal digits; a HUID has at most 19"},
		{[]string{"new", long}, exitUsage, "sortid: new: unknown ID kind " + echo + "; want huid or scru128"},
		{[]string{"new", "huid", long}, exitUsage, "sortid: new: want at most one ID kind, got [\"huid\" " + echo + "]"},
		{[]string{"new", "-n", long}, exitUsage, "sortid: new: invalid value " + echo + " for flag -n: value out of range"},
		{[]string{"new", "-x" + long}, exitUsage, "sortid: new: flag provided but not defined: " + `"-x` + long[:62] + `"... (100002 characters)`},
		{[]string{"new", "-" + long}, exitUsage, "sortid: new: unknown ID kind " + `"-` + long[:63] + `"... (100001 characters); want huid or scru128`},
		{[]string{"range", "--from", long}, exitUsage, "sortid: range: --from " + echo + " is not a time; the forms are:"},
		{[]string{"range", "--from", "now", "--to", long}, exitUsage, "sortid: range: --to " + echo + " is not a time; the forms are:"},
		{[]string{"range", "--from", "1", "--to", "2", "--kind", long}, exitUsage, "sortid: range: unknown ID kind " + echo + "; want huid or scru128"},
		{[]string{"range", "--from", "1", "--to", "2", "--column", "a" + long}, exitUsage, `sortid: range: --column "a` + long[:63] + `"... (100001 characters) is not a plain SQL identifier`},
		{[]string{"range", "--from", "1", "--to", "2", long}, exitUsage, "sortid: range: unexpected arguments [" + echo + "]"},
		{[]string{"sql", long}, exitUsage, "sortid: sql: unknown direction " + echo + "; want up or down"},
		{[]string{"odds", "--rate", long, "--generators", "1"}, exitUsage, "sortid: odds: --rate " + echo + ": want a finite number of IDs per second, at least 0"},
		{[]string{"version", long}, exitUsage, "sortid: version: unexpected arguments [" + echo + "]"},
	}
	for i, tt := range tests {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			r := runBinary(t, "", tt.args...)
			first, _, _ := strings.Cut(r.stderr, "\n")
			if r.code != tt.wantCode || r.stdout != "" || !strings.HasPrefix(first, tt.want) || len(r.stderr) > 2000 {
				t.Errorf("exit %d, stdout %q, stderr (%d bytes) starts %q\nwant exit %d, nothing, a first line starting %q",
					r.code, r.stdout, len(r.stderr), first[:min(len(first), 300)], tt.wantCode, tt.want)
			}
		})
	}
}

func TestQuoteInput(t *testing.T) {
	t.Parallel()
	tests := []struct{ input, want string }{
		{"", `""`},
		{"abc", `"abc"`},
		{strings.Repeat("a", 64), `"` + strings.Repeat("a", 64) + `"`},
		{strings.Repeat("a", 65), `"` + strings.Repeat("a", 64) + `"... (65 characters)`},
		{strings.Repeat("é", 65), `"` + strings.Repeat("é", 64) + `"... (65 characters)`},
		{"tab\there", `"tab\there"`},
	}
	for _, tt := range tests {
		if got := quoteInput(tt.input); got != tt.want {
			t.Errorf("quoteInput(%q) = %s, want %s", tt.input, got, tt.want)
		}
	}
}

func TestBinaryVersion(t *testing.T) {
	t.Parallel()
	// Built without version control information the version is (devel).
	devel := filepath.Join(t.TempDir(), "sortid")
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(goCmd, "build", "-buildvcs=false", "-o", devel, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	form := regexp.MustCompile(`^sortid (\(devel\)|v\d+\.\d+\.\d+(-\S+)?(\+dirty)?)\n$`)
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		out, err := exec.Command(devel, args...).Output()
		if err != nil || string(out) != "sortid (devel)\n" {
			t.Errorf("sortid %q built with -buildvcs=false: %q, %v; want \"sortid (devel)\\n\"", args, out, err)
		}
		r := runBinary(t, "", args...)
		r.mustSucceed(t, args...)
		if !form.MatchString(r.stdout) {
			t.Errorf("sortid %q printed %q, not of the form %s", args, r.stdout, form)
		}
	}
	r := runBinary(t, "", "version", "x")
	if r.code != exitUsage || r.stderr != "sortid: version: unexpected arguments [\"x\"]\nRun 'sortid version -h' for usage.\n" {
		t.Errorf("sortid version x: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestBinaryRangeTimeForms(t *testing.T) {
	t.Parallel()
	utc := func(y int, mo time.Month, d, h, mi, s, ns int) time.Time {
		return time.Date(y, mo, d, h, mi, s, ns, time.UTC)
	}
	tests := []struct {
		from, to string
		fromTime time.Time
		toTime   time.Time
	}{
		{"2026-11-30", "2026-12-01", utc(2026, 11, 30, 0, 0, 0, 0), utc(2026, 12, 1, 0, 0, 0, 0)},
		{"2026-11-30 10:00", "2026-11-30 10:00:30", utc(2026, 11, 30, 10, 0, 0, 0), utc(2026, 11, 30, 10, 0, 30, 0)},
		{"2026-11-30 10:00:00.25", "2026-11-30T10:00:01Z", utc(2026, 11, 30, 10, 0, 0, 250_000_000), utc(2026, 11, 30, 10, 0, 1, 0)},
		{"2026-11-30 10:00:00+01", "2026-11-30 10:00:00.001 +01:00", utc(2026, 11, 30, 9, 0, 0, 0), utc(2026, 11, 30, 9, 0, 0, 1_000_000)},
		{"2026-11-30+01:00", "2026-11-30Z", utc(2026, 11, 29, 23, 0, 0, 0), utc(2026, 11, 30, 0, 0, 0, 0)},
		{"2026-11-30 10:00 -05", "1796054400000", utc(2026, 11, 30, 15, 0, 0, 0), time.UnixMilli(1796054400000)},
	}
	for _, tt := range tests {
		t.Run(tt.from+" "+tt.to, func(t *testing.T) {
			t.Parallel()
			args := []string{"range", "--from", tt.from, "--to", tt.to}
			r := runBinary(t, "", args...)
			lo, hi, err := idtype.HUIDRange(tt.fromTime, tt.toTime)
			if err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("lo  %d\nhi  %d\nsql id BETWEEN %d AND %d\n", lo, hi, lo, hi)
			if r.code != exitOK || r.stdout != want || r.stderr != "" {
				t.Errorf("sortid %q: exit %d, stdout %q, stderr %q; want 0, %q", args, r.code, r.stdout, r.stderr, want)
			}
		})
	}
}

// TestBinaryRangeRelativeTimes checks now, signed durations and the default
// --to against the clock around the run.
func TestBinaryRangeRelativeTimes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args           []string
		fromAgo, toAgo time.Duration // before now
	}{
		{[]string{"--from", "-5m"}, 5 * time.Minute, 0},
		{[]string{"--from", "-2h30m", "--to", "now"}, 150 * time.Minute, 0},
		{[]string{"--from", "-2h30m", "--to", "-1h"}, 150 * time.Minute, time.Hour},
		{[]string{"--from", "now", "--to", "+90s"}, 0, -90 * time.Second},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			args := append([]string{"range", "--kind", "scru128"}, tt.args...)
			before := time.Now()
			r := runBinary(t, "", args...)
			after := time.Now()
			r.mustSucceed(t, args...)
			fields := keyValues(t, r.stdout)
			lo, hi := idtype.MustParseSCRU128(fields["lo"]).Time(), idtype.MustParseSCRU128(fields["hi"]).Time()
			// lo is the millisecond holding now-fromAgo; hi the one before now-toAgo.
			if lo.Before(before.Add(-tt.fromAgo).Add(-time.Millisecond)) || lo.After(after.Add(-tt.fromAgo)) {
				t.Errorf("lo %v outside [%v, %v]", lo, before.Add(-tt.fromAgo), after.Add(-tt.fromAgo))
			}
			if hi.Before(before.Add(-tt.toAgo).Add(-2*time.Millisecond)) || hi.After(after.Add(-tt.toAgo)) {
				t.Errorf("hi %v outside [%v, %v]", hi, before.Add(-tt.toAgo), after.Add(-tt.toAgo))
			}
			// One now serves both flags: the window is the duration, plus
			// a millisecond when now is not millisecond-aligned.
			if got, want := hi.Sub(lo)+time.Millisecond, tt.fromAgo-tt.toAgo; got != want && got != want+time.Millisecond {
				t.Errorf("window %v, want %v or 1 ms more", got, want)
			}
		})
	}
}

func TestBinaryRangeHelpListsForms(t *testing.T) {
	t.Parallel()
	r := runBinary(t, "", "range", "-h")
	r.mustSucceed(t, "range", "-h")
	if !strings.Contains(r.stdout, "A time T is one of:\n\n"+timeForms) || !strings.Contains(r.stdout, "--to defaults to now") {
		t.Errorf("range -h does not list the time forms:\n%s", r.stdout)
	}
	for _, form := range []string{"RFC 3339", "Unix milliseconds", "now", "-5m, -2h30m", "2026-11-30 (midnight)", "2026-11-30 10:00", "UTC unless a zone"} {
		if !strings.Contains(timeForms, form) {
			t.Errorf("the time forms lack %q", form)
		}
	}
}

func TestBinaryOddsOneGenerator(t *testing.T) {
	t.Parallel()
	r := runBinary(t, "", "odds", "--rate", "5", "--generators", "1")
	r.mustSucceed(t, "odds")
	if line := lines(r.stdout)[1]; line != "rate 5 IDs/s over 1 generator: 0.005 IDs/ms per generator" {
		t.Errorf("second line %q", line)
	}
}
