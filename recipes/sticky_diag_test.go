package recipes_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// TestDiagStickyAffinity is the diagnostic behind docs/performance.md "Session 10: s2": the
// bench's s2 pattern (8 sessions, 64 sticky mutexes, each session taking 90 % of its
// acquisitions on its own 8, the rest on the other 56) for a few seconds, every acquisition
// classified by the test hooks (recipes.StickySnapshot), off the acquire path: local (a
// re-grant of the slot), full (no wait) or handover (queued behind another node), for the
// lock's owner and for a visitor; how many releases found the adaptive off-switch on; and the
// requests the framework traced. It logs figures and asserts nothing (speed is measured, not
// tested). Run with
//
//	ZKRECIPES_STICKY_DIAG=1 go test -count=1 -v -run TestDiagStickyAffinity ./recipes/
func TestDiagStickyAffinity(t *testing.T) {
	if os.Getenv("ZKRECIPES_STICKY_DIAG") == "" {
		t.Skip("a diagnostic: set ZKRECIPES_STICKY_DIAG=1")
	}
	for _, d := range []time.Duration{time.Second, 3 * time.Second} {
		t.Run(d.String(), func(t *testing.T) { diagAffinity(t, d) })
	}
}

// affinityStats counts one run's acquisitions: [owner, visitor][local, full, handover].
type affinityStats struct {
	mu             sync.Mutex
	acq            [2][3]int64
	rel, offRel    [2]int64
	ops, writes    atomic.Int64
	noNodeDeletes  atomic.Int64
	failedAcquires int64
}

const (
	diagSessions = 8
	diagPaths    = 64
	diagOwnPct   = 90
)

func diagAffinity(t *testing.T, d time.Duration) {
	root := zktest.UniquePath(t, "/diag-s2")
	var st affinityStats
	ctx, cancel := context.WithTimeout(context.Background(), d+30*time.Second)
	defer cancel()
	var deadline time.Time
	start := make(chan struct{}) // closed once every session is set up
	var wg sync.WaitGroup
	for i := range diagSessions {
		var queued atomic.Bool
		fw := testFramework(t, framework.WithTracer(func(tr framework.Trace) {
			switch {
			case tr.Kind == framework.TraceLock && tr.Name == "queued":
				queued.Store(true)
			case tr.Kind == framework.TraceOperation:
				st.ops.Add(1)
				if strings.HasPrefix(tr.Name, "create") || tr.Name == "delete" || tr.Name == "multi" {
					st.writes.Add(1)
				}
				if tr.Name == "delete" && errors.Is(tr.Err, framework.ErrNoNode) {
					st.noNodeDeletes.Add(1)
				}
			}
		}))
		ms := make([]*recipes.InterProcessMutex, diagPaths)
		for k := range ms {
			m, err := recipes.NewMutex(fw, fmt.Sprintf("%s/lock-%d", root, k), recipes.WithSticky(0))
			if err != nil {
				t.Fatal(err)
			}
			ms[k] = m
			t.Cleanup(func() { m.Close(context.Background()) })
		}
		rng := rand.New(rand.NewPCG(uint64(i), uint64(time.Now().UnixNano())))
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for time.Now().Before(deadline) && ctx.Err() == nil {
				k := diagPick(rng, i)
				st.cycle(ctx, ms[k].Lock, k/(diagPaths/diagSessions) != i, &queued)
			}
		}()
	}
	deadline = time.Now().Add(d)
	close(start)
	wg.Wait()
	st.log(t, d)
}

// diagPick is the bench's affinity pick (bench/internal/harness affinityPick).
func diagPick(rng *rand.Rand, i int) int {
	share := diagPaths / diagSessions
	if rng.IntN(100) < diagOwnPct {
		return i*share + rng.IntN(share)
	}
	k := rng.IntN(diagPaths - share)
	if k >= i*share {
		k += share
	}
	return k
}

// cycle takes and releases l once and classifies the acquisition.
func (st *affinityStats) cycle(ctx context.Context, l *recipes.Lock, visitor bool, queued *atomic.Bool) {
	who := 0
	if visitor {
		who = 1
	}
	slot0, r0, _ := recipes.StickySnapshot(l)
	queued.Store(false)
	lease, err := l.Acquire(ctx)
	if err != nil {
		st.mu.Lock()
		st.failedAcquires++
		st.mu.Unlock()
		return
	}
	slot1, r1, off := recipes.StickySnapshot(l)
	kind := 1
	switch {
	case slot0 != nil && slot1 == slot0 && r1 == r0+1:
		kind = 0
	case queued.Load():
		kind = 2
	}
	_ = lease.Release(ctx)
	st.mu.Lock()
	st.acq[who][kind]++
	st.rel[who]++
	if off {
		st.offRel[who]++
	}
	st.mu.Unlock()
}

func (st *affinityStats) log(t *testing.T, d time.Duration) {
	st.mu.Lock()
	defer st.mu.Unlock()
	var total int64
	for _, w := range st.acq {
		for _, n := range w {
			total += n
		}
	}
	pct := func(n int64) float64 { return 100 * float64(n) / float64(max(total, 1)) }
	for who, name := range []string{"owner", "visitor"} {
		a := st.acq[who]
		t.Logf("%v %s: local %d (%.1f%%), full %d (%.1f%%), handover %d (%.1f%%); releases with the off-switch on %d of %d",
			d, name, a[0], pct(a[0]), a[1], pct(a[1]), a[2], pct(a[2]), st.offRel[who], st.rel[who])
	}
	t.Logf("%v: %d acquisitions (%.0f/s), %.2f requests and %.2f write requests per acquisition, %d deletes answered NoNode, %d failed",
		d, total, float64(total)/d.Seconds(), float64(st.ops.Load())/float64(max(total, 1)),
		float64(st.writes.Load())/float64(max(total, 1)), st.noNodeDeletes.Load(), st.failedAcquires)
}
