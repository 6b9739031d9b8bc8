package driver

import (
	"strconv"
	"testing"
)

// parseSequence agrees with strconv on the last ten characters, and refuses anything that is not
// ten decimal digits there: every byte value next to '0' and '9' in every place.
func TestParseSequence(t *testing.T) {
	tests := []string{"0000000000", "0000000001", "9999999999", "lock-0000012345", "1234567890", "2147483647",
		"x-4294967296", "0000000009", "9000000000"}
	for _, s := range tests {
		got, ok := parseSequence(s)
		want, err := strconv.ParseUint(s[len(s)-10:], 10, 64)
		if !ok || err != nil || got != want {
			t.Errorf("parseSequence(%q) = %d, %v; want %d", s, got, ok, want)
		}
	}
	for place := range 10 {
		for _, b := range []byte{0, '/', ':', '0' + 0x80, '9' + 0x10, 0x3A, 0x3F, 0x20, 0xFF, 0x2F, 0x40} {
			s := []byte("1234567890")
			s[place] = b
			if n, ok := parseSequence(string(s)); ok {
				t.Errorf("parseSequence(%q) = %d, want refused", s, n)
			}
		}
	}
	for _, s := range []string{"", "123456789", "-000000001", "+000000001", " 000000001"} {
		if n, ok := parseSequence(s); ok {
			t.Errorf("parseSequence(%q) = %d, want refused", s, n)
		}
	}
}

func FuzzParseSequence(f *testing.F) {
	for _, s := range []string{"0000000000", "lock-0000000007", "12345678:0", "\xff\xff\xff\xff\xff\xff\xff\xff00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseSequence(s)
		want, wok := uint64(0), false
		if len(s) >= 10 {
			tail := s[len(s)-10:]
			wok = true
			for i := range len(tail) {
				wok = wok && tail[i] >= '0' && tail[i] <= '9'
			}
			if wok {
				want, _ = strconv.ParseUint(tail, 10, 64)
			}
		}
		if ok != wok || got != want {
			t.Fatalf("parseSequence(%q) = %d, %v; want %d, %v", s, got, ok, want, wok)
		}
	})
}
