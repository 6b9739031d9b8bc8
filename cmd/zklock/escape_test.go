package main

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSafeText(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain web-1 ünïcode 日本", "plain web-1 ünïcode 日本"},
		{"a\nb", `a\nb`},
		{"\x1b[2J", `\x1b[2J`},
		{"tab\there", `tab\there`},
		{"\u202eevil", `\u202eevil`},
		{"\u2066iso\u2069 \u200b \u2028", `\u2066iso\u2069 \u200b \u2028`},
		{"\x7f\u0085", `\x7f\x85`},
		{"bad\xff\xfe", `bad\xff\xfe`},
		{`back\slash`, `back\\slash`},
		{"\U000e0001tag", `\U000e0001tag`},
	} {
		if got := safeText(tt.in); got != tt.want {
			t.Errorf("safeText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzPrintable: whatever the input, safeText and printable give one line of valid UTF-8
// without a control, format or separator character, and distinct inputs stay distinct under
// safeText (its escaping is reversible).
func FuzzPrintable(f *testing.F) {
	for _, s := range []string{"", "a\nb", "\x1b[2J", "\u202e", "\xff", `\x41`, "A", "\u2028", "\t"} {
		f.Add(s, s+"x")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		for _, out := range []string{safeText(a), safeText(b), printable(a, 80)} {
			if !utf8.ValidString(out) || strings.IndexFunc(out, unsafeRune) >= 0 {
				t.Fatalf("%q keeps an unsafe character (input %q, %q)", out, a, b)
			}
		}
		if a != b && safeText(a) == safeText(b) {
			t.Fatalf("safeText(%q) == safeText(%q) = %q", a, b, safeText(a))
		}
	})
}
