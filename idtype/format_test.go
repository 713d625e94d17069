package idtype

import (
	"fmt"
	"testing"
)

func TestFormat(t *testing.T) {
	t.Parallel()
	h := HUID(258037077) // spec Appendix A: 0xf615555
	id := MustParseSCRU128("00QBTG0FERFTCCNFISUBO489DI")
	const hexID = "00d2fb003ddb7f58cbbe5cf2f04425b2"
	cases := []struct {
		format string
		value  any
		want   string
	}{
		{"%d", h, "258037077"},
		{"%x", h, "f615555"},
		{"%X", h, "F615555"},
		{"%#x", h, "0xf615555"},
		{"%016x", h, "000000000f615555"},
		{"%o", h, "1730252525"},
		{"%O", h, "0o1730252525"},
		{"%b", h, "1111011000010101010101010101"},
		{"%+d", h, "+258037077"},
		{"%12d|", h, "   258037077|"},
		{"%-12d|", h, "258037077   |"},
		{"%019d", h, "0000000000258037077"},
		{"%.12d", h, "000258037077"},
		{"%.3s", h, "258"},
		{"%x", HUID(-1), "-1"},
		{"%x", MaxHUID, "7fffffffffffffff"},
		{"%s", h, "258037077"},
		{"%v", h, "258037077"},
		{"%+v", h, "258037077"},
		{"%#v", h, "258037077"},
		{"%12v|", h, "   258037077|"},
		{"%q", h, `"258037077"`},
		{"%#q", h, "`258037077`"},
		{"%f", h, "%!f(idtype.HUID=258037077)"},
		{"%c", h, "%!c(idtype.HUID=258037077)"},
		{"%t", h, "%!t(idtype.HUID=258037077)"},
		{"%v", struct{ ID HUID }{h}, "{258037077}"},
		{"%+v", struct{ ID HUID }{h}, "{ID:258037077}"},
		{"%x", []HUID{1, 255}, "[1 ff]"},
		{"%v", NullHUID{h, true}, "{258037077 true}"},
		{"%+v", NullHUID{}, "{V:0 Valid:false}"},

		{"%x", id, hexID},
		{"%X", id, "00D2FB003DDB7F58CBBE5CF2F04425B2"},
		{"%#x", id, "0x" + hexID},
		{"% x", id, "00 d2 fb 00 3d db 7f 58 cb be 5c f2 f0 44 25 b2"},
		{"%s", id, "00QBTG0FERFTCCNFISUBO489DI"},
		{"%v", id, "00QBTG0FERFTCCNFISUBO489DI"},
		{"%28v|", id, "  00QBTG0FERFTCCNFISUBO489DI|"},
		{"%q", id, `"00QBTG0FERFTCCNFISUBO489DI"`},
		{"%#v", id, "idtype.SCRU128{0x0, 0xd2, 0xfb, 0x0, 0x3d, 0xdb, 0x7f, 0x58, 0xcb, 0xbe, 0x5c, 0xf2, 0xf0, 0x44, 0x25, 0xb2}"},
		{"%d", id, "%!d(idtype.SCRU128=00QBTG0FERFTCCNFISUBO489DI)"},
		{"%v", struct{ ID SCRU128 }{id}, "{00QBTG0FERFTCCNFISUBO489DI}"},
		{"%v", NullSCRU128{id, true}, "{00QBTG0FERFTCCNFISUBO489DI true}"},

		{"%x", SCRU128Bytes(id), hexID},
		{"%v", SCRU128Bytes(id), "00QBTG0FERFTCCNFISUBO489DI"},
		{"%q", SCRU128Bytes(id), `"00QBTG0FERFTCCNFISUBO489DI"`},
		{"%#v", SCRU128Bytes{}, "idtype.SCRU128Bytes{0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0}"},
		{"%d", SCRU128Bytes(id), "%!d(idtype.SCRU128Bytes=00QBTG0FERFTCCNFISUBO489DI)"},
	}
	for _, c := range cases {
		if got := fmt.Sprintf(c.format, c.value); got != c.want {
			t.Errorf("Sprintf(%q, %T) = %q, want %q", c.format, c.value, got, c.want)
		}
	}
}

// TestPrintMatchesString checks that Print and Println, which use %v, print
// what String returns.
func TestPrintMatchesString(t *testing.T) {
	t.Parallel()
	for _, v := range huidVectors {
		if got := fmt.Sprintln(v.value, v.value); got != v.decimal+" "+v.decimal+"\n" {
			t.Errorf("Sprintln(%s) = %q", v.decimal, got)
		}
	}
	for _, v := range scru128Vectors {
		id := MustParseSCRU128(v.text)
		if got := fmt.Sprint(id, SCRU128Bytes(id)); got != v.text+" "+v.text {
			t.Errorf("Sprint(%s) = %q", v.text, got)
		}
	}
}
