package recipes

import "testing"

func TestSequenceOf(t *testing.T) {
	tests := []struct {
		name string
		seq  int64
		ok   bool
	}{
		{"_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-lock-0000000007", 7, true},
		{"lock-2147483647", 2147483647, true},
		{"lock--2147483648", 0, false}, // a wrapped counter: read the stat instead
		{"_c_x-__READ__", 0, false},
		{"short", 0, false},
		{"lock-00000000x1", 0, false},
	}
	for _, tt := range tests {
		seq, ok := sequenceOf(tt.name)
		if seq != tt.seq || ok != tt.ok {
			t.Errorf("sequenceOf(%q) = %d, %v; want %d, %v", tt.name, seq, ok, tt.seq, tt.ok)
		}
	}
}
