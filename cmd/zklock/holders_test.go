package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/interop"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// holdersJSON runs zklock holders --json on p.
func holdersJSON(t *testing.T, servers, p string) holdersReport {
	t.Helper()
	out, errOut, code := runZklock(t, "--servers", servers, "holders", p, "--json")
	if code != 0 {
		t.Fatalf("holders: exit %d; stderr:\n%s", code, errOut)
	}
	var r holdersReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("holders --json: %v\n%s", err, out)
	}
	return r
}

// queueBehind starts acquire on a goroutine and waits until dir has n
// children; the lease is released at cleanup.
func queueBehind[L recipes.Held](t *testing.T, fw *framework.Framework, dir string, n int, acquire func(context.Context) (L, error)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	got := make(chan recipes.Held, 1)
	go func() {
		l, err := acquire(ctx)
		if err != nil {
			got <- nil
			return
		}
		got <- l
	}()
	t.Cleanup(func() {
		cancel()
		if l := <-got; l != nil {
			l.Release(context.Background())
		}
	})
	zktest.Eventually(t, 20*time.Second, fmt.Sprintf("%d nodes in %s", n, dir), func() bool {
		kids, _, _ := fw.Children(ctxFor(t, 10*time.Second), dir)
		return len(kids) == n
	})
}

// A Curator holder and a Go waiter: holders lists Java first, then Go, with
// their sessions, data and origin, as text and as JSON.
func TestHoldersMutexWithCurator(t *testing.T) {
	zk := shared
	p := lockPath(t)
	java, err := interop.StartCurator(ctxFor(t, 90*time.Second), zk.ConnectString())
	if err != nil {
		t.Fatalf("starting the Curator contender: %v", err)
	}
	t.Cleanup(func() { java.Close() })
	javaNode, err := java.Acquire(ctxFor(t, 20*time.Second), p, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	fw := zktest.Connect(t, zk)
	m, _ := recipes.NewMutex(fw, p, recipes.WithNodeData(recipes.NewIdentity("go-waiter").Encode()))
	queueBehind(t, fw, p, 2, m.Acquire)

	r := holdersJSON(t, zk.ConnectString(), p)
	if r.Kind != "mutex" || len(r.Holders) != 1 || len(r.Queue) != 1 {
		t.Fatalf("report %+v, want one holder and one waiter", r)
	}
	h, w := r.Holders[0], r.Queue[0]
	if h.Node != javaNode || h.Origin != recipes.OriginJava || h.Session != fmt.Sprintf("0x%x", uint64(java.SessionID())) {
		t.Fatalf("holder %+v, want Curator's %s of session 0x%x", h, javaNode, java.SessionID())
	}
	if w.Origin != recipes.OriginGo || w.Identity == nil || w.Identity.Name != "go-waiter" ||
		w.Session != fmt.Sprintf("0x%x", uint64(fw.SessionID())) || w.Kind != recipes.KindMutex || w.AgeSeconds < 0 {
		t.Fatalf("waiter %+v", w)
	}
	out, _, code := runZklock(t, "--servers", zk.ConnectString(), "holders", p)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 4 || !strings.Contains(lines[0], "mutex, 1 holding, 1 waiting") ||
		!strings.HasPrefix(lines[2], "holds") || !strings.Contains(lines[2], javaNode) || !strings.Contains(lines[2], " java ") ||
		!strings.HasPrefix(lines[3], "waits") || !strings.Contains(lines[3], `"name":"go-waiter"`) {
		t.Fatalf("holders text (exit %d):\n%s", code, out)
	}
	if err := java.Release(ctxFor(t, 10*time.Second), p); err != nil {
		t.Fatal(err)
	}
}

// Read-write lock: a writer holds, a reader and a writer wait; readers
// before any writer all hold.
func TestHoldersReadWrite(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	p := lockPath(t)
	rw, _ := recipes.NewReadWriteLock(fw, p)
	r1, err := rw.ReadLock().Acquire(ctxFor(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	r2, err := rw.ReadLock().Acquire(ctxFor(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	queueBehind(t, fw, p, 3, rw.WriteLock().Acquire)
	queueBehind(t, fw, p, 4, rw.ReadLock().Acquire)
	r := holdersJSON(t, zk.ConnectString(), p)
	kinds := func(ns []nodeInfo) string {
		var k []string
		for _, n := range ns {
			k = append(k, n.Kind)
		}
		return strings.Join(k, ",")
	}
	if r.Kind != "rwlock" || kinds(r.Holders) != "read lock,read lock" || kinds(r.Queue) != "write lock,read lock" {
		t.Fatalf("holders %s, queue %s (%+v)", kinds(r.Holders), kinds(r.Queue), r)
	}
	if r.Holders[0].Node != r1.Path() || r.Holders[1].Node != r2.Path() {
		t.Fatalf("holders %+v, want %s then %s", r.Holders, r1.Path(), r2.Path())
	}
	r1.Release(ctxFor(t, 10*time.Second))
	r2.Release(ctxFor(t, 10*time.Second))
}

// Semaphore of 1: the lease is held; the next contender waits with its
// lease node while it holds the internal lock; a third queues on that lock.
func TestHoldersSemaphore(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	p := lockPath(t)
	s, _ := recipes.NewSemaphore(fw, p, 1)
	held, err := s.Acquire(ctxFor(t, 10*time.Second), 1)
	if err != nil {
		t.Fatal(err)
	}
	one := func(ctx context.Context) (*recipes.SemaphoreLease, error) {
		ls, err := s.Acquire(ctx, 1)
		if err != nil {
			return nil, err
		}
		return ls[0], nil
	}
	queueBehind(t, fw, path.Join(p, "leases"), 2, one)
	queueBehind(t, fw, path.Join(p, "locks"), 2, one)
	r := holdersJSON(t, zk.ConnectString(), p)
	if r.Kind != "semaphore" || len(r.Holders) != 1 || r.Holders[0].Node != held[0].Path() ||
		len(r.Queue) != 2 || r.Queue[0].Kind != recipes.KindLease || r.Queue[1].Kind != recipes.KindSemaphoreLock {
		t.Fatalf("report %+v", r)
	}
	held[0].Release(ctxFor(t, 10*time.Second))
}

// An empty or missing path lists nothing and succeeds.
func TestHoldersMissingPath(t *testing.T) {
	zk := shared
	r := holdersJSON(t, zk.ConnectString(), lockPath(t))
	if r.Kind != "none" || len(r.Holders)+len(r.Queue) != 0 {
		t.Fatalf("report %+v", r)
	}
}

// zklock revoke reaches a revocable holder.
func TestRevoke(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	revoked := make(chan *recipes.Lease, 1)
	m, _ := recipes.NewMutex(fw, lockPath(t), recipes.WithRevocation(func(l *recipes.Lease) { revoked <- l }))
	l, err := m.Acquire(ctxFor(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(ctxFor(t, 10*time.Second))
	out, errOut, code := runZklock(t, "--servers", zk.ConnectString(), "revoke", l.Path())
	if code != 0 || !strings.Contains(out, "asked the holder") {
		t.Fatalf("revoke: exit %d\n%s%s", code, out, errOut)
	}
	select {
	case got := <-revoked:
		if got != l {
			t.Fatal("revocation reached another lease")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the holder was not asked to release")
	}
}
