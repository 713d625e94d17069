package migrations

import (
	"errors"
	"fmt"
	"strings"
)

// statement is one SQL statement of a migration file, as found by splitStatements.
type statement struct {
	// Comment holds the comment lines and blank lines that precede the statement.
	Comment string
	// SQL is the statement text, ending with its terminating semicolon.
	SQL string
}

var (
	errUnterminated = errors.New("migrations: unterminated quoted text or comment")
	errTrailing     = errors.New("migrations: text after the last semicolon")
	errAnnotation   = errors.New("migrations: canonical SQL must not contain goose annotations")
	errAtomic       = errors.New("migrations: BEGIN ATOMIC bodies are not supported; use RETURN or $$ bodies")
)

// splitStatements splits PostgreSQL SQL text into statements at top-level semicolons.
// It understands single-quoted strings and double-quoted identifiers (a doubled quote
// escapes itself), $tag$...$tag$ dollar quoting, -- line comments and nested block
// comments. It does not understand backslash escapes in E-strings, and it rejects
// BEGIN ATOMIC bodies; the sortid SQL uses neither. Comment and blank lines that
// precede a statement are kept in its Comment field; text after the last semicolon
// must be comments or whitespace.
func splitStatements(src string) ([]statement, error) {
	if strings.Contains(src, "+goose") {
		return nil, errAnnotation
	}
	var out []statement
	start := 0 // start of the current chunk (comment + statement)
	i := 0
	n := len(src)
	for i < n {
		c := src[i]
		switch {
		case c == '-' && i+1 < n && src[i+1] == '-':
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				i = n
			} else {
				i += j + 1
			}
		case c == '/' && i+1 < n && src[i+1] == '*':
			depth := 1
			i += 2
			for depth > 0 {
				if i+1 >= n {
					return nil, fmt.Errorf("%w: block comment", errUnterminated)
				}
				switch {
				case src[i] == '/' && src[i+1] == '*':
					depth++
					i += 2
				case src[i] == '*' && src[i+1] == '/':
					depth--
					i += 2
				default:
					i++
				}
			}
		case c == '\'' || c == '"':
			i++
			for {
				if i >= n {
					return nil, fmt.Errorf("%w: %c-quoted text", errUnterminated, c)
				}
				if src[i] == c {
					if i+1 < n && src[i+1] == c { // doubled quote
						i += 2
						continue
					}
					i++
					break
				}
				i++
			}
		case c == '$':
			tag, ok := dollarTag(src[i:])
			if !ok {
				i++
				continue
			}
			end := strings.Index(src[i+len(tag):], tag)
			if end < 0 {
				return nil, fmt.Errorf("%w: %s body", errUnterminated, tag)
			}
			i += len(tag) + end + len(tag)
		case c == ';':
			i++
			st, err := makeStatement(src[start:i])
			if err != nil {
				return nil, err
			}
			out = append(out, st)
			// The rest of the line (normally just the newline) belongs to this statement.
			if j := strings.IndexByte(src[i:], '\n'); j >= 0 && strings.TrimSpace(src[i:i+j]) == "" {
				i += j + 1
			}
			start = i
		default:
			i++
		}
	}
	if rest := src[start:]; strings.TrimSpace(stripComments(rest)) != "" {
		return nil, fmt.Errorf("%w: %q", errTrailing, strings.TrimSpace(rest))
	}
	return out, nil
}

// dollarTag reports the $tag$ opening s, if any. A tag is $$ or $ident$ where ident
// does not start with a digit (so $1 parameters are not tags).
func dollarTag(s string) (string, bool) {
	for j := 1; j < len(s); j++ {
		c := s[j]
		switch {
		case c == '$':
			return s[:j+1], true
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80:
		case c >= '0' && c <= '9' && j > 1:
		default:
			return "", false
		}
	}
	return "", false
}

// makeStatement separates the leading comment/blank lines of chunk from the statement.
func makeStatement(chunk string) (statement, error) {
	var st statement
	rest := chunk
	for rest != "" {
		line, after, found := strings.Cut(rest, "\n")
		t := strings.TrimSpace(line)
		if t != "" && !strings.HasPrefix(t, "--") {
			break
		}
		st.Comment += line
		if found {
			st.Comment += "\n"
		}
		rest = after
	}
	st.SQL = strings.TrimSpace(rest)
	if st.SQL == ";" || st.SQL == "" {
		return st, errors.New("migrations: empty statement")
	}
	if strings.Contains(strings.ToUpper(st.SQL), "BEGIN ATOMIC") {
		return st, errAtomic
	}
	return st, nil
}

// stripComments removes -- line comments (only used on text outside statements).
func stripComments(s string) string {
	var b strings.Builder
	for line := range strings.Lines(s) {
		if strings.HasPrefix(strings.TrimSpace(line), "--") {
			continue
		}
		b.WriteString(line)
	}
	return b.String()
}

// gooseFromUpDown converts a golang-migrate up/down pair into one goose migration:
// "-- +goose Up" and "-- +goose Down" sections in which every statement is wrapped in
// "-- +goose StatementBegin" / "-- +goose StatementEnd", so that goose never splits a
// function body at its inner semicolons. Comments preceding a statement are kept
// outside its StatementBegin block. header, if not empty, is written first as comment
// lines.
func gooseFromUpDown(header, up, down string) (string, error) {
	var b strings.Builder
	for line := range strings.Lines(header) {
		b.WriteString("-- ")
		b.WriteString(strings.TrimRight(line, "\n"))
		b.WriteString("\n")
	}
	if header != "" {
		b.WriteString("\n")
	}
	for _, part := range []struct{ annotation, src string }{
		{"-- +goose Up", up},
		{"-- +goose Down", down},
	} {
		stmts, err := splitStatements(part.src)
		if err != nil {
			return "", err
		}
		if len(stmts) == 0 {
			return "", errors.New("migrations: no statements in " + part.annotation)
		}
		b.WriteString(part.annotation)
		b.WriteString("\n")
		for _, st := range stmts {
			b.WriteString(st.Comment)
			b.WriteString("-- +goose StatementBegin\n")
			b.WriteString(st.SQL)
			b.WriteString("\n-- +goose StatementEnd\n")
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n") + "\n", nil
}
