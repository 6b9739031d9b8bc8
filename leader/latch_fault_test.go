package leader_test

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/leader"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/retry"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// The leader's session is expired by the server (a forced expiry, so the leader may hear of
// it only after the follower leads: see the blackhole test for that order): the leader's term
// ends with ErrLockLost, the new term's token is higher, and the old leader re-enters the election by itself with a
// new node, behind the new leader (Curator 5.8's LOST handling).
func TestLatchLeaderSessionExpired(t *testing.T) {
	p := electionPath(t)
	proxy := zktest.NewProxy(t, srv.Servers()[0])
	fa := zktest.Connect(t, srv, framework.WithDialer(proxy.Dialer()))
	fb := zktest.Connect(t, srv)
	a := mustLatch(t, fa, p, leader.WithID("a"))
	ta := await(t, a, 10*time.Second)
	b := mustLatch(t, fb, p, leader.WithID("b"))
	zktest.Eventually(t, 10*time.Second, "b to queue", func() bool { return len(zktest.Children(t, fb, p)) == 2 })

	tokA := token(t, ta)
	id, pw := proxy.Session()
	expireSession(t, id, pw)
	tb := await(t, b, 20*time.Second)
	zktest.Eventually(t, 10*time.Second, "a to hear of the expiry", func() bool { return ta.Err() != nil })
	if !errors.Is(ta.Err(), recipes.ErrLockLost) {
		t.Fatalf("a's term ended with %v, want ErrLockLost", ta.Err())
	}
	if tokB := token(t, tb); tokB <= tokA {
		t.Fatalf("b's token %d not above a's %d", tokB, tokA)
	}
	zktest.Eventually(t, 20*time.Second, "a to re-enter behind b", func() bool {
		ps, err := b.Participants(ctxFor(t, 5*time.Second))
		return err == nil && len(ps) == 2 && ps[0].ID == "b" && ps[1].ID == "a"
	})
	if a.HasLeadership() || !b.HasLeadership() {
		t.Fatalf("HasLeadership a=%v b=%v, want false true", a.HasLeadership(), b.HasLeadership())
	}
	if err := b.Close(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	await(t, a, 20*time.Second)
}

// The leader's connection drops and comes back at once, same session. Under the Standard
// policy the term ends on Suspended (the leader hears it before anyone else can lead), the
// follower leads, and the old leader re-enters behind it. Under the Session policy the term
// survives the drop.
func TestLatchLeaderConnectionDrops(t *testing.T) {
	for _, tc := range []struct {
		name   string
		policy framework.ErrorPolicy
		moves  bool
	}{
		{"standard", framework.StandardPolicy, true},
		{"session", framework.SessionPolicy, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := electionPath(t)
			proxy := zktest.NewProxy(t, srv.Servers()[0])
			fa := zktest.Connect(t, srv, framework.WithDialer(proxy.Dialer()), framework.WithErrorPolicy(tc.policy))
			fb := zktest.Connect(t, srv)
			a := mustLatch(t, fa, p, leader.WithID("a"))
			ta := await(t, a, 10*time.Second)
			b := mustLatch(t, fb, p, leader.WithID("b"))
			zktest.Eventually(t, 10*time.Second, "b to queue", func() bool { return len(zktest.Children(t, fb, p)) == 2 })
			states := make(chan framework.ConnectionState, 8)
			defer fa.AddListener(func(s framework.ConnectionState) { states <- s })()

			proxy.DropConnections()
			waitState(t, states, framework.Reconnected)
			if !tc.moves {
				if ta.Err() != nil || !a.HasLeadership() || b.HasLeadership() {
					t.Fatalf("Session policy: a's term ended (%v) on a mere disconnect", ta.Err())
				}
				return
			}
			if !errors.Is(ta.Err(), recipes.ErrLockLost) || !errors.Is(ta.Err(), framework.ErrSuspended) {
				t.Fatalf("a's term ended with %v, want ErrLockLost wrapping ErrSuspended", ta.Err())
			}
			await(t, b, 20*time.Second)
			zktest.Eventually(t, 20*time.Second, "a to re-enter behind b", func() bool {
				ps, err := b.Participants(ctxFor(t, 5*time.Second))
				return err == nil && len(ps) == 2 && ps[1].ID == "a"
			})
			if a.HasLeadership() {
				t.Fatal("two leaders")
			}
		})
	}
}

