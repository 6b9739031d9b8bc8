package framework_test

import (
	"net"
	"path"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// leaderIndex returns the index of c's leader.
func leaderIndex(t *testing.T, c *zktest.Cluster) int {
	t.Helper()
	deadline := time.Now().Add(bound)
	for time.Now().Before(deadline) {
		for i := range c.Size() {
			if mode, err := c.Member(i).Mode(testCtx(t)); err == nil && mode == "leader" {
				return i
			}
		}
		time.Sleep(100 * time.Millisecond) // polling a server's role: there is no event to await
	}
	t.Fatal("no leader")
	return -1
}

// A protected create whose reply is lost, retried on a follower that has not yet applied it, must
// not leave a second node with our prefix: it would sort ahead of ours and block a lock until our
// session ends. The client creates through the leader (reply cut), then reconnects to a follower
// whose replication link is held (it still re-attaches sessions); the hold ends at the client's
// first sync or create on that follower.
func TestProtectedCreateOnLaggingFollower(t *testing.T) {
	c := zktest.StartEnsemble(t, 3)
	lead := leaderIndex(t, c)
	lag := (lead + 1) % 3
	q := holdQuorumLink(t, c, lag, lead)
	p1 := zktest.NewProxy(t, c.Member(lead).Addr())
	p2 := zktest.NewProxy(t, c.Member(lag).Addr())
	var dials atomic.Int32
	dialer := func(network, addr string, timeout time.Duration) (net.Conn, error) {
		if dials.Add(1) == 1 {
			return p1.Dialer()(network, addr, timeout)
		}
		return p2.Dialer()(network, addr, timeout)
	}
	f := newFW(t, c.Servers(), framework.WithDialer(dialer))
	other := newFW(t, []string{c.Member(lag).Addr()})
	ctx := testCtx(t)
	dir := uniquePath(t)
	if _, err := f.Create(ctx, dir, nil); err != nil {
		t.Fatal(err)
	}
	if err := other.Sync(ctx, dir); err != nil { // the follower has applied all f has seen
		t.Fatal(err)
	}
	if !q.hold() {
		t.Fatal("the follower's replication link cannot be held (the leader sent a snapshot)")
	}
	p1.CutReplyAfter(zktest.OpCreate, zktest.OpCreate2)
	p2.ResetCounts()
	released := make(chan struct{})
	go func() {
		defer close(released)
		defer q.release()
		deadline := time.After(bound)
		for {
			n := p2.Requests()
			if n[zktest.OpSync]+n[zktest.OpCreate]+n[zktest.OpCreate2] > 0 {
				return
			}
			select {
			case <-deadline:
				return
			case <-time.After(5 * time.Millisecond): // polling the proxy's counts: no event to await
			}
		}
	}()
	got, err := f.Create(ctx, dir+"/lock-", nil, framework.Protected(), framework.WithMode(framework.EphemeralSequential))
	<-released
	if err != nil {
		t.Fatalf("protected create: %v", err)
	}
	if dials.Load() < 2 {
		t.Fatal("the create's reply was not cut")
	}
	if err := other.Sync(ctx, dir); err != nil {
		t.Fatal(err)
	}
	kids, _, err := other.Children(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(kids) != 1 || kids[0] != path.Base(got) {
		t.Fatalf("children %v after a protected create that returned %s; want exactly it", kids, path.Base(got))
	}
}
