package retry

import (
	"testing"
	"time"
)

func TestPacer(t *testing.T) {
	for _, tt := range []struct {
		name string
		p    Policy
		want []time.Duration
	}{
		{"fixed count repeats its delay", NTimes(2, 300*time.Millisecond), []time.Duration{300, 300, 300, 300}},
		{"no retries: MinPace", NTimes(0, time.Second), []time.Duration{100, 100}},
		{"nil policy: MinPace", nil, []time.Duration{100, 100}},
		{"short delays raised", NTimes(1, time.Millisecond), []time.Duration{100, 100}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pc := NewPacer(tt.p)
			for i, w := range tt.want {
				if got := pc.Next(); got != w*time.Millisecond {
					t.Fatalf("delay %d = %v, want %v", i, got, w*time.Millisecond)
				}
			}
			pc.Reset()
			if got := pc.Next(); got != tt.want[0]*time.Millisecond {
				t.Fatalf("after Reset: %v", got)
			}
		})
	}
}
