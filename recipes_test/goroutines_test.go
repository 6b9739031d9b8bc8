package recipes_test

import (
	"context"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// goroutinesCreated is the number of goroutines this process has started so far.
func goroutinesCreated() uint64 {
	s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// On a small machine each goroutine started (and each hand-off to it) is client CPU taken from
// the server (issue 27): a contended acquire+release under a context that can end must not
// start one goroutine per request. Two sessions take turns on one mutex; the cycles start, on
// average, at most maxPerCycle goroutines: the acquire loop's own, the create's beside its
// listing, the held lease's watch on its node, and the release's delete.
func TestContendedCycleGoroutines(t *testing.T) {
	const cycles, maxPerCycle = 40, 4.5
	p := lockPath(t)
	ms := []*recipes.InterProcessMutex{
		mustMutex(t, zktest.Connect(t, shared, framework.WithSessionTimeout(10*time.Second)), p),
		mustMutex(t, zktest.Connect(t, shared, framework.WithSessionTimeout(10*time.Second)), p),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	before := goroutinesCreated()
	var wg sync.WaitGroup
	for _, m := range ms {
		wg.Go(func() {
			for range cycles {
				l, err := m.Acquire(ctx)
				if err != nil {
					t.Error(err)
					return
				}
				if err := l.Release(ctx); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	per := float64(goroutinesCreated()-before-uint64(len(ms))) / float64(cycles*len(ms))
	t.Logf("%.2f goroutines started per contended cycle", per)
	if per > maxPerCycle {
		t.Fatalf("%.2f goroutines started per acquire+release cycle, want at most %.1f", per, maxPerCycle)
	}
}
