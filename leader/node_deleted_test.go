package leader_test

import (
	"errors"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// Issue 24.2: a leader whose node is deleted by someone else (an operator, another client) is
// told within one notification: its term ends, its Err wraps recipes.ErrLockLost and
// recipes.ErrNodeDeleted. On the old code the term went on while the next candidate led.
func TestTermEndsWhenItsNodeIsDeleted(t *testing.T) {
	fa, fb := zktest.Connect(t, srv), zktest.Connect(t, srv)
	p := electionPath(t)
	latch := mustLatch(t, fa, p)
	term := await(t, latch, 10*time.Second)
	if err := fb.Delete(ctxFor(t, 10*time.Second), term.Path()); err != nil {
		t.Fatalf("operator's delete of %s: %v", term.Path(), err)
	}
	select {
	case <-term.Done():
	case <-time.After(10 * time.Second):
		t.Fatalf("the leader was never told that its node was deleted (Err = %v)", term.Err())
	}
	if err := term.Err(); !errors.Is(err, recipes.ErrLockLost) || !errors.Is(err, recipes.ErrNodeDeleted) {
		t.Fatalf("term Err = %v, want ErrLockLost and ErrNodeDeleted", err)
	}
}
