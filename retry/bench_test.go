package retry

import (
	"testing"
	"time"
)

func BenchmarkNewBackOffNext(b *testing.B) {
	policies := []struct {
		name string
		p    Policy
	}{
		{"Exponential", ExponentialBackoff(100*time.Millisecond, 3)},
		{"Bounded", BoundedExponentialBackoff(100*time.Millisecond, time.Second, 29)},
		{"NTimes", NTimes(3, 100*time.Millisecond)},
		{"UntilElapsed", UntilElapsed(time.Minute, 100*time.Millisecond)},
		{"Forever", Forever(time.Second)},
		{"SessionFailed", SessionFailed(ExponentialBackoff(100*time.Millisecond, 3))},
	}
	for _, pc := range policies {
		b.Run(pc.name, func(b *testing.B) {
			b.ReportAllocs()
			var sink time.Duration
			for b.Loop() {
				bo := pc.p.NewBackOff()
				sink += bo.NextBackOff()
				sink += bo.NextBackOff()
			}
			_ = sink
		})
	}
}
