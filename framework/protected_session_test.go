package framework_test

import (
	"context"
	"path"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/retry"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// gatePolicy retries without limit, but holds the first retry until the test opens the gate, so
// that the test can change the world between a failed attempt and the next one.
type gatePolicy struct {
	once    *sync.Once
	entered chan struct{} // closed when the first retry is about to happen
	open    chan struct{} // closed by the test
}

func newGatePolicy() gatePolicy {
	return gatePolicy{once: new(sync.Once), entered: make(chan struct{}), open: make(chan struct{})}
}

func (g gatePolicy) NewBackOff() backoff.BackOff { return gateBackOff{g} }
func (g gatePolicy) Allows(c retry.Class) bool   { return c != retry.Permanent }

type gateBackOff struct{ g gatePolicy }

func (b gateBackOff) NextBackOff() time.Duration {
	first := false
	b.g.once.Do(func() { first = true; close(b.g.entered) })
	if first {
		select {
		case <-b.g.open:
		case <-time.After(bound):
		}
	}
	return 10 * time.Millisecond
}

func (gateBackOff) Reset() {}

// protectedFixture is a framework behind a proxy whose protected creates all use one known GUID,
// and a second framework that can put a node with that GUID in the way.
type protectedFixture struct {
	f, other *framework.Framework
	proxy    *zktest.Proxy
	states   *states
	gate     gatePolicy
	dir      string
	prefix   string
}

func newProtectedFixture(t *testing.T) *protectedFixture {
	gate := newGatePolicy()
	f, p, s := proxied(t, framework.WithRetryPolicy(gate))
	t.Cleanup(func() {
		select {
		case <-gate.open:
		default:
			close(gate.open)
		}
	})
	const id = "0f0e0d0c-0b0a-4908-8706-050403020100"
	framework.SetProtectedIDs(f, func() string { return id })
	fx := &protectedFixture{f: f, other: newFW(t, nil), proxy: p, states: s, gate: gate,
		dir: uniquePath(t), prefix: framework.ProtectedPrefix(id)}
	if _, err := fx.other.Create(testCtx(t), fx.dir, nil); err != nil {
		t.Fatal(err)
	}
	return fx
}

// plant creates, from the other session, an ephemeral node carrying our prefix: the stand-in for a
// node of a dead session that a lagging server still shows.
func (fx *protectedFixture) plant(t *testing.T) string {
	t.Helper()
	n, err := fx.other.Create(testCtx(t), fx.dir+"/"+fx.prefix+"lock-", nil, framework.WithMode(framework.EphemeralSequential))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// createCut starts a protected ephemeral-sequential create whose reply is cut, and returns once
// the create has failed ambiguously and is held before its retry.
func (fx *protectedFixture) createCut(t *testing.T) <-chan string {
	t.Helper()
	fx.proxy.CutReplyAfter(zktest.OpCreate, zktest.OpCreate2)
	fx.proxy.ResetCounts()
	out := make(chan string, 1)
	go func() {
		n, err := fx.f.Create(testCtx(t), fx.dir+"/lock-", nil, framework.Protected(), framework.WithMode(framework.EphemeralSequential))
		if err != nil {
			t.Errorf("protected create: %v", err)
		}
		out <- n
	}()
	select {
	case <-fx.gate.entered:
	case <-time.After(bound):
		t.Fatal("the create's reply was never cut")
	}
	return out
}

// ours returns the children of dir that carry our prefix.
func (fx *protectedFixture) ours(t *testing.T) []string {
	t.Helper()
	kids, _, err := fx.other.Children(testCtx(t), fx.dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, k := range kids {
		if strings.HasPrefix(k, fx.prefix) {
			got = append(got, k)
		}
	}
	return got
}

// waitOnly waits until the only child with our prefix is want.
func (fx *protectedFixture) waitOnly(t *testing.T, want string) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for {
		got := fx.ours(t)
		if len(got) == 1 && got[0] == path.Base(want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("children with our prefix %v, want only %s", got, path.Base(want))
		}
		time.Sleep(20 * time.Millisecond) // polling server state: there is no event to await
	}
}

func (fx *protectedFixture) finish(t *testing.T, out <-chan string) string {
	t.Helper()
	close(fx.gate.open)
	select {
	case n := <-out:
		return n
	case <-time.After(bound):
		t.Fatal("protected create did not return")
		return ""
	}
}

func (fx *protectedFixture) ownedByUs(t *testing.T, n string) {
	t.Helper()
	stat, err := fx.other.Exists(testCtx(t), n)
	if err != nil || stat == nil || stat.EphemeralOwner != fx.f.SessionID() {
		t.Fatalf("%s: stat %+v, %v; want owned by our session 0x%x", n, stat, err, fx.f.SessionID())
	}
}

// The session that sent the create expired before the retry: the retry must not adopt a node with
// our prefix that another session owns. It deletes that node and creates anew in the new session.
func TestProtectedCreateSessionChanged(t *testing.T) {
	fx := newProtectedFixture(t)
	foreign := fx.plant(t)
	out := fx.createCut(t)
	sentBy := fx.f.SessionID()
	if n := len(fx.ours(t)); n != 2 {
		t.Fatalf("%d nodes with our prefix after the cut create, want 2 (the planted one and ours)", n)
	}
	expire(t, fx.proxy)
	waitNewSession(t, fx.f, sentBy)
	got := fx.finish(t, out)
	if got == "" {
		t.Fatal("no node returned")
	}
	if path.Base(got) == path.Base(foreign) {
		t.Fatalf("adopted %s, the node of another session", got)
	}
	fx.ownedByUs(t, got)
	fx.waitOnly(t, got) // the planted node was deleted; the expired session's node went with it
	if n := fx.proxy.Requests()[zktest.OpCreate]; n != 2 {
		t.Fatalf("%d create requests, want 2 (the cut one, then one in the new session)", n)
	}
}

// Same session, but another session's node with our prefix sits next to ours: ours is adopted,
// whatever the listing order, and the other is deleted.
func TestProtectedCreateAdoptsOursBesideForeign(t *testing.T) {
	fx := newProtectedFixture(t)
	foreign := fx.plant(t)
	out := fx.createCut(t)
	got := fx.finish(t, out)
	if got == "" || path.Base(got) == path.Base(foreign) {
		t.Fatalf("returned %q, want our own node (not %s)", got, foreign)
	}
	fx.ownedByUs(t, got)
	fx.waitOnly(t, got)
	if n := fx.proxy.Requests()[zktest.OpCreate]; n != 1 {
		t.Fatalf("%d create requests, want 1 (ours must be adopted)", n)
	}
}

// waitNewSession waits until f is connected in a session other than old.
func waitNewSession(t *testing.T, f *framework.Framework, old int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	for {
		if err := f.WaitConnected(ctx); err != nil {
			t.Fatalf("WaitConnected: %v", err)
		}
		if id := f.SessionID(); id != old && id != 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("still in session 0x%x", old)
		case <-time.After(20 * time.Millisecond): // polling: the state machine posts no event for this
		}
	}
}
