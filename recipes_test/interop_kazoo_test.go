package recipes_test

import (
	"context"
	"errors"
	"path"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/interop"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// startKazoo starts a python3 process holding one kazoo 2.8 client, or skips the test when
// python3-kazoo is not installed.
func startKazoo(t *testing.T, servers []string, o interop.KazooOptions) *interop.KazooProcess {
	t.Helper()
	k, err := interop.StartKazoo(ctxFor(t, 60*time.Second), strings.Join(servers, ","), o)
	if errors.Is(err, interop.ErrKazooMissing) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatalf("starting the kazoo contender: %v", err)
	}
	t.Cleanup(func() { k.Close() })
	return k
}

var (
	kazooNode    = regexp.MustCompile(`^[0-9a-f]{32}__lock__\d{10}$`)
	ourKazooNode = regexp.MustCompile(`^_c_[0-9a-f-]{36}-__lock__\d{10}$`)
)

// Go and kazoo contend on one mutex path: each waits on the other's nodes, and kazoo lists ours
// in queue order with our identity as the contender's identifier.
func TestInteropMutexWithKazoo(t *testing.T) {
	zk := shared
	p := lockPath(t)
	py := startKazoo(t, zk.Servers(), interop.KazooOptions{Identifier: "py-holder"})
	fw := zktest.Connect(t, zk)
	id := recipes.NewIdentity("go-waiter").Encode()
	m, err := recipes.NewKazooMutex(fw, p, recipes.WithNodeData(id))
	if err != nil {
		t.Fatal(err)
	}

	pyNode, got := foreignHoldsWhileWeQueue(t, py, "kazoo", fw, m)
	if !kazooNode.MatchString(path.Base(pyNode)) {
		t.Fatalf("kazoo's node %q is not <uuid hex>__lock__<seq>", pyNode)
	}
	ids, err := py.Contenders(ctxFor(t, 10*time.Second), p)
	if err != nil {
		t.Fatal(err)
	}
	want := recipes.NewIdentity("go-waiter")
	want.Kind = recipes.KindKazooLock // recorded by the recipe
	if len(ids) != 2 || ids[0] != "py-holder" || ids[1] != string(want.Encode()) {
		t.Fatalf("kazoo's contenders %q, want the kazoo holder, then our identity (kind recorded)", ids)
	}
	ours, err := m.Participants(ctxFor(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if len(ours) != 2 || ours[0].Path != pyNode || string(ours[0].Data) != "py-holder" || !ourKazooNode.MatchString(path.Base(ours[1].Path)) {
		t.Fatalf("we list %+v; want the kazoo holder, then our _c_<uuid>-__lock__<seq> waiter", ours)
	}
	foreignHandsOver(t, py, p, "kazoo", got, func(l *recipes.Lease) {
		if tok(t, l) <= 0 {
			t.Fatal("no fencing token")
		}
		select {
		case <-l.Done():
			t.Fatalf("Done closed on a held lease: %v", l.Err())
		default:
		}
	})
}

// Two kazoo and two Go contenders hammer one mutex: never two holders.
func TestInteropMutexExclusionWithKazoo(t *testing.T) {
	zk := shared
	p := lockPath(t)
	mutexExclusionWith(t, p, "kazoo", func() foreignMutex {
		return startKazoo(t, zk.Servers(), interop.KazooOptions{Identifier: "py"})
	}, func() *recipes.InterProcessMutex {
		m, err := recipes.NewKazooMutex(zktest.Connect(t, zk), p)
		if err != nil {
			t.Fatal(err)
		}
		return m
	})
}

// Each side recognises the other's readers and writers: a reader of either kind admits readers
// of both and keeps writers of both out, and a writer of either kind keeps everyone out.
func TestInteropReadWriteKindsWithKazoo(t *testing.T) {
	zk := shared
	p := lockPath(t)
	py := startKazoo(t, zk.Servers(), interop.KazooOptions{Identifier: "py", Fix649: true})
	rw, err := recipes.NewKazooReadWriteLock(zktest.Connect(t, zk), p)
	if err != nil {
		t.Fatal(err)
	}
	short := 300 * time.Millisecond

	if _, err := py.ReadAcquire(ctxFor(t, 10*time.Second), p, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	r, err := rw.ReadLock().TryAcquire(ctxFor(t, 10*time.Second))
	if err != nil {
		t.Fatalf("Go reader beside a kazoo reader: %v", err)
	}
	if !strings.Contains(path.Base(r.Path()), "-__rlock__") {
		t.Fatalf("our read node %s lacks __rlock__", r.Path())
	}
	if _, err := rw.WriteLock().TryAcquire(ctxFor(t, 10*time.Second)); !errors.Is(err, recipes.ErrLocked) {
		t.Fatalf("Go writer beside readers: %v, want ErrLocked", err)
	}
	if err := py.ReadRelease(ctxFor(t, 10*time.Second), p); err != nil {
		t.Fatal(err)
	}
	// Only our reader is left: kazoo's writer must wait for it, kazoo's reader need not.
	if _, err := py.WriteAcquire(ctxFor(t, 10*time.Second), p, short); !errors.Is(err, interop.ErrTimeout) {
		t.Fatalf("kazoo writer beside our reader: %v, want a timeout", err)
	}
	if _, err := py.ReadAcquire(ctxFor(t, 10*time.Second), p, 10*time.Second); err != nil {
		t.Fatalf("kazoo reader beside our reader: %v", err)
	}
	mustRelease(t, r)
	if err := py.ReadRelease(ctxFor(t, 10*time.Second), p); err != nil {
		t.Fatal(err)
	}
	// Our writer keeps both kazoo kinds out.
	w, err := rw.WriteLock().TryAcquire(ctxFor(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := py.ReadAcquire(ctxFor(t, 10*time.Second), p, short); !errors.Is(err, interop.ErrTimeout) {
		t.Fatalf("kazoo reader under our writer: %v, want a timeout", err)
	}
	if _, err := py.WriteAcquire(ctxFor(t, 10*time.Second), p, short); !errors.Is(err, interop.ErrTimeout) {
		t.Fatalf("kazoo writer under our writer: %v, want a timeout", err)
	}
	mustRelease(t, w)
	// kazoo's writer keeps both of ours out.
	if _, err := py.WriteAcquire(ctxFor(t, 10*time.Second), p, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	for _, l := range []*recipes.Lock{rw.ReadLock().Lock, rw.WriteLock().Lock} {
		if _, err := l.TryAcquire(ctxFor(t, 10*time.Second)); !errors.Is(err, recipes.ErrLocked) {
			t.Fatalf("our %s under a kazoo writer: %v, want ErrLocked", l.Driver().LockName(), err)
		}
	}
	if err := py.WriteRelease(ctxFor(t, 10*time.Second), p); err != nil {
		t.Fatal(err)
	}
	w, err = rw.WriteLock().TryAcquire(ctxFor(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer mustRelease(t, w)
	if _, err := rw.ReadLock().Downgrade(ctxFor(t, 10*time.Second), w); !errors.Is(err, recipes.ErrForeignLease) {
		t.Fatalf("Downgrade on a kazoo lock: %v, want ErrForeignLease", err)
	}
}

// kazoo readers and writers (with kazoo 2.9's predecessor rule) and ours share one read-write
// lock path: never two writers, never a writer with a reader.
func TestInteropReadWriteWithKazoo(t *testing.T) {
	zk := shared
	p := lockPath(t)
	rwExclusionWith(t, p, "kazoo", func() foreignRW {
		return startKazoo(t, zk.Servers(), interop.KazooOptions{Identifier: "py", Fix649: true})
	}, func() *recipes.InterProcessReadWriteLock {
		rw, err := recipes.NewKazooReadWriteLock(zktest.Connect(t, zk), p)
		if err != nil {
			t.Fatal(err)
		}
		return rw
	})
}

// kazoo 2.8's ReadLock, unpatched, also waits for write nodes queued after it (kazoo#649): once
// the writer it waited for is gone, it waits for our writer queued behind it, which waits for it.
// Neither gets in while both wait. This is why docs/interop.md asks for kazoo 2.9 (or the fix) on
// read-write paths; the test fails when kazoo no longer has the bug. The deadlock is ended by
// the test, not by a timer: our writer gives up (its node goes), and the kazoo reader then gets
// in, which shows what it waited for. (It used to end at the kazoo reader's own 4 s timeout, a
// timer that ran while the test queued our writer: a slow machine could reach it first.)
func TestInteropKazoo28ReadLockDeadlocksWithLaterWriter(t *testing.T) {
	zk := shared
	p := lockPath(t)
	py := startKazoo(t, zk.Servers(), interop.KazooOptions{Identifier: "py-reader"})
	if v, err := py.Version(ctxFor(t, 10*time.Second)); err != nil || !strings.HasPrefix(v, "2.8.") {
		t.Skipf("kazoo %q, %v: the test is about kazoo 2.8", v, err)
	}
	fw := zktest.Connect(t, zk)
	rw, err := recipes.NewKazooReadWriteLock(fw, p)
	if err != nil {
		t.Fatal(err)
	}
	first := mustLease(t, rw.WriteLock(), ctxFor(t, 10*time.Second))
	pyRead := make(chan error, 1)
	go func() {
		_, err := py.ReadAcquire(ctxFor(t, 90*time.Second), p, 60*time.Second) // a bound, never reached
		pyRead <- err
	}()
	zktest.Eventually(t, 10*time.Second, "the kazoo reader to queue", func() bool { return len(zktest.Children(t, fw, p)) == 2 })
	wctx, giveUp := context.WithCancel(ctxFor(t, 60*time.Second))
	defer giveUp()
	second := make(chan error, 1)
	go func() {
		l, err := rw.WriteLock().Acquire(wctx)
		if err == nil {
			l.Release(ctxFor(t, 10*time.Second))
		}
		second <- err
	}()
	zktest.Eventually(t, 10*time.Second, "our second writer to queue", func() bool { return len(zktest.Children(t, fw, p)) == 3 })
	mustRelease(t, first)
	stillWaiting(t, pyRead, "the kazoo 2.8 reader, once the writer ahead of it left (kazoo#649 fixed?),")
	stillWaiting(t, second, "our second writer, behind the kazoo reader,")
	giveUp()
	if err := receive(t, second, "our second writer giving up"); !errors.Is(err, context.Canceled) {
		t.Fatalf("our second writer: %v, want context.Canceled", err)
	}
	if err := receive(t, pyRead, "the kazoo reader, once our writer behind it left"); err != nil {
		t.Fatalf("kazoo reader after our writer behind it left: %v, want the lock", err)
	}
	if err := py.ReadRelease(ctxFor(t, 10*time.Second), p); err != nil {
		t.Fatal(err)
	}
}
