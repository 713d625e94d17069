package idtype

import (
	"fmt"
	"strconv"
	"strings"
)

// Format implements [fmt.Formatter]. The integer verbs %d, %x, %X, %o, %O
// and %b print the integer, with fmt's flags, width and precision for an
// int64 (%x of 258037077 is f615555); %s and %v print the decimal form, %q
// it quoted, and %#v the integer as Go syntax. Other verbs print fmt's
// %!verb(idtype.HUID=…) form. Without Format, fmt would apply %x to the
// String text and print the hex of its digits.
func (h HUID) Format(f fmt.State, verb rune) {
	switch verb {
	case 'd', 'x', 'X', 'o', 'O', 'b':
		fmt.Fprintf(f, fmt.FormatString(f, verb), int64(h))
	case 'v':
		if f.Flag('#') {
			fmt.Fprintf(f, "%d", int64(h))
			return
		}
		fmt.Fprintf(f, fmt.FormatString(f, 's'), h.String())
	case 's', 'q':
		fmt.Fprintf(f, fmt.FormatString(f, verb), h.String())
	default:
		badVerb(f, verb, h, h.String())
	}
}

// Format implements [fmt.Formatter]: %x and %X print the 16 bytes as 32
// hex digits (with fmt's flags for a byte slice, e.g. % x), %s and %v the
// 26-character form, %q it quoted, and %#v the bytes as Go syntax. Other
// verbs print fmt's %!verb(idtype.SCRU128=…) form. Without Format, fmt
// would apply %x to the String text.
func (id SCRU128) Format(f fmt.State, verb rune) { formatSCRU128(f, verb, id, id) }

// Format implements [fmt.Formatter] as [SCRU128.Format].
func (b SCRU128Bytes) Format(f fmt.State, verb rune) { formatSCRU128(f, verb, SCRU128(b), b) }

// formatSCRU128 is SCRU128.Format; self is the value being printed, whose
// type %#v and bad verbs name.
func formatSCRU128(f fmt.State, verb rune, id SCRU128, self any) {
	switch verb {
	case 'x', 'X':
		fmt.Fprintf(f, fmt.FormatString(f, verb), id[:])
	case 'v':
		if f.Flag('#') {
			fmt.Fprint(f, goSyntax(id, self))
			return
		}
		fmt.Fprintf(f, fmt.FormatString(f, 's'), id.String())
	case 's', 'q':
		fmt.Fprintf(f, fmt.FormatString(f, verb), id.String())
	default:
		badVerb(f, verb, self, id.String())
	}
}

// goSyntax is what %#v printed for the array type before it had a Format
// method, e.g. idtype.SCRU128{0x0, 0xd2, …}.
func goSyntax(id SCRU128, self any) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%T{", self)
	for i, c := range id {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("0x" + strconv.FormatUint(uint64(c), 16))
	}
	b.WriteByte('}')
	return b.String()
}

// badVerb prints fmt's form for a verb the type does not take,
// %!verb(type=value).
func badVerb(f fmt.State, verb rune, self any, text string) {
	fmt.Fprintf(f, "%%!%c(%T=%s)", verb, self, text)
}
