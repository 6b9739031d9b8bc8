package framework_test

import (
	"context"
	"errors"
	"path"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/retry"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// checkListing fails unless res lists its own node, in the session f runs now.
func checkListing(t *testing.T, f *framework.Framework, res framework.CreateListing) {
	t.Helper()
	if res.Path == "" || res.Session == nil || res.Parent == nil {
		t.Errorf("incomplete listing %+v", res)
		return
	}
	if !slices.Contains(res.Children, path.Base(res.Path)) {
		t.Errorf("listing %v lacks the created %s", res.Children, res.Path)
	}
	if res.Session.ID() != f.SessionID() {
		t.Errorf("created in session 0x%x, running 0x%x", res.Session.ID(), f.SessionID())
	}
}

func lockOpts() []framework.CreateOption {
	return []framework.CreateOption{framework.Protected(), framework.CreatingParents(),
		framework.WithMode(framework.EphemeralSequential)}
}

// The listing sent behind the create always holds the new node; one at a time, it never has to be
// sent again (the listing is queued only once the create is on the socket).
func TestCreateAndListSequential(t *testing.T) {
	f := newFW(t, nil)
	ctx := testCtx(t)
	dir := uniquePath(t)
	if _, err := f.Create(ctx, dir, nil); err != nil {
		t.Fatal(err)
	}
	before := framework.Relists(f)
	const n = 100
	for i := 0; i < n; i++ {
		res, err := f.CreateAndList(ctx, dir+"/lock-", nil, lockOpts()...)
		if err != nil {
			t.Fatal(err)
		}
		checkListing(t, f, res)
		if len(res.Children) != i+1 {
			t.Fatalf("%d children after %d creates", len(res.Children), i+1)
		}
	}
	if r := framework.Relists(f) - before; r != 0 {
		t.Fatalf("%d of %d listings overtook their create", r, n)
	}
}

// Under concurrent creates on one session each listing still holds its own node; the test reports
// how often a listing had to be sent again.
func TestCreateAndListConcurrent(t *testing.T) {
	f := newFW(t, nil)
	ctx := testCtx(t)
	dir := uniquePath(t)
	before := framework.Relists(f)
	const workers, each = 8, 25
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				res, err := f.CreateAndList(ctx, dir+"/lock-", nil, lockOpts()...)
				if err != nil {
					t.Errorf("CreateAndList: %v", err)
					return
				}
				checkListing(t, f, res)
			}
		}()
	}
	wg.Wait()
	t.Logf("%d of %d listings were sent twice", framework.Relists(f)-before, workers*each)
}

// A create whose reply is lost is adopted; the listing holds it, and the epoch returned is the one
// the create was sent in: under StandardPolicy it ended at the Suspended of the lost reply, in the
// session that still owns the node.
func TestCreateAndListAfterCutReply(t *testing.T) {
	f, p, _ := proxied(t)
	ctx := testCtx(t)
	dir := uniquePath(t)
	if _, err := f.Create(ctx, dir, nil); err != nil {
		t.Fatal(err)
	}
	sent := f.Session()
	p.CutReplyAfter(zktest.OpCreate, zktest.OpCreate2)
	res, err := f.CreateAndList(ctx, dir+"/lock-", nil, lockOpts()...)
	if err != nil {
		t.Fatal(err)
	}
	checkListing(t, f, res)
	if res.Session != sent || !errors.Is(res.Session.Err(), framework.ErrSuspended) {
		t.Fatalf("epoch %p (%v), want the ended epoch %p the create was sent in", res.Session, res.Session.Err(), sent)
	}
	if f.Session() == sent {
		t.Fatal("no new epoch after the reconnect")
	}
}

