package leader_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/leader"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// Issue 16.1: what a connection reset of the leader (the session survives) hands over, and
// when.

// lossElection is a leader a, connected through a proxy, and a framework for a follower.
type lossElection struct {
	p      string
	proxy  *zktest.Proxy
	fa, fb *framework.Framework
	states chan framework.ConnectionState // fa's connection states
}

// newLossElection connects a through a proxy with a long session timeout (the default loss
// grace), so that anything handed over well before it was handed over on purpose.
func newLossElection(t *testing.T) *lossElection {
	proxy := zktest.NewProxy(t, srv.Servers()[0])
	e := &lossElection{p: electionPath(t), proxy: proxy, fb: zktest.Connect(t, srv),
		fa:     zktest.Connect(t, srv, framework.WithDialer(proxy.Dialer()), framework.WithSessionTimeout(20*time.Second)),
		states: make(chan framework.ConnectionState, 16)}
	t.Cleanup(e.fa.AddListener(func(s framework.ConnectionState) {
		select {
		case e.states <- s:
		default:
		}
	}))
	return e
}

// queued waits until n candidates are queued.
func (e *lossElection) queued(t *testing.T, n int) {
	t.Helper()
	zktest.Eventually(t, 10*time.Second, "the candidates to queue", func() bool { return len(zktest.Children(t, e.fb, e.p)) == n })
}

// lead starts a's selector and waits until it is queued. a's takeover waits for its context to
// end, sends the time it was told on the returned channel, and returns once then (its clean-up)
// has returned.
func (e *lossElection) lead(t *testing.T, then func(), opts ...leader.Option) <-chan time.Time {
	t.Helper()
	told := make(chan time.Time, 1)
	mustSelector(t, e.fa, e.p, func(ctx context.Context, _ *leader.Term) error {
		<-ctx.Done()
		told <- time.Now()
		then()
		return nil
	}, append([]leader.Option{leader.WithID("a")}, opts...)...)
	e.queued(t, 1)
	return told
}

// follow starts b's selector and waits until it is queued behind a. b's takeover runs led, then
// holds the lead until its context ends.
func (e *lossElection) follow(t *testing.T, led func()) {
	t.Helper()
	mustSelector(t, e.fb, e.p, func(ctx context.Context, _ *leader.Term) error {
		led()
		<-ctx.Done()
		return nil
	}, leader.WithID("b"))
	e.queued(t, 2)
}

// A selector's takeover that takes 2 s to return after its context ended: after a reset, the
// follower's takeover starts only once it has returned (on the old code it started about a
// second after the reset, one round trip after the reconnect: two leaders for a second).
func TestSelectorResetWaitsForTakeoverToReturn(t *testing.T) {
	e := newLossElection(t)
	var aReturned atomic.Bool
	aDone := e.lead(t, func() {
		time.Sleep(2 * time.Second) // the takeover's own clean-up after it was told
		aReturned.Store(true)
	})
	bLed := make(chan bool, 1)
	e.follow(t, func() { bLed <- aReturned.Load() })
	e.proxy.DropConnections()
	told := receive(t, aDone, "a's takeover to be told")
	waitState(t, e.states, framework.Reconnected)
	// The bound is well below the 20 s loss grace.
	after := zktest.Receive(t, bLed, 15*time.Second, "b to lead after a's takeover returned")
	if !after {
		t.Fatalf("b's takeover started %v after a was told, while a's takeover still ran", time.Since(told).Round(time.Millisecond))
	}
}

// A selector's takeover that never returns after a reset blocks the election only for the
// loss grace (WithLossGrace): then its node goes and the follower leads.
func TestSelectorLossGraceEndsATakeoverThatNeverReturns(t *testing.T) {
	const grace = 1500 * time.Millisecond
	e := newLossElection(t)
	unblock := make(chan struct{}) // a's takeover waits on it until the test ends
	aDone := e.lead(t, func() { <-unblock }, leader.WithLossGrace(grace))
	t.Cleanup(func() { close(unblock) }) // runs before the selector's Close
	bLed := make(chan time.Time, 1)
	e.follow(t, func() { bLed <- time.Now() })
	e.proxy.DropConnections()
	told := receive(t, aDone, "a's takeover to be told")
	led := receive(t, bLed, "b to lead after the grace")
	if d := led.Sub(told); d < grace {
		t.Fatalf("b led %v after a was told, before the %v grace", d, grace)
	}
}

// A latch keeps Curator's reset order: the term ends at Suspended, and its node is deleted as
// soon as the connection is back (not after the loss grace: the session timeout here, 20 s),
// then the latch queues again with a new node. The follower may lead right after the
// reconnect: a latch's leader must stop acting as such when its term's Done closes.
func TestLatchResetDeletesNodeAtReconnectAndRequeues(t *testing.T) {
	e := newLossElection(t)
	a := mustLatch(t, e.fa, e.p, leader.WithID("a"))
	ta := await(t, a, 10*time.Second)
	old := ta.Path()
	b := mustLatch(t, e.fb, e.p, leader.WithID("b"))
	e.queued(t, 2)
	e.proxy.DropConnections()
	waitState(t, e.states, framework.Reconnected)
	reconnected := time.Now()
	await(t, b, 10*time.Second)
	if d := time.Since(reconnected); d > 5*time.Second {
		t.Fatalf("b led %v after the reconnect: a's node was kept, not deleted at once", d)
	}
	zktest.Eventually(t, 10*time.Second, "a to queue again with a new node", func() bool {
		kids := zktest.Children(t, e.fb, e.p)
		return len(kids) == 2 && !slices.Contains(kids, old[len(e.p)+1:])
	})
	if a.HasLeadership() {
		t.Fatal("two leaders")
	}
}
