package main

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// safeText returns s as a terminal may show it: every control character (C0, DEL, C1, which
// include ESC and newline), every format character (Unicode's Cf: the bidi embeddings,
// overrides and isolates such as U+202E, zero-width characters), the line and paragraph
// separators, and every byte that is not UTF-8 are written as Go escapes (\n, \x1b, \u202e,
// \xff), and a backslash as \\, so that the result is one line that says what the bytes
// were. Node names and node data are chosen by any client: printing them raw lets one clear
// the screen, forge a row, or reverse the text after it. --json output is exact instead.
func safeText(s string) string { return escapeText(s, true) }

// safeLine is safeText for zklock's own messages (its errors), which quote what they must with
// %q themselves: it escapes the same characters and bytes, so that a message is one line that
// cannot act on the terminal, but leaves backslashes as they are.
func safeLine(s string) string { return escapeText(s, false) }

// escapeText escapes s as safeText says, backslashes too when backslash is true.
func escapeText(s string, backslash bool) string {
	if !needsEscape(s, backslash) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\' && backslash:
			b.WriteString(`\\`)
		case unsafeRune(r):
			b.WriteString(escapeRune(r))
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// needsEscape reports whether escapeText would change s.
func needsEscape(s string, backslash bool) bool {
	if !utf8.ValidString(s) {
		return true
	}
	return strings.IndexFunc(s, func(r rune) bool { return (backslash && r == '\\') || unsafeRune(r) }) >= 0
}

// unsafeRune reports whether r may change how a terminal shows what follows it.
func unsafeRune(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.In(r, unicode.Zl, unicode.Zp)
}

// escapeRune writes r as a Go escape.
func escapeRune(r rune) string {
	switch r {
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	}
	switch {
	case r < 0x100:
		return fmt.Sprintf(`\x%02x`, r)
	case r < 0x10000:
		return fmt.Sprintf(`\u%04x`, r)
	}
	return fmt.Sprintf(`\U%08x`, r)
}