func TestCreateAndListErrors(t *testing.T) {
	f := newFW(t, nil)
	ctx := testCtx(t)
	dir := uniquePath(t)
	res, err := f.CreateAndList(ctx, dir+"/missing/lock-", nil, framework.WithMode(framework.EphemeralSequential))
	if !errors.Is(err, framework.ErrNoNode) || res.Path != "" {
		t.Fatalf("CreateAndList under a missing parent = %+v, %v; want ErrNoNode and no path", res, err)
	}
	if _, err := f.CreateAndList(ctx, "bad", nil); !errors.Is(err, framework.ErrInvalidPath) {
		t.Fatalf("CreateAndList of a bad path = %v", err)
	}
	p, sess, err := f.CreateIn(ctx, dir, nil)
	if err != nil || p != dir || sess != f.Session() {
		t.Fatalf("CreateIn = %q, %p, %v; want %q in the current epoch %p", p, sess, err, dir, f.Session())
	}
}

// The listing is sent before the create is answered: with the server frozen, both requests reach
// it.
func TestCreateAndListPipelines(t *testing.T) {
	c := zktest.Start(t)
	p := zktest.NewProxy(t, c.Member(0).Addr())
	f := newFW(t, c.Servers(), framework.WithDialer(p.Dialer()), framework.WithSessionTimeout(20*time.Second))
	ctx := testCtx(t)
	dir := uniquePath(t)
	if _, err := f.Create(ctx, dir, nil); err != nil {
		t.Fatal(err)
	}
	p.ResetCounts()
	if err := c.Member(0).Pause(); err != nil {
		t.Fatal(err)
	}
	resumed := false
	resume := func() {
		if !resumed {
			resumed = true
			if err := c.Member(0).Resume(); err != nil {
				t.Error(err)
			}
		}
	}
	defer resume()
	out := make(chan error, 1)
	go func() {
		res, err := f.CreateAndList(ctx, dir+"/lock-", nil, lockOpts()...)
		if err == nil {
			checkListing(t, f, res)
		}
		out <- err
	}()
	deadline := time.After(bound)
	for {
		n := p.Requests()
		if n[zktest.OpGetChildren]+n[zktest.OpGetChildren2] > 0 {
			break
		}
		select {
		case <-deadline:
			t.Fatalf("no listing sent while the create waits for its answer (requests %v)", n)
		case err := <-out:
			t.Fatalf("CreateAndList returned %v from a frozen server", err)
		case <-time.After(5 * time.Millisecond): // polling the proxy's counts: no event to await
		}
	}
	resume()
	select {
	case err := <-out:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(bound):
		t.Fatal("CreateAndList did not return")
	}
}