// waitState waits (bounded) until want arrives on states.
func waitState(t testing.TB, states <-chan framework.ConnectionState, want framework.ConnectionState) {
	t.Helper()
	var seen []framework.ConnectionState
	timeout := time.After(20 * time.Second)
	for {
		select {
		case s := <-states:
			if s == want {
				return
			}
			seen = append(seen, s)
		case <-timeout:
			t.Fatalf("no %v; saw %v", want, seen)
		}
	}
}

// The framework closes under a started latch: Await returns ErrStopped rather than waiting
// forever, and nothing leaks.
func TestLatchFrameworkClosed(t *testing.T) {
	p := electionPath(t)
	fa, fb := zktest.Connect(t, srv), zktest.Connect(t, srv)
	holder := mustLatch(t, fb, p)
	await(t, holder, 10*time.Second)
	a := mustLatch(t, fa, p)
	zktest.Eventually(t, 10*time.Second, "a to queue", func() bool { return len(zktest.Children(t, fb, p)) == 2 })
	fa.Close()
	if _, err := a.Await(ctxFor(t, 20*time.Second)); !errors.Is(err, leader.ErrStopped) {
		t.Fatalf("Await after the framework closed: %v, want ErrStopped", err)
	}
	zktest.Eventually(t, 10*time.Second, "a's node to go", func() bool {
		return len(zktest.Children(t, fb, p)) == 1
	})
}

// The leader's connection is blackholed past its session timeout: it hears that its term ended
// (Suspended) before the follower can lead, nobody leads twice, and the new token is higher.
func TestLatchLeaderToldBeforeNextLeader(t *testing.T) {
	p := electionPath(t)
	proxy := zktest.NewProxy(t, srv.Servers()[0])
	fa := zktest.Connect(t, srv, framework.WithDialer(proxy.Dialer()), framework.WithSessionTimeout(2*time.Second))
	fb := zktest.Connect(t, srv)
	a := mustLatch(t, fa, p, leader.WithID("a"))
	ta := await(t, a, 10*time.Second)
	tokA := token(t, ta)
	b := mustLatch(t, fb, p, leader.WithID("b"))
	zktest.Eventually(t, 10*time.Second, "b to queue", func() bool { return len(zktest.Children(t, fb, p)) == 2 })

	var order atomic.Int32 // 1: a told first; 2: b led first
	go func() { <-ta.Done(); order.CompareAndSwap(0, 1) }()
	proxy.Blackhole(true)
	tb := await(t, b, 30*time.Second)
	order.CompareAndSwap(0, 2)
	if order.Load() != 1 {
		t.Fatal("b led before a was told that its term ended")
	}
	if a.HasLeadership() {
		t.Fatal("a still claims leadership while b leads")
	}
	if tokB := token(t, tb); tokB <= tokA {
		t.Fatalf("b's token %d not above a's %d", tokB, tokA)
	}
	proxy.Blackhole(false)
	zktest.Eventually(t, 30*time.Second, "a to re-enter behind b", func() bool {
		ps, err := b.Participants(ctxFor(t, 5*time.Second))
		return err == nil && len(ps) == 2 && ps[1].ID == "a"
	})
}

