package recipes_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// 16 sessions hammer one lock: never two holders, and acquisitions come in
// the order the nodes were created (the fencing tokens only grow).
func TestMutexExclusionAndFairness(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []framework.Option
	}{
		{"requests beside the caller", nil},
	} {
		t.Run(tc.name, func(t *testing.T) { mutexExclusionAndFairness(t, tc.opts...) })
	}
}

func mutexExclusionAndFairness(t *testing.T, opts ...framework.Option) {
	zk := shared
	p := lockPath(t)
	const sessions, rounds = 16, 15
	var holders zktest.Gauge
	var mu sync.Mutex
	var tokens []int64
	var wg sync.WaitGroup
	for i := 0; i < sessions; i++ {
		m := mustMutex(t, zktest.Connect(t, zk, opts...), p)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				l, err := m.Acquire(ctxFor(t, 60*time.Second))
				if err != nil {
					t.Errorf("Acquire: %v", err)
					return
				}
				holders.Enter()
				mu.Lock()
				tokens = append(tokens, tok(t, l))
				mu.Unlock()
				holders.Leave()
				if err := l.Release(context.Background()); err != nil {
					t.Errorf("Release: %v", err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if got := holders.Max(); got != 1 {
		t.Fatalf("max concurrent holders = %d, want 1", got)
	}
	if len(tokens) != sessions*rounds {
		t.Fatalf("%d acquisitions, want %d", len(tokens), sessions*rounds)
	}
	for i := 1; i < len(tokens); i++ {
		if tokens[i] <= tokens[i-1] {
			t.Fatalf("acquisition %d has token %d after %d: not FIFO by node creation", i, tokens[i], tokens[i-1])
		}
	}
}

// 64 waiters queue on one lock; each release wakes exactly one of them: one notification to
// the waiter crosses the wire, and one at most to the releaser (its delete consumes the watch
// its lease kept on its own node, issue 24.2). On the server the waiter's watch and the
// releaser's own go, the new holder's own comes (ZooKeeper counts a path once per session, and
// the 64 waiters share 8 sessions: the count moves by 0 to -2; a herd would empty it).
func TestMutexNoHerd(t *testing.T) {
	zk := zktest.Start(t)
	member := zk.Member(0)
	proxy := zktest.NewProxy(t, member.Addr())
	p := lockPath(t)
	holderFw := zktest.Connect(t, zk)
	holder := mustAcquire(t, mustMutex(t, holderFw, p), 10*time.Second)

	const waiters, perSession = 64, 8
	acquired := make(chan *recipes.Lease, waiters)
	var fws []*framework.Framework
	for i := 0; i < waiters/perSession; i++ {
		fws = append(fws, zktest.Connect(t, zk, framework.WithDialer(proxy.Dialer())))
	}
	for i := 0; i < waiters; i++ {
		m := mustMutex(t, fws[i%len(fws)], p)
		go func() {
			l, err := m.Acquire(context.Background())
			if err != nil {
				t.Errorf("waiter: %v", err)
			}
			acquired <- l
		}()
	}
	// The holder watches its own node, each waiter the node ahead, and the first waiter also its
	// own node (prearm.go), which is one watch more on the server unless the second waiter,
	// watching that same node, shares its session.
	zktest.Eventually(t, 30*time.Second, "64 waiters and the holder to watch", func() bool {
		n, err := member.WatchCount(ctxFor(t, 5*time.Second))
		return err == nil && n == waiters+1+firstOwnWatch(t, holderFw, p)
	})
	release := holder
	for i := 0; i < waiters; i++ {
		notes := proxy.Notifications()
		watches, _ := member.WatchCount(ctxFor(t, 5*time.Second))
		mustRelease(t, release)
		release = zktest.Receive(t, acquired, 20*time.Second, fmt.Sprintf("release %d to wake somebody", i))
		if n := proxy.Notifications() - notes; n < 1 || n > 2 {
			t.Fatalf("release %d: %d watch notifications, want the waiter's and at most the releaser's own", i, n)
		}
		if n, _ := member.WatchCount(ctxFor(t, 5*time.Second)); n > watches || n < watches-2 {
			t.Fatalf("release %d: server watches %d -> %d, want the waiter's and the releaser's gone, the new holder's own set", i, watches, n)
		}
	}
	mustRelease(t, release)
	// The releaser's own watch is counted out when watchmgr's reader takes its event, which
	// the delete's reply may overtake by a few microseconds: settle for at most 5 s.
	for _, fw := range fws {
		zktest.Eventually(t, 5*time.Second, "the waiters' clients to count no live watch", func() bool {
			return fw.Watches() == 0
		})
	}
	if n, _ := member.WatchCount(ctxFor(t, 5*time.Second)); n != 0 {
		t.Fatalf("server still has %d watches", n)
	}
}

// A waiter woken because the first node it watched was deleted holds the lock without listing
// the contenders again, and without a request at all: the data watch it set on its own node
// before the wait (which an operator may have deleted while it waited:
// TestMutexWaiterNodeDeletedBehindHolder) is quiet and on the same connection (prearm.go).
func TestMutexHandoffWithoutRelist(t *testing.T) {
	zk := shared
	p := lockPath(t)
	proxy := zktest.NewProxy(t, zk.Servers()[0])
	a := mustMutex(t, zktest.Connect(t, zk), p)
	fb := zktest.Connect(t, zk, framework.WithDialer(proxy.Dialer()))
	b := mustMutex(t, fb, p)
	la := mustAcquire(t, a, 10*time.Second)
	got := leaseAsync(t, "b", 60*time.Second, b.Acquire)
	zktest.Eventually(t, 10*time.Second, "b to watch", func() bool { return fb.Watches() == 2 }) // a's node and its own
	before := fb.RequestsStarted()
	proxy.ResetCounts()
	mustRelease(t, la)
	lb := receive(t, got, "the waiter after the release")
	if n := fb.RequestsStarted() - before; n != 0 {
		t.Fatalf("handoff sent %d requests from the waiter, want 0 (%v)", n, proxy.Requests())
	}
	if reqs := proxy.Requests(); len(reqs) != 0 {
		t.Fatalf("handoff sent %v, want nothing (the own-node watch was set before the wait)", reqs)
	}
	mustRelease(t, lb)
}

// 64 acquires under random short deadlines while the lock is held: each
// returns the context's error and none leaves a node behind.
func TestMutexCancellationLeavesNoNode(t *testing.T) {
	zk := shared
	p := lockPath(t)
	fw := zktest.Connect(t, zk)
	holder := mustAcquire(t, mustMutex(t, fw, p), 10*time.Second)
	others := []*framework.Framework{zktest.Connect(t, zk), zktest.Connect(t, zk)}
	var wg sync.WaitGroup
	for i := 0; i < 64; i++ {
		m := mustMutex(t, others[i%2], p)
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := time.Duration(1+rand.IntN(200)) * time.Millisecond
			ctx, cancel := context.WithTimeout(context.Background(), d)
			defer cancel()
			l, err := m.Acquire(ctx)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("Acquire with %v deadline: lease %v, err %v; want deadline exceeded", d, l != nil, err)
			}
		}()
	}
	wg.Wait()
	zktest.Eventually(t, 20*time.Second, "abandoned nodes to go", func() bool { return len(zktest.Children(t, fw, p)) == 1 })
	mustRelease(t, holder)
	zktest.Eventually(t, 10*time.Second, "all nodes to go", func() bool { return len(zktest.Children(t, fw, p)) == 0 })
}

// Fencing tokens keep growing even when the lock's container directory is
// reaped and recreated between holders (sequence numbers restart there).
func TestMutexTokenSurvivesContainerReap(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	p := lockPath(t)
	m := mustMutex(t, fw, p)
	var last int64
	for i := 0; i < 3; i++ {
		l := mustAcquire(t, m, 10*time.Second)
		if tok(t, l) <= last {
			t.Fatalf("holder %d token %d not above %d", i, tok(t, l), last)
		}
		last = tok(t, l)
		mustRelease(t, l)
		zktest.Eventually(t, 20*time.Second, "the lock directory to be reaped", func() bool {
			st, err := fw.Exists(ctxFor(t, 5*time.Second), p)
			return err == nil && st == nil
		})
	}
}

// firstOwnWatch is the server watch the first waiter of p adds on its own node: 1, or 0 when
// the second waiter (which watches that node) is of the same session, or when fewer than two
// wait yet.
func firstOwnWatch(t *testing.T, fw *framework.Framework, p string) int {
	t.Helper()
	kids := zktest.Children(t, fw, p)
	if len(kids) < 3 {
		return 0
	}
	slices.SortFunc(kids, func(a, b string) int { return strings.Compare(a[len(a)-10:], b[len(b)-10:]) })
	owner := func(name string) int64 {
		st, err := fw.Exists(ctxFor(t, 5*time.Second), path.Join(p, name))
		if err != nil || st == nil {
			return -1
		}
		return st.EphemeralOwner
	}
	if owner(kids[1]) == owner(kids[2]) {
		return 0
	}
	return 1
}