// A create issued before the first session exists (no WaitConnected) reports the epoch of the
// session that made the node, not the placeholder epoch of before the connection.
func TestCreateInBeforeConnected(t *testing.T) {
	p := zktest.NewProxy(t, shared.Member(0).Addr())
	p.Blackhole(true)
	f, err := framework.New(shared.Servers(), framework.WithDialer(p.Dialer()),
		framework.WithConnectionTimeout(100*time.Millisecond), framework.WithRetryPolicy(retry.Forever(50*time.Millisecond)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := make(chan error, 1)
	var sess *framework.Session
	go func() {
		var err error
		_, sess, err = f.CreateIn(testCtx(t), uniquePath(t), nil, framework.WithMode(framework.Ephemeral))
		out <- err
	}()
	deadline := time.After(bound)
	for p.Connections() == 0 { // the create is called before any session exists
		select {
		case <-deadline:
			t.Fatal("the client never dialed")
		case <-time.After(5 * time.Millisecond): // polling a counter: there is no event to await
		}
	}
	p.Blackhole(false)
	select {
	case err := <-out:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(bound):
		t.Fatal("CreateIn did not return")
	}
	if sess.ID() == 0 || sess.ID() != f.SessionID() || sess.Err() != nil {
		t.Fatalf("epoch 0x%x (%v), session 0x%x; want the live epoch of the session", sess.ID(), sess.Err(), f.SessionID())
	}
}

// A caller whose ctx ends while the create is in flight returns at once; the node the create
// still makes is deleted. The create runs its requests inline on a goroutine of its own, so this
// is the path that abandons it (the reply comes 400 ms after the 50 ms deadline).
func TestCreateAndListAbandonedDeletesItsNode(t *testing.T) {
	f, p, _ := proxied(t)
	ctx := testCtx(t)
	dir := uniquePath(t)
	if _, err := f.Create(ctx, dir, nil); err != nil {
		t.Fatal(err)
	}
	p.Delay(200 * time.Millisecond)
	p.ResetCounts()
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	res, err := f.CreateAndList(short, dir+"/lock-", nil, lockOpts()...)
	if !errors.Is(err, context.DeadlineExceeded) || res.Path != "" {
		t.Fatalf("CreateAndList past its deadline = %+v, %v; want DeadlineExceeded and no path", res, err)
	}
	if took := time.Since(start); took >= 400*time.Millisecond {
		t.Errorf("returned after %v: later than any reply could come (200 ms each way)", took)
	}
	p.Delay(0)
	// The create reaches the server and is answered; then its node is deleted.
	zktest.Eventually(t, 10*time.Second, "a delete of the abandoned create's node", func() bool {
		return p.Requests()[zktest.OpDelete] > 0
	})
	if kids, _, err := f.Children(ctx, dir); err != nil || len(kids) != 0 {
		t.Fatalf("children of %s after the delete = %v, %v; want none", dir, kids, err)
	}
}

// The two orders of CreateAndList's hand-off when the caller's ctx ends, forced with hooks:
//   - the create ends only after the caller gave up: the caller gets ctx's error, and the
//     create's goroutine deletes the node it made (nothing is orphaned);
//   - the create handed its result over just as ctx ended: whichever case the caller's select
//     picks, the caller gets the node (it owns it: nothing deletes it under it).
func TestCreateAndListHandoffOrders(t *testing.T) {
	f := newFW(t, nil)
	ctx := testCtx(t)
	dir := uniquePath(t)
	if _, err := f.Create(ctx, dir, nil); err != nil {
		t.Fatal(err)
	}
	t.Run("the caller gives up first", func(t *testing.T) {
		gate, created := make(chan struct{}), make(chan struct{})
		defer framework.SetCreateHooks(f, func() { close(created); <-gate }, nil, nil)()
		short, cancel := context.WithCancel(ctx)
		go func() { <-created; cancel() }() // the node exists; only then does the caller give up
		res, err := f.CreateAndList(short, dir+"/lock-", nil, lockOpts()...)
		if !errors.Is(err, context.Canceled) || res.Path != "" {
			t.Fatalf("CreateAndList = %+v, %v; want Canceled and no path", res, err)
		}
		if kids, _, err := f.Children(ctx, dir); err != nil || len(kids) != 1 {
			t.Fatalf("children while the create's goroutine is held = %v, %v; want its node", kids, err)
		}
		close(gate)
		zktest.Eventually(t, 10*time.Second, "the abandoned node to be deleted", func() bool {
			kids, _, err := f.Children(ctx, dir)
			return err == nil && len(kids) == 0
		})
	})
	t.Run("the result is handed over as ctx ends", func(t *testing.T) {
		for i := 0; i < 20; i++ { // the caller's select picks either ready case at random
			delivered := make(chan struct{})
			short, cancel := context.WithCancel(ctx)
			remove := framework.SetCreateHooks(f, nil, func() { close(delivered) }, func(c context.Context) {
				<-delivered
				cancel()
				<-c.Done()
			})
			res, err := f.CreateAndList(short, dir+"/lock-", nil, lockOpts()...)
			remove()
			cancel()
			if err != nil || res.Path == "" {
				t.Fatalf("try %d: CreateAndList = %+v, %v; want the node whose create finished", i, res, err)
			}
			checkListing(t, f, res)
			if _, err := f.Exists(ctx, res.Path); err != nil {
				t.Fatalf("try %d: the caller's node %s: %v", i, res.Path, err)
			}
			if err := f.Delete(ctx, res.Path); err != nil {
				t.Fatal(err)
			}
		}
	})
}
