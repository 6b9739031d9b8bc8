package leader_test

import (
	"context"
	"errors"
	"fmt"
	"path"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/leader"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

var mutexNode = regexp.MustCompile(`^_c_[0-9a-f-]{36}-lock-[0-9]{10}$`)

// mustSelector returns a started selector on p, closed at cleanup.
func mustSelector(t testing.TB, fw *framework.Framework, p string, fn leader.TakeoverFunc, opts ...leader.Option) *leader.LeaderSelector {
	t.Helper()
	s, err := leader.NewSelector(fw, p, fn, opts...)
	if err != nil {
		t.Fatalf("NewSelector: %v", err)
	}
	if err := s.Start(); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { s.Close(ctxFor(t, 10*time.Second)) })
	return s
}

// Curator's testRotatingLeadership: three auto-requeueing selectors lead in turn, in FIFO
// order, one at a time, for several rounds; after Close nothing is left.
func TestSelectorRotatesExclusively(t *testing.T) {
	p := electionPath(t)
	const n, rounds = 3, 4
	var leaders zktest.Gauge
	var mu sync.Mutex
	var order []string
	enough := make(chan struct{})
	gate := make(chan struct{}) // the first leader holds its first term until all have queued
	var fws []*framework.Framework
	var sels []*leader.LeaderSelector
	for i := 0; i < n; i++ {
		id := fmt.Sprint(i)
		fw := zktest.Connect(t, srv)
		fws = append(fws, fw)
		takeover := func(ctx context.Context, term *leader.Term) error {
			<-gate
			leaders.Enter()
			defer leaders.Leave()
			mu.Lock()
			order = append(order, id)
			if len(order) == n*rounds {
				close(enough)
			}
			more := len(order) < n*rounds
			mu.Unlock()
			if !more {
				<-ctx.Done() // hold until Close
				return ctx.Err()
			}
			time.Sleep(5 * time.Millisecond) // the leader's work
			return nil
		}
		sels = append(sels, mustSelector(t, fw, p, takeover, leader.WithID(id), leader.WithAutoRequeue()))
		zktest.Eventually(t, 10*time.Second, "the selector to queue", func() bool { return len(zktest.Children(t, fw, p)) == i+1 })
	}
	close(gate)
	zktest.Receive(t, enough, 60*time.Second, "enough terms")
	for _, s := range sels {
		if err := s.Close(ctxFor(t, 10*time.Second)); err != nil {
			t.Fatalf("Close: %v", err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for i, id := range order {
		if id != fmt.Sprint(i%n) {
			t.Fatalf("leaders in order %v, want rounds of 0..%d", order, n-1)
		}
	}
	if leaders.Max() != 1 {
		t.Fatalf("%d leaders at once", leaders.Max())
	}
	zktest.Eventually(t, 10*time.Second, "no nodes", func() bool { return len(zktest.Children(t, fws[0], p)) == 0 })
	zktest.CheckNoWatches(t, srv, fws...)
}

// Curator's layout (an InterProcessMutex at P) and ids: the id is the node's data; an empty id
// stores the framework's default data. A plain recipes mutex on the same path shares the queue.
func TestSelectorLayoutAndParticipants(t *testing.T) {
	p := electionPath(t)
	fa := zktest.Connect(t, srv)
	fb := zktest.Connect(t, srv, framework.WithDefaultData([]byte("10.0.0.7")))
	terms := make(chan *leader.Term, 1)
	a := mustSelector(t, fa, p, func(ctx context.Context, term *leader.Term) error {
		terms <- term
		<-ctx.Done()
		return nil
	}, leader.WithID("alpha"))
	term := zktest.Receive(t, terms, 10*time.Second, "a to lead")
	b := mustSelector(t, fb, p, func(ctx context.Context, _ *leader.Term) error { return nil })
	zktest.Eventually(t, 10*time.Second, "b to queue", func() bool { return len(zktest.Children(t, fa, p)) == 2 })
	if !mutexNode.MatchString(path.Base(term.Path())) {
		t.Fatalf("leader node %q, want _c_<uuid>-lock-<seq>", term.Path())
	}
	parts, err := b.Participants(ctxFor(t, 5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 2 || parts[0] != (leader.Participant{ID: "alpha", Path: term.Path(), IsLeader: true}) ||
		parts[1].ID != "10.0.0.7" || parts[1].IsLeader {
		t.Fatalf("participants %+v, want alpha leading, then the default data", parts)
	}
	m, err := recipes.NewMutex(fa, p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.TryAcquire(ctxFor(t, 5*time.Second)); !errors.Is(err, recipes.ErrLocked) {
		t.Fatalf("a mutex on the election path: %v, want ErrLocked while a leads", err)
	}
	if !a.HasLeadership() || b.HasLeadership() {
		t.Fatalf("HasLeadership a=%v b=%v", a.HasLeadership(), b.HasLeadership())
	}
}

// Close cancels a running takeover with ErrClosed, waits for it, and deletes the node; a queued
// selector's Close removes its node too.
func TestSelectorCloseCancelsTakeover(t *testing.T) {
	p := electionPath(t)
	fa, fb := zktest.Connect(t, srv), zktest.Connect(t, srv)
	causes := make(chan error, 1)
	led := make(chan struct{})
	a := mustSelector(t, fa, p, func(ctx context.Context, term *leader.Term) error {
		close(led)
		<-ctx.Done()
		causes <- term.Err()
		return ctx.Err()
	})
	<-led
	b := mustSelector(t, fb, p, func(ctx context.Context, _ *leader.Term) error { return nil })
	zktest.Eventually(t, 10*time.Second, "b to queue", func() bool { return len(zktest.Children(t, fa, p)) == 2 })
	if err := b.Close(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := <-causes; !errors.Is(err, leader.ErrClosed) {
		t.Fatalf("term ended with %v, want ErrClosed", err)
	}
	if a.HasLeadership() {
		t.Fatal("leads after Close")
	}
	zktest.Eventually(t, 10*time.Second, "no nodes", func() bool { return len(zktest.Children(t, fa, p)) == 0 })
	zktest.CheckNoWatches(t, srv, fa, fb)
}

// The leader's session expires for real: the takeover's context is cancelled with
// ErrLockLost, the follower leads, and with AutoRequeue the old leader queues again.
func TestSelectorLeaderSessionExpired(t *testing.T) {
	p := electionPath(t)
	proxy := zktest.NewProxy(t, srv.Servers()[0])
	fa := zktest.Connect(t, srv, framework.WithDialer(proxy.Dialer()))
	fb := zktest.Connect(t, srv)
	causes := make(chan error, 4)
	hold := func(ctx context.Context, term *leader.Term) error {
		<-ctx.Done()
		causes <- term.Err()
		return nil
	}
	a := mustSelector(t, fa, p, hold, leader.WithID("a"), leader.WithAutoRequeue())
	zktest.Eventually(t, 10*time.Second, "a to lead", a.HasLeadership)
	bLed := make(chan struct{}, 1)
	b := mustSelector(t, fb, p, func(ctx context.Context, term *leader.Term) error {
		bLed <- struct{}{}
		return hold(ctx, term)
	}, leader.WithID("b"))
	zktest.Eventually(t, 10*time.Second, "b to queue", func() bool { return len(zktest.Children(t, fb, p)) == 2 })
	id, pw := proxy.Session()
	expireSession(t, id, pw)
	err := zktest.Receive(t, causes, 20*time.Second, "a's takeover to be cancelled")
	if !errors.Is(err, recipes.ErrLockLost) {
		t.Fatalf("a's term ended with %v, want ErrLockLost", err)
	}
	zktest.Receive(t, bLed, 20*time.Second, "b to lead")
	zktest.Eventually(t, 20*time.Second, "a to queue again behind b", func() bool {
		ps, err := b.Participants(ctxFor(t, 5*time.Second))
		return err == nil && len(ps) == 2 && ps[0].ID == "b" && ps[1].ID == "a"
	})
	if a.HasLeadership() {
		t.Fatal("two leaders")
	}
}

// Without AutoRequeue a selector leads once; Requeue queues it again (false while queued or
// leading); InterruptLeadership cancels the term with ErrInterrupted.
func TestSelectorRequeueAndInterrupt(t *testing.T) {
	p := electionPath(t)
	fw := zktest.Connect(t, srv)
	causes := make(chan error, 4)
	s := mustSelector(t, fw, p, func(ctx context.Context, term *leader.Term) error {
		<-ctx.Done()
		causes <- term.Err()
		return nil
	})
	zktest.Eventually(t, 10*time.Second, "s to lead", s.HasLeadership)
	if ok, err := s.Requeue(); ok || err != nil {
		t.Fatalf("Requeue while leading = %v, %v; want false, nil", ok, err)
	}
	s.InterruptLeadership()
	if err := <-causes; !errors.Is(err, leader.ErrInterrupted) {
		t.Fatalf("term ended with %v, want ErrInterrupted", err)
	}
	zktest.Eventually(t, 10*time.Second, "the node to go", func() bool { return len(zktest.Children(t, fw, p)) == 0 })
	if s.HasLeadership() {
		t.Fatal("leads after the takeover returned")
	}
	// The worker finishes just after the node goes: Requeue succeeds from then on.
	zktest.Eventually(t, 10*time.Second, "Requeue after the term to succeed", func() bool {
		ok, err := s.Requeue()
		if err != nil {
			t.Fatalf("Requeue after the term: %v", err)
		}
		return ok
	})
	zktest.Eventually(t, 10*time.Second, "s to lead again", s.HasLeadership)
	if err := s.Close(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Requeue(); !errors.Is(err, leader.ErrClosed) {
		t.Fatalf("Requeue after Close: %v, want ErrClosed", err)
	}
	zktest.CheckNoWatches(t, srv, fw)
}

// Bad arguments are errors that name them; calls out of life-cycle order are refused.
func TestSelectorBadArguments(t *testing.T) {
	fw := zktest.Connect(t, srv)
	noop := func(context.Context, *leader.Term) error { return nil }
	for _, tc := range []struct {
		name string
		fw   *framework.Framework
		fn   leader.TakeoverFunc
		opts []leader.Option
		want error
	}{
		{"nil framework", nil, noop, nil, leader.ErrInvalidArgument},
		{"nil takeover", fw, nil, nil, leader.ErrInvalidArgument},
		{"close mode", fw, noop, []leader.Option{leader.WithCloseMode(leader.CloseNotifyLeader)}, leader.ErrInvalidArgument},
		{"nil option", fw, noop, []leader.Option{nil}, leader.ErrInvalidArgument},
		{"negative loss grace", fw, noop, []leader.Option{leader.WithLossGrace(-time.Second)}, leader.ErrInvalidArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := leader.NewSelector(tc.fw, "/x", tc.fn, tc.opts...); !errors.Is(err, tc.want) {
				t.Fatalf("NewSelector: %v, want %v", err, tc.want)
			}
		})
	}
	s, err := leader.NewSelector(fw, "/x", noop)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Requeue(); !errors.Is(err, leader.ErrNotStarted) {
		t.Fatalf("Requeue before Start: %v, want ErrNotStarted", err)
	}
	if err := s.Close(ctxFor(t, time.Second)); !errors.Is(err, leader.ErrNotStarted) {
		t.Fatalf("Close before Start: %v, want ErrNotStarted", err)
	}
}

// The leader's connection is blackholed past its session timeout: its takeover's context is
// cancelled (Suspended) before the follower's takeover starts, and the new token is higher.
func TestSelectorLeaderToldBeforeNextLeader(t *testing.T) {
	p := electionPath(t)
	proxy := zktest.NewProxy(t, srv.Servers()[0])
	fa := zktest.Connect(t, srv, framework.WithDialer(proxy.Dialer()), framework.WithSessionTimeout(2*time.Second))
	fb := zktest.Connect(t, srv)
	var order atomic.Int32 // 1: a told first; 2: b led first
	tokens := make(chan int64, 2)
	takeover := func(follower bool) leader.TakeoverFunc {
		return func(ctx context.Context, term *leader.Term) error {
			if follower {
				order.CompareAndSwap(0, 2) // counts only if a was not told yet
			}
			tok, err := term.Token(ctx)
			if err == nil {
				tokens <- tok
			}
			<-ctx.Done()
			if !follower {
				order.CompareAndSwap(0, 1)
			}
			return nil
		}
	}
	mustSelector(t, fa, p, takeover(false))
	tokA := zktest.Receive(t, tokens, 10*time.Second, "a to lead")
	mustSelector(t, fb, p, takeover(true))
	zktest.Eventually(t, 10*time.Second, "b to queue", func() bool { return len(zktest.Children(t, fb, p)) == 2 })
	proxy.Blackhole(true)
	tokB := zktest.Receive(t, tokens, 30*time.Second, "b to lead")
	if order.Load() != 1 {
		t.Fatal("b's takeover started before a's context was cancelled")
	}
	if tokB <= tokA {
		t.Fatalf("b's token %d not above a's %d", tokB, tokA)
	}
	proxy.Blackhole(false)
}
