package idtype

import (
	"fmt"
	"math/big"
	"strings"
)

// scru128Vector is a SCRU128 v1.0.2 ID with its fields and UUID form.
type scru128Vector struct {
	text                        string
	timestamp                   uint64
	counter, perSecRand, perGen uint32
	uuid                        string
}

// scru128Vectors holds the eight examples of SCRU128 spec v1.0.2 (fields
// decoded independently with Python's int(s, 32)) followed by field edge
// values computed with math/big, independently of the code under test.
var scru128Vectors = append([]scru128Vector{
	{"00QBTG0FERFTCCNFISUBO489DI", 56634639325, 192895179, 0xbe5cf2, 0xf04425b2, "00d2fb00-3ddb-7f58-cbbe-5cf2f04425b2"},
	{"00QBTG0FERFTCCPFISU9NEF4CJ", 56634639325, 192895180, 0xbe5cf2, 0x6ee79193, "00d2fb00-3ddb-7f58-ccbe-5cf26ee79193"},
	{"00QBTG0FERFTCCRFISU97R5OTB", 56634639325, 192895181, 0xbe5cf2, 0x4fb2e3ab, "00d2fb00-3ddb-7f58-cdbe-5cf24fb2e3ab"},
	{"00QBTG0FERFTCCTFISUA4B4DFK", 56634639325, 192895182, 0xbe5cf2, 0x88b235f4, "00d2fb00-3ddb-7f58-cebe-5cf288b235f4"},
	{"00QBTG0FF6ULUKDFISU93H7KA9", 56634639326, 116751686, 0xbe5cf2, 0x4713d149, "00d2fb00-3de6-f57d-46be-5cf24713d149"},
	{"00QBTG0FF6ULUKFFISU9OC8U2F", 56634639326, 116751687, 0xbe5cf2, 0x70c4784f, "00d2fb00-3de6-f57d-47be-5cf270c4784f"},
	{"00QBTG0FF6ULUKHFISUAOVFSF4", 56634639326, 116751688, 0xbe5cf2, 0xb1f7f1e4, "00d2fb00-3de6-f57d-48be-5cf2b1f7f1e4"},
	{"00QBTG0FF6ULUKJFISU94NVHK2", 56634639326, 116751689, 0xbe5cf2, 0x497fc682, "00d2fb00-3de6-f57d-49be-5cf2497fc682"},
	{"00000000000000000000000000", 0, 0, 0, 0, "00000000-0000-0000-0000-000000000000"},
	{"7VVVVVVVVVVVVVVVVVVVVVVVVV", 1<<44 - 1, 1<<28 - 1, 1<<24 - 1, 1<<32 - 1, "ffffffff-ffff-ffff-ffff-ffffffffffff"},
},
	bigVector(1<<44-1, 0, 0, 0),
	bigVector(0, 1<<28-1, 0, 0),
	bigVector(0, 0, 1<<24-1, 0),
	bigVector(0, 0, 0, 1<<32-1),
	bigVector(1, 1, 1, 1),
	bigVector(1<<44-2, 0x8000000, 0x800000, 0x80000000),
)

// bigVector builds a vector from its fields with math/big.
func bigVector(ts uint64, counter, perSec, perGen uint32) scru128Vector {
	v := new(big.Int).Lsh(new(big.Int).SetUint64(ts), 84)
	v.Or(v, new(big.Int).Lsh(big.NewInt(int64(counter)), 56))
	v.Or(v, new(big.Int).Lsh(big.NewInt(int64(perSec)), 32))
	v.Or(v, big.NewInt(int64(perGen)))
	text := fmt.Sprintf("%026s", strings.ToUpper(v.Text(32)))
	hex := fmt.Sprintf("%032s", v.Text(16))
	uuid := hex[0:8] + "-" + hex[8:12] + "-" + hex[12:16] + "-" + hex[16:20] + "-" + hex[20:32]
	return scru128Vector{text, ts, counter, perSec, perGen, uuid}
}

// scru128SpecInteger is the integer example of the v1.0.2 spec.
const scru128SpecInteger = "1095473244246772103403544935821223346"

