package recipes_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// BenchmarkGoZKLock is BenchmarkMutex's loop with go-zookeeper's zk.Lock (v1.0.4), the peer
// that issue 27's targets are relative to, in the same test binary against the same server: one
// session, or 8 sessions of one process rotating on one lock, each acquire+release a cycle. It
// reports the same per-cycle counts (benchcount_test.go), so that ours and zk.Lock's can be
// compared under the same conditions. zk.Lock takes no context: it matches BenchmarkMutex's
// ctx=background rows in what it can be asked to do, and its ctx=cancellable rows in load.
func BenchmarkGoZKLock(b *testing.B) {
	for _, sessions := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("sessions=%d", sessions), func(b *testing.B) {
			p := lockPath(b)
			locks := make([]*zk.Lock, sessions)
			for i := range locks {
				locks[i] = zk.NewLock(goZKConn(b), p, zk.WorldACL(zk.PermAll))
			}
			b.ReportAllocs()
			b.ResetTimer()
			counts := startCounts(b)
			var wg sync.WaitGroup
			per := b.N/sessions + 1
			for _, l := range locks {
				wg.Go(func() {
					for range per {
						if err := l.Lock(); err != nil {
							b.Error(err)
							return
						}
						if err := l.Unlock(); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			b.StopTimer()
			counts.report(b, float64(per*sessions))
		})
	}
}

// goZKConn opens a plain go-zookeeper session to the shared server (as the bench driver's
// zk.Lock peer does, with the benchmarks' 10 s session timeout), waits at most 20 s for it, and
// closes it at the end of the benchmark.
func goZKConn(b *testing.B) *zk.Conn {
	b.Helper()
	conn, ev, err := zk.Connect(shared.Servers(), 10*time.Second, zk.WithLogInfo(false), zk.WithLogger(quietZKLog{}))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(conn.Close)
	timeout := time.After(20 * time.Second)
	for {
		select {
		case e, ok := <-ev:
			if !ok {
				b.Fatal("go-zookeeper: connection closed while connecting")
			}
			if e.State == zk.StateHasSession {
				go func() {
					for range ev { // drained until Close closes it
					}
				}()
				return conn
			}
		case <-timeout:
			b.Fatal("go-zookeeper: no session within 20 s")
		}
	}
}

// quietZKLog drops go-zookeeper's log lines.
type quietZKLog struct{}

func (quietZKLog) Printf(string, ...any) {}
