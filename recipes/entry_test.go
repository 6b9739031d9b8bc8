package recipes_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/recipes"
)

// A contender that is going to wait enters as zk.Lock does, the create and then the listing on
// one goroutine, not with the listing pipelined behind a create on a goroutine of its own (about
// 2.5 goroutine wake-ups per acquisition, issue 27); an acquisition that finds the lock free
// keeps the pipelined entry (one round trip: row a). Sessions rotate on one mutex, each on a
// lock of its own, under both kinds of context; the table gives the share of acquisitions that
// may pipeline: every uncontended one, few contended ones (each lock's first, and those after
// an attempt that found the lock free). Before, every acquisition pipelined.
func TestContendedEntryNotPipelined(t *testing.T) {
	for _, tc := range []struct {
		sessions    int
		cancellable bool
		min, max    float64 // pipelined entries per acquisition
	}{
		{1, false, 1, 1}, {1, true, 1, 1},
		{3, false, 0, 0.5}, {3, true, 0, 0.5},
	} {
		t.Run(fmt.Sprintf("sessions=%d/cancellable=%v", tc.sessions, tc.cancellable), func(t *testing.T) {
			const cycles = 20
			p := "/entry/" + t.Name()
			ms := make([]*recipes.InterProcessMutex, tc.sessions)
			for i := range ms {
				ms[i] = newMutex(t, testFramework(t), p)
			}
			ctx := context.Background()
			if tc.cancellable {
				ctx = testCtx(t, 60*time.Second)
			}
			before := recipes.PipelinedEntries()
			var wg sync.WaitGroup
			for _, m := range ms {
				wg.Go(func() {
					for range cycles {
						l, err := m.Acquire(ctx)
						if err == nil {
							err = l.Release(ctx)
						}
						if err != nil {
							t.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			per := float64(recipes.PipelinedEntries()-before) / float64(cycles*tc.sessions)
			t.Logf("%.2f pipelined entries per acquisition", per)
			if per < tc.min || per > tc.max {
				t.Errorf("%.2f pipelined entries per acquisition, want %.2f to %.2f", per, tc.min, tc.max)
			}
		})
	}
}