// huidVector is a HUID with its fields and encodings.
type huidVector struct {
	value     HUID
	decimal   string
	padded    string
	unixMilli int64
	random    uint32
	binary    string // hex of the 8-byte big-endian form
}

// huidVectors holds HUID spec Appendix A and edge values.
var huidVectors = []huidVector{
	{258037077, "258037077", "0000000000258037077", 1767225600123, 87381, "000000000f615555"},
	{0, "0", "0000000000000000000", 1767225600000, 0, "0000000000000000"},
	{1<<63 - 1, "9223372036854775807", "9223372036854775807", 1767225600000 + 1<<42 - 1, 1<<21 - 1, "7fffffffffffffff"},
	{1<<21 - 1, "2097151", "0000000000002097151", 1767225600000, 1<<21 - 1, "00000000001fffff"},
	{1 << 21, "2097152", "0000000000002097152", 1767225600001, 0, "0000000000200000"},
	{(1<<42 - 1) << 21, "9223372036852678656", "9223372036852678656", 1767225600000 + 1<<42 - 1, 0, "7fffffffffe00000"},
}

// badHUIDText holds text that ParseHUID must reject, with the reason.
var badHUIDText = []struct{ in, why string }{
	{"", "empty"},
	{"-1", "sign"},
	{"+1", "sign"},
	{" 1", "leading space"},
	{"1 ", "trailing space"},
	{"1_000", "underscore"},
	{"0x10", "hex"},
	{"1.0", "fraction"},
	{"1e3", "exponent"},
	{"9223372036854775808", "2^63"},
	{"9999999999999999999", "19 nines"},
	{"00000000000000000001", "20 digits"},
	{"١٢", "non-ASCII digits"},
	{"12\x00", "NUL"},
}

// badSCRU128Text holds text that ParseSCRU128 must reject, with the reason.
var badSCRU128Text = []struct{ in, why string }{
	{"", "empty"},
	{"00QBTG0FERFTCCNFISUBO489D", "25 chars"},
	{"00QBTG0FERFTCCNFISUBO489DII", "27 chars"},
	{"80000000000000000000000000", "2^128"},
	{"VVVVVVVVVVVVVVVVVVVVVVVVVV", "above max"},
	{"00QBTG0FERFTCCNFISUBO489DW", "W is not a digit"},
	{"00QBTG0FERFTCCNFISUBO489D-", "dash"},
	{"00QBTG0FERFTCCNFISUBO489D ", "space"},
	{"00d2fb00-3ddb-7f58-cbbe-5cf2f04425bg", "g in UUID"},
	{"00d2fb003ddb-7f58-cbbe-5cf2f04425b2-", "misplaced dashes"},
	{"00d2fb00+3ddb+7f58+cbbe+5cf2f04425b2", "plus separators"},
	{"00d2fb003ddb7f58cbbe5cf2f04425b2", "32 hex without dashes"},
	{"{00d2fb00-3ddb-7f58-cbbe-5cf2f04425b2}", "braces"},
	{"00QBTG0FERFTCCNFISUBO489DÍ", "non-ASCII"},
}

// badCharText holds text with one wrong character and the words the error
// must name it with: the whole character as typed, its code point and its
// byte offset.
var badCharText = []struct {
	in    string
	scru  bool // parsed by ParseSCRU128, else by ParseHUID
	named string
}{
	{"٥", false, `'٥' (U+0665) at offset 0`},
	{"12٣4", false, `'٣' (U+0663) at offset 2`},
	{"1é", false, `'é' (U+00E9) at offset 1`},
	{"12\x00", false, `'\x00' (U+0000) at offset 2`},
	{"1\xff", false, `byte 0xff at offset 1`},
	{"9\xd9", false, `byte 0xd9 at offset 1`}, // a UTF-8 character cut short
	{"00QBTG0FERFTCCNFISUBO489Í", true, `'Í' (U+00CD) at offset 24`},
	{"00QBTG0FERFTCCNFISUBO489DW", true, `'W' (U+0057) at offset 25`},
	{"00d2fb00-3ddb-7f58-cbbe-5cf2f04425ü", true, `'ü' (U+00FC) at offset 34`},
	{"00d2fb00-3ddb-7f58-cbbe-5cf2f04425bg", true, `'g' (U+0067) at offset 35`},
}
