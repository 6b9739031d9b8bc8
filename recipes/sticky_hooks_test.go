package recipes_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// Sticky leases (issue 28): every refusal of a local re-grant holds on the re-grant's own
// checks, with the slot's event handlers held (recipes.HoldStickyHandlers), as when an event has
// just arrived and no handler has run yet.

// stickyIdle takes and releases a sticky mutex of fw on p once, and returns it with its idle
// node's path.
func stickyIdle(t *testing.T, fw *framework.Framework, p string) (*recipes.InterProcessMutex, string) {
	t.Helper()
	m, err := recipes.NewMutex(fw, p, recipes.WithSticky(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	l, err := m.Acquire(testCtx(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	node := l.Path()
	if err := l.Release(testCtx(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	zktest.Eventually(t, 10*time.Second, "the slot to be idle (its first listing decided)", func() bool { return recipes.StickyIdle(m.Lock) })
	return m, node
}

// proxiedFramework opens a framework on the examples' ZooKeeper through a proxy of its own,
// for a test that cuts, blackholes or counts its connection.
func proxiedFramework(t *testing.T, opts ...framework.Option) (*zktest.Proxy, *framework.Framework) {
	t.Helper()
	proxy := zktest.NewProxy(t, servers()[0])
	return proxy, testFramework(t, append([]framework.Option{framework.WithDialer(proxy.Dialer())}, opts...)...)
}

// readAfter makes one read on fw: its reply comes after every event the server sent fw before.
// The directory may be gone (an emptied container, reaped).
func readAfter(t *testing.T, fw *framework.Framework, p string) {
	t.Helper()
	if _, _, err := fw.Children(testCtx(t, 10*time.Second), p); err != nil && !errors.Is(err, framework.ErrNoNode) {
		t.Fatal(err)
	}
}

// queueBehind starts a plain Acquire on p from fw, and waits until its node is listed.
func queueBehind(t *testing.T, fw *framework.Framework, p string) <-chan *recipes.Lease {
	t.Helper()
	m, err := recipes.NewMutex(fw, p)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan *recipes.Lease, 1)
	ctx := testCtx(t, 30*time.Second)
	go func() {
		l, err := m.Acquire(ctx)
		if err != nil {
			t.Errorf("contender: %v", err)
		}
		got <- l
	}()
	zktest.Eventually(t, 10*time.Second, "the contender to queue", func() bool {
		kids, _, err := fw.Children(testCtx(t, 10*time.Second), p)
		return err == nil && len(kids) == 2
	})
	return got
}

// TestStickyRegrantRefusedOnItsOwnChecks: each case changes the world behind an idle node,
// makes sure the sticky process has received the news, and then asks for a local re-grant,
// which must be refused (a new node, or busy), although no handler has acted on the news yet.
func TestStickyRegrantRefusedOnItsOwnChecks(t *testing.T) {
	for _, tc := range []struct {
		name string
		// change acts on the idle node of fa (reached through proxy) from fb, and returns a
		// contender's lease channel when one queued.
		change func(t *testing.T, proxy *zktest.Proxy, fa, fb *framework.Framework, p, node string) <-chan *recipes.Lease
		policy framework.ErrorPolicy
	}{
		{"contender queued", func(t *testing.T, _ *zktest.Proxy, fa, fb *framework.Framework, p, _ string) <-chan *recipes.Lease {
			got := queueBehind(t, fb, p)
			readAfter(t, fa, p)
			return got
		}, framework.StandardPolicy},
		{"node deleted", func(t *testing.T, _ *zktest.Proxy, fa, fb *framework.Framework, p, node string) <-chan *recipes.Lease {
			if err := fb.Delete(testCtx(t, 10*time.Second), node); err != nil {
				t.Fatal(err)
			}
			readAfter(t, fa, p)
			return nil
		}, framework.StandardPolicy},
		{"session expired", func(t *testing.T, _ *zktest.Proxy, fa, _ *framework.Framework, p, _ string) <-chan *recipes.Lease {
			if err := zktest.Expire(testCtx(t, 20*time.Second), exampleZK, fa); err != nil {
				t.Fatal(err)
			}
			return nil
		}, framework.StandardPolicy},
		{"past the deadline", func(t *testing.T, proxy *zktest.Proxy, fa, _ *framework.Framework, _, _ string) <-chan *recipes.Lease {
			sess := fa.Session()
			proxy.Blackhole(true)
			t.Cleanup(func() { proxy.Blackhole(false) })
			zktest.Eventually(t, 20*time.Second, "the epoch to pass its deadline", func() bool { return sess.Err() != nil })
			return nil
		}, framework.SessionPolicy},
		{"contender queued while disconnected (standard policy)", reconnectWithContender, framework.StandardPolicy},
		{"contender queued while disconnected (session policy)", reconnectWithContender, framework.SessionPolicy},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proxy, fa := proxiedFramework(t, framework.WithErrorPolicy(tc.policy))
			fb := testFramework(t)
			p := "/sticky-refusals/" + t.Name()
			a, node := stickyIdle(t, fa, p)
			release := recipes.HoldStickyHandlers()
			defer release()
			got := tc.change(t, proxy, fa, fb, p, node)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			l, err := a.TryAcquire(ctx)
			if err == nil && l.Path() == node {
				t.Fatalf("re-granted the idle node %s locally after: %s", node, tc.name)
			}
			if got != nil && err == nil {
				t.Fatalf("TryAcquire got %s while a contender queued first", l.Path())
			}
			release()
			if err == nil {
				if err := l.Release(testCtx(t, 10*time.Second)); err != nil {
					t.Fatal(err)
				}
			}
			if got != nil {
				if lb := zktest.Receive(t, got, 20*time.Second, "the queued contender's lease"); lb != nil {
					if err := lb.Release(testCtx(t, 10*time.Second)); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := a.Close(testCtx(t, 20*time.Second)); err != nil && !errors.Is(err, framework.ErrClosed) {
				t.Logf("close: %v", err)
			}
		})
	}
}

// reconnectWithContender cuts fa off, queues a contender from fb while fa is disconnected, and
// lets fa reconnect: the contender exists before fa can send anything again.
func reconnectWithContender(t *testing.T, proxy *zktest.Proxy, fa, fb *framework.Framework, p, _ string) <-chan *recipes.Lease {
	proxy.Blackhole(true)
	t.Cleanup(func() { proxy.Blackhole(false) })
	zktest.Eventually(t, 20*time.Second, "fa to notice the disconnect", func() bool { return !fa.State().IsConnected() })
	got := queueBehind(t, fb, p)
	proxy.Blackhole(false)
	zktest.Eventually(t, 20*time.Second, "fa to reconnect", func() bool { return fa.State().IsConnected() })
	return got
}
