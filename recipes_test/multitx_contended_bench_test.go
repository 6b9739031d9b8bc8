package recipes_test

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// BenchmarkTxMultiContended runs the benchmark driver's contended multi-lock scenario (16
// sessions, each taking random sets of 2 to 4 of 8 paths in random order, 1 ms critical
// section) for a fixed window, with every frame delayed by the proxy: the throughput is then
// set by the round trips on the path from one holder's release to the next grant, not by the
// CPU of a shared machine, so two builds can be compared on a busy one. It reports acq/s for
// the transactional and the sequential (sorted) modes.
//
//	go test -run '^$' -bench BenchmarkTxMultiContended -benchtime 1x ./recipes_test/
func BenchmarkTxMultiContended(b *testing.B) {
	for _, mode := range []string{"tx", "seq"} {
		for _, delay := range []time.Duration{0, 2 * time.Millisecond} {
			b.Run(mode+"/delay="+delay.String(), func(b *testing.B) {
				proxy := zktest.NewProxy(b, shared.Servers()[0])
				proxy.Delay(delay)
				root := lockPath(b)
				pool := make([]string, 8)
				for i := range pool {
					pool[i] = root + "/p" + string(rune('a'+i))
				}
				const sessions, window = 16, 8 * time.Second
				var n atomic.Int64
				ctx, cancel := context.WithTimeout(context.Background(), window)
				defer cancel()
				var wg sync.WaitGroup
				for s := range sessions {
					fw := zktest.Connect(b, shared, framework.WithDialer(proxy.Dialer()), framework.WithSessionTimeout(20*time.Second))
					wg.Add(1)
					go func() {
						defer wg.Done()
						rng := rand.New(rand.NewPCG(uint64(s), 7))
						for ctx.Err() == nil {
							k := 2 + rng.IntN(3)
							set := make([]string, k)
							for j, x := range rng.Perm(len(pool))[:k] {
								set[j] = pool[x]
							}
							var m *recipes.InterProcessMultiLock
							var err error
							if mode == "tx" {
								m, err = recipes.NewTxMultiMutex(fw, set...)
							} else {
								m, err = recipes.NewMultiMutex(fw, set...)
							}
							if err != nil {
								b.Error(err)
								return
							}
							l, err := m.Acquire(ctx)
							if err != nil {
								return // the window ended
							}
							time.Sleep(time.Millisecond) // the critical section, not synchronisation
							n.Add(1)
							if err := l.Release(context.Background()); err != nil {
								b.Error(err)
								return
							}
						}
					}()
				}
				wg.Wait()
				acq := float64(max(n.Load(), 1))
				b.ReportMetric(float64(n.Load())/window.Seconds(), "acq/s")
				reqs := proxy.Requests()
				b.ReportMetric(float64(reqs[zktest.OpGetData])/acq, "getData/acq")
				b.ReportMetric(float64(reqs[zktest.OpGetChildren2])/acq, "list/acq")
				b.ReportMetric(float64(reqs[zktest.OpExists])/acq, "exists/acq")
				b.ReportMetric(float64(proxy.Notifications())/acq, "notif/acq")
			})
		}
	}
}
