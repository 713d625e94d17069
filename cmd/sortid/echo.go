package main

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// echoLimit is how many characters of a user's input an error message
// repeats; a longer input is cut there and its length given instead, so that
// a 10 MB line does not come back as a 10 MB message.
const echoLimit = 64

// quoteInput returns s quoted for an error message: in full when it has at
// most echoLimit characters, else its first echoLimit characters followed by
// the total number of characters, e.g. "abc…"... (10485760 characters).
func quoteInput(s string) string {
	n := utf8.RuneCountInString(s)
	if n <= echoLimit {
		return strconv.Quote(s)
	}
	cut := 0
	for range echoLimit {
		_, size := utf8.DecodeRuneInString(s[cut:])
		cut += size
	}
	return fmt.Sprintf("%s... (%d characters)", strconv.Quote(s[:cut]), n)
}

// quoteInputs is quoteInput for a list, in brackets like %q of a slice.
func quoteInputs(list []string) string {
	quoted := make([]string, len(list))
	for i, s := range list {
		quoted[i] = quoteInput(s)
	}
	return "[" + strings.Join(quoted, " ") + "]"
}

// truncateEchoes rewrites a message of the flag package, which quotes flag
// names and values in full, so that every argument longer than echoLimit
// appears as quoteInput shows it.
func truncateEchoes(msg string, args []string) string {
	for _, arg := range args {
		name, value, _ := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		for _, s := range []string{arg, name, value} {
			if utf8.RuneCountInString(s) > echoLimit {
				msg = strings.ReplaceAll(msg, strconv.Quote(s), quoteInput(s))
				msg = strings.ReplaceAll(msg, s, quoteInput(s))
			}
		}
	}
	return msg
}
