package recipes_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// BenchmarkHandoff measures row d in process: two sessions pass one mutex back and forth, the
// waiter queued right behind the holder before each release (so its wake is the node ahead's
// deletion, the first waiter's hand-off), and each op is one hand-off: from the holder's Release
// call to the waiter's Acquire returning. It reports the hand-offs' p50 and p90 (p50-us, p90-us)
// beside ns/op, which also counts the re-queue between hand-offs. Under a context that can end,
// as a user's usually is. Compare revisions by running their test binaries alternately.
func BenchmarkHandoff(b *testing.B) {
	p := lockPath(b)
	queued := [2]chan struct{}{make(chan struct{}, 1), make(chan struct{}, 1)}
	ms := make([]*recipes.InterProcessMutex, 2)
	fws := make([]*framework.Framework, 2)
	for i := range ms {
		fw := zktest.Connect(b, shared, framework.WithSessionTimeout(10*time.Second),
			framework.WithTracer(func(t framework.Trace) {
				if t.Kind == framework.TraceLock && t.Name == "queued" {
					select {
					case queued[i] <- struct{}{}:
					default:
					}
				}
			}))
		ms[i], fws[i] = mustMutex(b, fw, p), fw
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	held, err := ms[0].Acquire(ctx)
	if err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		w := 1 - i%2 // the waiter of this hand-off
		type got struct {
			l   *recipes.Lease
			at  time.Time
			err error
		}
		ch := make(chan got, 1)
		go func() {
			l, err := ms[w].Acquire(ctx)
			ch <- got{l, time.Now(), err}
		}()
		select {
		case <-queued[w]:
		case <-time.After(10 * time.Second):
			b.Fatal("the waiter did not queue within 10 s")
		}
		// Queued is reported before the waiter's watches are set: wait until both are (its own
		// node's and the holder's), polling, since nothing posts an event for it.
		for deadline := time.Now().Add(10 * time.Second); fws[w].Watches() < 2; {
			if time.Now().After(deadline) {
				b.Fatal("the waiter did not set its watches within 10 s")
			}
			time.Sleep(20 * time.Microsecond)
		}
		start := time.Now()
		if err := held.Release(ctx); err != nil {
			b.Fatal(err)
		}
		var g got
		select {
		case g = <-ch:
		case <-time.After(10 * time.Second):
			b.Fatal("the waiter was not granted within 10 s of the release")
		}
		if g.err != nil {
			b.Fatal(g.err)
		}
		lat = append(lat, g.at.Sub(start))
		held = g.l
	}
	b.StopTimer()
	if err := held.Release(ctx); err != nil {
		b.Fatal(err)
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-us")
	b.ReportMetric(float64(lat[len(lat)*9/10].Microseconds()), "p90-us")
}
