package driver

import (
	"strconv"
	"strings"
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

// choose drops CheckGrant on the ground that a standard driver's key is a suffix of the name
// (so a key of ten digits is the name's own sequence): every standard driver's SortKey must
// keep that, whatever the name.
func TestStandardKeysAreSuffixes(t *testing.T) {
	drivers := []standardDriver{Exclusive().(standardDriver), Write().(standardDriver),
		Standard("", 1).(standardDriver), Standard("x9", 1).(standardDriver), Standard(ReadLockName, 1).(standardDriver)}
	names := []string{"", "lock-0000000001", "_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-lock-0000000001",
		"lock-lock-0000000002", "__READ__WRIT__0000000001", "a__READ__b__WRIT__c0000000003", "x90000000009",
		"x9x90000000009", "lock-", "0000000001lock-", "__WRIT__", "stray", "lock-000000000x"}
	for _, d := range drivers {
		for _, c := range names {
			if k := d.SortKey(c); !strings.HasSuffix(c, k) {
				t.Errorf("%+v: SortKey(%q) = %q, not a suffix of the name", d, c, k)
			}
		}
	}
}
