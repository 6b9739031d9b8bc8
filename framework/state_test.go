package framework_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// proxied connects a Framework through a fault-injecting proxy to the shared server.
func proxied(t *testing.T, opts ...framework.Option) (*framework.Framework, *zktest.Proxy, *states) {
	t.Helper()
	p := zktest.NewProxy(t, shared.Member(0).Addr())
	f, s := newFWListening(t, nil, append([]framework.Option{framework.WithDialer(p.Dialer())}, opts...)...)
	return f, p, s
}

func waitDone(t *testing.T, s *framework.Session, want error) {
	t.Helper()
	select {
	case <-s.Done():
	case <-time.After(bound):
		t.Fatalf("session epoch 0x%x not ended", s.ID())
	}
	if !errors.Is(s.Err(), want) {
		t.Fatalf("epoch Err = %v, want %v", s.Err(), want)
	}
}

func TestConnectedOnce(t *testing.T) {
	s, withS := listening()
	f, err := framework.New(shared.Servers(), withS)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s.expect(t, framework.Connected)
	if f.State() != framework.Connected || f.Session().ID() != f.SessionID() || f.SessionID() == 0 {
		t.Fatalf("state %v, epoch 0x%x, session 0x%x", f.State(), f.Session().ID(), f.SessionID())
	}
}

func TestSuspendedReconnectedStandardPolicy(t *testing.T) {
	f, p, s := proxied(t)
	epoch := f.Session()
	id := f.SessionID()
	p.DropConnections()
	s.expect(t, framework.Suspended, framework.Reconnected)
	waitDone(t, epoch, framework.ErrSuspended)
	if f.SessionID() != id {
		t.Fatalf("session changed: 0x%x -> 0x%x", id, f.SessionID())
	}
	next := f.Session()
	if next == epoch || next.ID() != id || next.Err() != nil {
		t.Fatalf("new epoch %p (0x%x, %v), old %p", next, next.ID(), next.Err(), epoch)
	}
}

func TestSessionPolicyKeepsEpochAcrossSuspend(t *testing.T) {
	f, p, s := proxied(t, framework.WithErrorPolicy(framework.SessionPolicy))
	epoch := f.Session()
	p.DropConnections()
	s.expect(t, framework.Suspended, framework.Reconnected)
	if epoch.Err() != nil || f.Session() != epoch {
		t.Fatalf("epoch ended on Suspended under SessionPolicy: %v", epoch.Err())
	}
	expire(t, p)
	if got := nextNot(t, s, framework.Suspended); got != framework.Lost {
		t.Fatalf("state %v, want Lost", got)
	}
	s.expect(t, framework.Reconnected)
	waitDone(t, epoch, framework.ErrSessionLost)
}

func expire(t *testing.T, p *zktest.Proxy) {
	t.Helper()
	id, passwd := p.Session()
	if err := zktest.ExpireSession(testCtx(t), shared.Member(0).Addr(), id, passwd); err != nil {
		t.Fatalf("ExpireSession: %v", err)
	}
}

func TestLostOnExpiryThenNewSession(t *testing.T) {
	// SessionPolicy: the epoch survives the Suspended that may precede Lost, so it ends with Lost.
	f, p, s := proxied(t, framework.WithErrorPolicy(framework.SessionPolicy))
	epoch := f.Session()
	id := f.SessionID()
	expire(t, p)
	// The server closes the connection when it expires the session: Suspended may come first.
	got := nextNot(t, s, framework.Suspended)
	if got != framework.Lost {
		t.Fatalf("state %v, want Lost", got)
	}
	s.expect(t, framework.Reconnected)
	waitDone(t, epoch, framework.ErrSessionLost)
	if f.SessionID() == id || f.Session().ID() != f.SessionID() {
		t.Fatalf("session 0x%x after expiry of 0x%x (epoch 0x%x)", f.SessionID(), id, f.Session().ID())
	}
	if _, err := f.Exists(testCtx(t), "/"); err != nil {
		t.Fatalf("Exists on the new session: %v", err)
	}
}

func TestLostWhenSuspendedLongerThanSessionTimeout(t *testing.T) {
	f, p, s := proxied(t, framework.WithSessionTimeout(time.Second))
	epoch := f.Session()
	id := f.SessionID()
	p.Blackhole(true)
	s.expect(t, framework.Suspended, framework.Lost)
	waitDone(t, epoch, framework.ErrSuspended) // StandardPolicy: the epoch ended at Suspended
	p.Blackhole(false)
	s.expect(t, framework.Reconnected)
	if f.SessionID() == id {
		t.Fatalf("same session 0x%x after a partition longer than its timeout", id)
	}
}

// nextNot returns the next state that is not skip.
func nextNot(t *testing.T, s *states, skip framework.ConnectionState) framework.ConnectionState {
	t.Helper()
	for {
		select {
		case got := <-s.ch:
			if got != skip {
				return got
			}
		case <-time.After(bound):
			t.Fatal("no state change")
		}
	}
}

// A listener sees Suspended then Reconnected, with the same session, when the
// server itself stops and comes back within the session timeout.
func TestSuspendedReconnectedOnServerRestart(t *testing.T) {
	zk := zktest.Start(t)
	// 30 s (zktest's maximum): a JVM restart on a loaded 2-core machine has taken over 10 s.
	f, s := newFWListening(t, zk.Servers(), framework.WithSessionTimeout(30*time.Second))
	id := f.SessionID()
	if err := zk.Member(0).Stop(); err != nil {
		t.Fatal(err)
	}
	s.expect(t, framework.Suspended)
	if err := zk.Member(0).Restart(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	s.expect(t, framework.Reconnected)
	if f.SessionID() != id {
		t.Fatalf("session changed across a short restart: 0x%x -> 0x%x", id, f.SessionID())
	}
	if _, err := f.Exists(testCtx(t), "/"); err != nil {
		t.Fatalf("operation after the restart: %v", err)
	}
}

// A listener given to New sees the first Connected even when the connection is up before the
// caller looks; one added once Connected was delivered does not (the race that failed
// TestClosedRefusesEverything's setup once in CI: Connected delivered before AddListener ran).
func TestWithListenerSeesFirstConnected(t *testing.T) {
	early := make(chan framework.ConnectionState, 100)
	f, err := framework.New(shared.Servers(), framework.WithListener(func(cs framework.ConnectionState) { early <- cs }))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	if err := f.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	if cs := zktest.Receive(t, early, bound, "the first state of the listener given to New"); cs != framework.Connected {
		t.Fatalf("WithListener saw %v first, want Connected", cs)
	}
	late := make(chan framework.ConnectionState, 100) // added once Connected was delivered
	f.AddListener(func(cs framework.ConnectionState) { late <- cs })
	if _, err := f.Exists(ctx, "/"); err != nil { // a round trip: anything posted before it is delivered
		t.Fatal(err)
	}
	select {
	case cs := <-late:
		t.Fatalf("a listener added after the connection saw %v: the test no longer shows the race", cs)
	default:
	}
}

// A nil listener given to New is refused, naming it, before anything connects.
func TestWithListenerNil(t *testing.T) {
	f, err := framework.New(shared.Servers(), framework.WithListener(nil))
	if !errors.Is(err, framework.ErrInvalidOption) || f != nil {
		t.Fatalf("New(WithListener(nil)) = %v, %v; want ErrInvalidOption", f, err)
	}
}
