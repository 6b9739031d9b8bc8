package recipes_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// BenchmarkStickyReacquire is issue 28's s1: one process re-acquiring one mutex, nobody else,
// plain and sticky, through a counting proxy. A sticky mutex keeps its node after the first
// release, so each later acquire+release is local: req/acq falls to 0 (the first cycle's
// requests, spread over b.N), and ns/op to the cost of a lease object.
//
//	go test -run '^$' -bench BenchmarkStickyReacquire ./recipes_test/
func BenchmarkStickyReacquire(b *testing.B) {
	for _, sticky := range []bool{false, true} {
		b.Run(fmt.Sprintf("sticky=%v", sticky), func(b *testing.B) {
			proxy := zktest.NewProxy(b, shared.Servers()[0])
			fw := zktest.Connect(b, shared, framework.WithDialer(proxy.Dialer()), framework.WithSessionTimeout(10*time.Second))
			var opts []recipes.LockOption
			if sticky {
				opts = append(opts, recipes.WithSticky(time.Minute))
			}
			m := mustMutex(b, fw, lockPath(b), opts...)
			ctx := context.Background()
			proxy.ResetCounts()
			b.ResetTimer()
			for range b.N {
				l, err := m.Acquire(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if err := l.Release(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			var total int64
			for op, n := range proxy.Requests() {
				if op != zktest.OpPing {
					total += n
				}
			}
			b.ReportMetric(float64(total)/float64(b.N), "req/acq")
			if err := m.Close(ctx); err != nil {
				b.Fatal(err)
			}
		})
	}
}
