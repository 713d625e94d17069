// Package chars names a character of user input in error messages, the one
// way idtype and the sortid command do it.
package chars

import (
	"fmt"
	"unicode/utf8"
)

// At names the character of s at byte offset i as typed: the whole UTF-8
// character, its code point and the offset, e.g. '٥' (U+0665) at offset 0,
// rather than its first byte. A byte that does not begin valid UTF-8 is
// named by its value, e.g. byte 0xff at offset 1.
func At[T string | []byte](s T, i int) string {
	r, size := utf8.DecodeRuneInString(string(s[i:min(len(s), i+utf8.UTFMax)]))
	if r == utf8.RuneError && size <= 1 {
		return fmt.Sprintf("byte 0x%02x at offset %d", s[i], i)
	}
	return fmt.Sprintf("%q (U+%04X) at offset %d", r, r, i)
}
