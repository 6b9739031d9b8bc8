package harness

import (
	"sort"
	"syscall"
	"time"
)

// percentileMs returns the q-quantile (0..1) of ds in milliseconds (nearest rank), 0 if empty.
func percentileMs(ds []time.Duration, q float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(q*float64(len(s)-1) + 0.5)
	return float64(s[i]) / float64(time.Millisecond)
}

// cpuTime is this process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuPerOp is the CPU microseconds per op between two cpuTime readings.
func cpuPerOp(before, after time.Duration, ops int64) float64 {
	if ops <= 0 {
		return 0
	}
	return float64(after-before) / float64(time.Microsecond) / float64(ops)
}

// minMax of a slice of counts.
func minMax(xs []int64) (lo, hi int64) {
	for i, x := range xs {
		if i == 0 || x < lo {
			lo = x
		}
		if i == 0 || x > hi {
			hi = x
		}
	}
	return lo, hi
}
