package recipes_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// BenchmarkMutexRequests counts the requests and notifications of one mutex acquire+release
// cycle, through a proxy, uncontended (one session) and contended (4 sessions on one path):
// the cost of the watch a held lease keeps on its own node (issue 24.2). hold is how long each
// lease is held (the critical section): a lease released at once is usually gone before its
// own-node watch is sent. ns/op is the cycle's time on a shared machine; the per-acquisition
// counts are what to compare.
//
//	go test -run '^$' -bench BenchmarkMutexRequests -benchtime 2000x ./recipes_test/
func BenchmarkMutexRequests(b *testing.B) {
	for _, bc := range []struct {
		sessions int
		hold     time.Duration
	}{{1, 0}, {1, time.Millisecond}, {4, 0}, {4, time.Millisecond}} {
		sessions, hold := bc.sessions, bc.hold
		b.Run(fmt.Sprintf("sessions=%d/hold=%v", sessions, hold), func(b *testing.B) {
			proxy := zktest.NewProxy(b, shared.Servers()[0])
			p := lockPath(b)
			var wg sync.WaitGroup
			per := b.N/sessions + 1
			fws := make([]*framework.Framework, sessions)
			for i := range fws {
				fws[i] = zktest.Connect(b, shared, framework.WithDialer(proxy.Dialer()), framework.WithSessionTimeout(10*time.Second))
			}
			proxy.ResetCounts()
			b.ResetTimer()
			for _, fw := range fws {
				m := mustMutex(b, fw, p)
				wg.Add(1)
				go func() {
					defer wg.Done()
					ctx := context.Background()
					for range per {
						l, err := m.Acquire(ctx)
						if err != nil {
							b.Error(err)
							return
						}
						if hold > 0 {
							time.Sleep(hold) // the critical section's work, not synchronisation
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
			acq := float64(per * sessions)
			reqs := proxy.Requests()
			var total int64
			for op, n := range reqs {
				if op != zktest.OpPing {
					total += n
				}
			}
			b.ReportMetric(float64(total)/acq, "req/acq")
			b.ReportMetric(float64(reqs[zktest.OpGetData])/acq, "getData/acq")
			b.ReportMetric(float64(reqs[zktest.OpGetChildren2])/acq, "list/acq")
			b.ReportMetric(float64(reqs[zktest.OpExists])/acq, "exists/acq")
			b.ReportMetric(float64(proxy.Notifications())/acq, "notif/acq")
		})
	}
}
