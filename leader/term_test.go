package leader_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/leader"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// Once its lease has ended, a term reports its own end on every call that follows, from any
// goroutine: Done, Context().Err() and Err. The lease's cancel closes the lease's Done before it
// reaches the term's context (its child), so a term that only relied on that propagation could
// answer "held" to a holder who checks between the two. A holder resumed after a pause hit that
// window (TestPausedHolderNeverWritesAfterResume, term/done: one write 2.9 ms after the resume,
// in a CI run). Here an observer on another goroutine checks, over many releases, every
// ordering of "the lease has ended" then "the term still looks live".
func TestTermEndsWithItsLeaseForEveryObserver(t *testing.T) {
	fw := zktest.Connect(t, srv)
	m, err := recipes.NewMutex(fw, electionPath(t))
	if err != nil {
		t.Fatal(err)
	}
	checks := map[string]func(*leader.Term) bool{ // each says whether the term looks live
		"done": func(term *leader.Term) bool {
			select {
			case <-term.Done():
				return false
			default:
				return true
			}
		},
		"ctx": func(term *leader.Term) bool { return term.Context().Err() == nil },
		"err": func(term *leader.Term) bool { return term.Err() == nil },
	}
	const trials = 300
	for name, live := range checks {
		t.Run(name, func(t *testing.T) {
			seen, observed := 0, 0 // looked live; checked at all (the lease's end seen in time)
			for range trials {
				lease, err := m.Acquire(ctxFor(t, 10*time.Second))
				if err != nil {
					t.Fatal(err)
				}
				term := leader.NewTermOf(lease)
				var wg sync.WaitGroup
				wg.Add(1)
				start := make(chan struct{})
				go func() {
					defer wg.Done()
					close(start)
					for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
						select {
						case <-lease.Done(): // no lock: Err would wait for the cancel to finish
						default:
							continue
						}
						observed++
						if live(term) {
							seen++
						}
						return
					}
				}()
				<-start
				if err := lease.Release(context.Background()); err != nil {
					t.Fatal(err)
				}
				wg.Wait()
			}
			if observed != trials {
				t.Fatalf("the observer saw the lease end in %d of %d releases: the rest checked nothing", observed, trials)
			}
			if seen > 0 {
				t.Fatalf("%d of %d releases: the term looked live after its lease had ended", seen, trials)
			}
		})
	}
}
