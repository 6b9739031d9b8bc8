package recipes_test

import (
	"context"
	"fmt"
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
// the server (issue 27). Two sessions take turns on one mutex under a context that can end. The
// acquire loop runs each burst of dependent requests beside the caller and waits on the caller's
// goroutine; the create's goroutine, the bursts and the delete's request run on the Framework's
// warm goroutines (Framework.Go), so a cycle starts hardly any: a worker when more run at once
// than are warm (0.05 measured; 0.9 while a held lease's own-node watch had a reader goroutine
// of its own, until session 21). Before the pool it was
// about 4 (the create's, the first burst, the burst after the wake, the delete's); before the
// loop was cut at its waits, 5.7-5.9. The bound catches a goroutine started per cycle again.
func TestContendedCycleGoroutines(t *testing.T) {
	atMostPerCycle(t, cycleGoroutines(t, 2, 40), 2.0, "contended cycle")
}

// One session alone under a context that can end: the create's goroutine, the burst that lists
// behind it (and, once it has handed the grant over, sets the held lease's own-node watch), and
// the delete's all run on the Framework's warm goroutines: under 0.1 started per cycle measured
// (watchmgr's reader of the own-node watch when its getData is sent before the release). It was
// 3.0-3.3 before the pool, 4.0 while the own-node watch had a goroutine of its own.
func TestUncontendedCycleGoroutines(t *testing.T) {
	atMostPerCycle(t, cycleGoroutines(t, 1, 40), 1.0, "uncontended cycle")
}

// Under a context that cannot end every request runs on the caller's goroutine, except the
// create that the listing rides behind and the held lease's own-node watch (set when the lease
// was granted without an own-node check): both run on the Framework's warm goroutines, so a
// cycle starts hardly any. It was 2.0 per cycle before the pool, 1.0 while armOwn still had a
// goroutine of its own.
func TestBackgroundCycleGoroutines(t *testing.T) {
	atMostPerCycle(t, cycleGoroutinesCtx(t, context.Background(), 1, 40), 0.5, "cycle under context.Background()")
}

// atMostPerCycle logs per, the goroutines started per acquire+release cycle of the kind what,
// and fails the test when it is above bound.
func atMostPerCycle(t *testing.T, per, bound float64, what string) {
	t.Helper()
	t.Logf("%.2f goroutines started per %s", per, what)
	if per > bound {
		t.Fatalf("%.2f goroutines started per acquire+release cycle, want at most %.1f", per, bound)
	}
}

// cycleGoroutines runs cycles acquire+release cycles on each of sessions mutexes of one path,
// concurrently, under a context that can end, and returns the goroutines started per cycle.
func cycleGoroutines(t *testing.T, sessions, cycles int) float64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return cycleGoroutinesCtx(t, ctx, sessions, cycles)
}

// cycleGoroutinesCtx is cycleGoroutines under ctx.
func cycleGoroutinesCtx(t *testing.T, ctx context.Context, sessions, cycles int) float64 {
	t.Helper()
	p := lockPath(t)
	ms := make([]*recipes.InterProcessMutex, sessions)
	for i := range ms {
		ms[i] = mustMutex(t, zktest.Connect(t, shared, framework.WithSessionTimeout(10*time.Second)), p)
	}
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
	return float64(goroutinesCreated()-before-uint64(len(ms))) / float64(cycles*len(ms))
}

// A queued Acquire holds no goroutine beyond its caller's while it waits (the depth target: at
// most one goroutine per waiter), whatever its context: the wait on the watch runs on the
// caller's goroutine.
func TestWaitingAcquireHoldsNoGoroutine(t *testing.T) {
	const waiters = 8
	p := lockPath(t)
	holderFw := zktest.Connect(t, shared, framework.WithSessionTimeout(10*time.Second))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	held, err := mustMutex(t, holderFw, p).Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ms := make([]*recipes.InterProcessMutex, waiters)
	for i := range ms {
		ms[i] = mustMutex(t, zktest.Connect(t, shared, framework.WithSessionTimeout(10*time.Second)), p)
	}
	var wg sync.WaitGroup
	for _, m := range ms {
		wg.Go(func() {
			l, err := m.Acquire(ctx)
			if err == nil {
				err = l.Release(ctx)
			}
			if err != nil {
				t.Error(err)
			}
		})
	}
	for {
		kids, _, err := holderFw.Children(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if len(kids) == waiters+1 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("the waiters did not queue")
		case <-time.After(10 * time.Millisecond):
		}
	}
	// The waiters' last requests end with their replies: settle for at most 5 s.
	extra := acquiring() - waiters
	for deadline := time.Now().Add(5 * time.Second); extra > 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond) // polling a count that no event announces, bounded
		extra = acquiring() - waiters
	}
	if err := held.Release(ctx); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if extra > 0 {
		t.Fatalf("%d queued Acquires hold %d goroutines beyond their callers'", waiters, extra)
	}
}

// acquiring counts the goroutines of this process that run a Lock's acquire (any frame of a
// recipes.Lock method): the callers of Acquire, and any goroutine the library runs for them.
func acquiring() int {
	return zktest.CountGoroutines("zkrecipes/recipes.(*Lock).")
}

// A held lease waits for news of its own node (someone else deleting it) with no goroutine of
// its own: the watch's news calls it back (watchmgr.Watch.OnEvent). Holding many locks, as a
// multi-resource user does, then costs no goroutine per lock. It was one per held lease
// (watchmgr's reader of the watch, started by Watch.Fired) before.
func TestHeldLeasesHoldNoGoroutine(t *testing.T) {
	const held = 20
	fw := zktest.Connect(t, shared, framework.WithSessionTimeout(10*time.Second))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	base := lockPath(t)
	before := goroutinesCreated()
	leases := make([]*recipes.Lease, 0, held)
	for i := range held {
		l, err := mustMutex(t, fw, fmt.Sprintf("%s/%d", base, i)).Acquire(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		leases = append(leases, l)
	}
	for fw.Watches() < held { // each lease's getData sets its watch off the caller's path
		select {
		case <-ctx.Done():
			t.Fatalf("%d own-node watches set within 60 s, want %d", fw.Watches(), held)
		case <-time.After(time.Millisecond): // polling: nothing posts an event for a watch set
		}
	}
	started := goroutinesCreated() - before
	t.Logf("%d goroutines started to acquire and hold %d leases", started, held)
	if started > 4 {
		t.Fatalf("%d goroutines started for %d held leases, want none per lease", started, held)
	}
	for _, l := range leases {
		if err := l.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
}