// Curator's testNoServerAtStart: a latch started while no server can be reached fails to
// enter, waits for the connection, then leads exactly once and never hears NotLeader.
func TestLatchNoServerAtStart(t *testing.T) {
	p := electionPath(t)
	var refuse atomic.Bool
	refuse.Store(true)
	dial := func(network, addr string, timeout time.Duration) (net.Conn, error) {
		if refuse.Load() {
			return nil, errors.New("test: connection refused")
		}
		return net.DialTimeout(network, addr, timeout)
	}
	fw, logs := quickFailFramework(t, framework.WithDialer(dial), framework.WithSessionTimeout(4*time.Second))
	l, err := leader.NewLatch(fw, p)
	if err != nil {
		t.Fatal(err)
	}
	var isLeader, notLeader atomic.Int32
	l.AddListener(leader.Listener{IsLeader: func() { isLeader.Add(1) }, NotLeader: func() { notLeader.Add(1) }})
	if err := l.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close(context.Background()) })
	zktest.Eventually(t, 20*time.Second, "a failed attempt", func() bool { return logs.Contains("could not enter the election") })
	refuse.Store(false)
	await(t, l, 20*time.Second)
	zktest.Eventually(t, 10*time.Second, "IsLeader", func() bool { return isLeader.Load() == 1 })
	if isLeader.Load() != 1 || notLeader.Load() != 0 {
		t.Fatalf("IsLeader %d times, NotLeader %d times; want 1, 0", isLeader.Load(), notLeader.Load())
	}
}

// flakyDialer connects straight to the server until cut: then it closes every connection it
// made and refuses new ones until healed.
type flakyDialer struct {
	mu     sync.Mutex
	refuse bool
	conns  []net.Conn
}

func (d *flakyDialer) dial(network, addr string, timeout time.Duration) (net.Conn, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.refuse {
		return nil, errors.New("test: connection refused")
	}
	c, err := net.DialTimeout(network, addr, timeout)
	if err == nil {
		d.conns = append(d.conns, c)
	}
	return c, err
}

func (d *flakyDialer) cut() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.refuse = true
	for _, c := range d.conns {
		c.Close()
	}
	d.conns = nil
}

func (d *flakyDialer) heal() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.refuse = false
}

// Under the Session policy an outage shorter than the session does not end the session epoch.
// A waiting latch whose acquire failed during it must still try again when the connection comes
// back with the same session (it waits for a connection-state change, not for a new epoch),
// and lead when the leader leaves.
func TestLatchFollowerRetriesAfterOutage(t *testing.T) {
	p := electionPath(t)
	fa := zktest.Connect(t, srv)
	a := mustLatch(t, fa, p, leader.WithID("a"))
	await(t, a, 10*time.Second)
	d := &flakyDialer{}
	fb, logs := quickFailFramework(t, framework.WithDialer(d.dial), framework.WithErrorPolicy(framework.SessionPolicy),
		framework.WithSessionTimeout(10*time.Second))
	if err := fb.WaitConnected(ctxFor(t, 20*time.Second)); err != nil {
		t.Fatal(err)
	}
	session := fb.SessionID()
	b := mustLatch(t, fb, p, leader.WithID("b"))
	zktest.Eventually(t, 10*time.Second, "b to queue", func() bool { return len(zktest.Children(t, fa, p)) == 2 })
	d.cut()
	zktest.Eventually(t, 20*time.Second, "b's acquire to fail", func() bool { return logs.Contains("could not enter the election") })
	d.heal()
	if err := fb.WaitConnected(ctxFor(t, 20*time.Second)); err != nil || fb.SessionID() != session {
		t.Fatalf("reconnect: %v, session %x; want the same session %x", err, fb.SessionID(), session)
	}
	if err := a.Close(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	await(t, b, 20*time.Second)
}

// quickFailFramework opens a framework on srv that gives up a connection attempt after 200 ms
// and retries an operation once after 10 ms, its warnings logged into the returned buffer, with
// opts (its dialer, session timeout, policy) added; it closes when the test ends.
func quickFailFramework(t *testing.T, opts ...framework.Option) (*framework.Framework, *zktest.LogBuffer) {
	t.Helper()
	logs := &zktest.LogBuffer{}
	fw, err := framework.New(srv.Servers(), append([]framework.Option{
		framework.WithConnectionTimeout(200 * time.Millisecond),
		framework.WithRetryPolicy(retry.ExponentialBackoff(10*time.Millisecond, 1)),
		framework.WithLogger(slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))),
	}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fw.Close() })
	return fw, logs
}
