package recipes_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/recipes"
)

// BenchmarkMultiLockRounds compares uncontended acquire+release cycles of a single mutex and of
// transactional multi-locks over k = 1, 2, 4, 8 paths in one run, interleaved: 5 rounds, each
// running b.N cycles of every variant in turn, so that the noise of a shared machine falls on
// all of them alike. It logs, per variant, the median over the rounds of each round's p50
// acquire (with the rounds' lowest and highest), the ratio to the single mutex's, and the CPU
// time per cycle of this process and of the ZooKeeper server (from /proc, Linux only). The
// variant tx4+tokens also reads the set's fencing tokens after each acquire.
//
//	go test -run '^$' -bench BenchmarkMultiLockRounds -benchtime 300x ./recipes_test/
//
// (-benchtime as a count: a run of fewer than 10 cycles measures nothing.)
func BenchmarkMultiLockRounds(b *testing.B) {
	fw, p, ctx := benchClient(b), lockPath(b), context.Background()
	type variant struct {
		name  string
		cycle func() (time.Duration, error)
	}
	single := mustMutex(b, fw, p+"/single")
	vs := []variant{{"single", func() (time.Duration, error) {
		start := time.Now()
		l, err := single.Acquire(ctx)
		if err != nil {
			return 0, err
		}
		d := time.Since(start)
		return d, l.Release(ctx)
	}}}
	tx := func(k int, tokens bool) variant {
		paths := make([]string, k)
		for i := range paths {
			paths[i] = fmt.Sprintf("%s/k%d%v/p%d", p, k, tokens, i)
		}
		m, err := recipes.NewTxMultiMutex(fw, paths...)
		if err != nil {
			b.Fatal(err)
		}
		name := fmt.Sprintf("tx%d", k)
		if tokens {
			name += "+tokens"
		}
		return variant{name, func() (time.Duration, error) {
			start := time.Now()
			l, err := m.Acquire(ctx)
			if err != nil {
				return 0, err
			}
			if tokens {
				if _, err := l.Tokens(ctx); err != nil {
					return 0, err
				}
			}
			d := time.Since(start)
			return d, l.Release(ctx)
		}}
	}
	vs = append(vs, tx(1, false), tx(2, false), tx(4, false), tx(8, false), tx(4, true))
	for _, v := range vs { // warm up: creates the parents
		if _, err := v.cycle(); err != nil {
			b.Fatal(err)
		}
	}
	if b.N < 10 { // the probe run before -benchtime's; go test keeps only 10 lines of log
		return
	}
	const rounds = 5
	pid := shared.Member(0).Pid()
	p50s := make([][]time.Duration, len(vs))
	client, server := make([][]time.Duration, len(vs)), make([][]time.Duration, len(vs))
	b.ResetTimer()
	for range rounds {
		for i, v := range vs {
			acq := make([]time.Duration, 0, b.N)
			c0, s0 := selfCPU(), procCPU(pid)
			for range b.N {
				d, err := v.cycle()
				if err != nil {
					b.Fatal(err)
				}
				acq = append(acq, d)
			}
			c1, s1 := selfCPU(), procCPU(pid)
			slices.Sort(acq)
			p50s[i] = append(p50s[i], acq[len(acq)/2])
			client[i] = append(client[i], (c1-c0)/time.Duration(b.N))
			server[i] = append(server[i], (s1-s0)/time.Duration(b.N))
		}
	}
	b.StopTimer()
	base := median(p50s[0])
	for i, v := range vs {
		m := median(p50s[i])
		if v.name != "single" {
			b.ReportMetric(float64(m)/float64(base), v.name+"/single")
		}
		b.Logf("%-10s p50 acquire %4d µs (rounds %d..%d) %.2fx single; CPU per cycle: client %d µs, server %d µs",
			v.name, m.Microseconds(), slices.Min(p50s[i]).Microseconds(), slices.Max(p50s[i]).Microseconds(),
			float64(m)/float64(base), median(client[i]).Microseconds(), median(server[i]).Microseconds())
	}
}

// median returns the median of ds (the upper one of an even count).
func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// selfCPU returns this process's user+system CPU time.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procCPU returns process pid's user+system CPU time from /proc (0 where there is none), in
// clock ticks of 10 ms.
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	k, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+k) * 10 * time.Millisecond
}
