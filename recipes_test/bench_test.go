package recipes_test

import (
	"context"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// processCPU is this process's user+system CPU time so far (the ZooKeeper server is another
// process): the client CPU that the benchmarks report per cycle as cpu-us/op.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkMutex measures acquire+release cycles of the mutex against the shared zktest
// server: uncontended (one session) and contended (8 or 64 sessions on one path). Client CPU and
// allocations per cycle come from -cpuprofile/-memprofile and -benchmem, and it reports the
// process's CPU (cpu-us/op: the client's, the server is another process), the server's
// (server-cpu-us/op) and the goroutines it started (goroutines/op) per cycle, and with
// ZKRECIPES_PERF=1 the system calls by kind (benchcount_test.go); BenchmarkGoZKLock is the same
// loop with go-zookeeper's zk.Lock. The benchmark driver (make bench) compares against the peers.
//
// ctx=background runs each request on the caller's goroutine; ctx=cancellable (any context
// that can end) puts a goroutine beside each request so that ctx can end the wait.
func BenchmarkMutex(b *testing.B) {
	for _, bc := range []struct {
		sessions    int
		cancellable bool
	}{{1, false}, {1, true}, {8, false}, {8, true}, {64, true}} {
		name := fmt.Sprintf("sessions=%d/ctx=background", bc.sessions)
		if bc.cancellable {
			name = fmt.Sprintf("sessions=%d/ctx=cancellable", bc.sessions)
		}
		sessions := bc.sessions
		b.Run(name, func(b *testing.B) {
			zk := shared
			p := lockPath(b)
			ms := make([]*recipes.InterProcessMutex, sessions)
			for i := range ms {
				ms[i] = mustMutex(b, zktest.Connect(b, zk, framework.WithSessionTimeout(10*time.Second)), p)
			}
			b.ReportAllocs()
			b.ResetTimer()
			counts := startCounts(b)
			var wg sync.WaitGroup
			per := b.N/sessions + 1
			for _, m := range ms {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ctx := context.Background()
					if bc.cancellable {
						var cancel context.CancelFunc
						ctx, cancel = context.WithCancel(ctx)
						defer cancel()
					}
					for range per {
						l, err := m.Acquire(ctx)
						if err != nil {
							b.Error(err)
							return
						}
						if err := l.Release(ctx); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			b.StopTimer()
			counts.report(b, float64(per*sessions))
		})
	}
}
