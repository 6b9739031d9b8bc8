package recipes_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/driver"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// fixedNode is a driver whose contender is a fixed, non-sequential node (as a downgrade's).
type fixedNode struct{ driver.Driver }

func (fixedNode) Node() driver.Node { return driver.Node{Fixed: "0000000001"} }

// What a transactional set takes: locks built on one Lock with a plain sequential node (mutex,
// read, write, a driver of one's own). What it refuses, with ErrNotTransactional: a semaphore
// mutex (two nodes per acquire), a fixed node, an input node; with ErrInvalidArgument: two
// frameworks, one path twice.
func TestTxMultiLockWhatItTakes(t *testing.T) {
	zk := shared
	p := lockPath(t)
	fa, fb := zktest.Connect(t, zk), zktest.Connect(t, zk)
	sm, err := recipes.NewSemaphoreMutex(fa, p+"/sem")
	if err != nil {
		t.Fatal(err)
	}
	fixed, err1 := recipes.NewLock(fa, p+"/fixed", fixedNode{driver.Exclusive()})
	input, err2 := recipes.NewLock(fa, p+"/input", driver.SharedSemaphore(p+"/count", 1))
	own, err3 := recipes.NewLock(fa, p+"/own", driver.Standard("mine-", 1))
	if err := errors.Join(err1, err2, err3); err != nil {
		t.Fatal(err)
	}
	m := mustMutex(t, fa, p+"/m")
	for name, locks := range map[string][]recipes.Locker{"semaphore mutex": {m, sm}, "fixed node": {m, fixed}, "input node": {input, m}} {
		if _, err := recipes.NewTxMultiLock(locks...); !errors.Is(err, recipes.ErrNotTransactional) {
			t.Errorf("%s: %v, want ErrNotTransactional", name, err)
		}
	}
	for name, locks := range map[string][]recipes.Locker{"two frameworks": {m, mustMutex(t, fb, p+"/x")},
		"one path twice": {m, mustMutex(t, fa, p+"/m")}, "nested": {m, mustMutex(t, fa, p+"/m/n")}} {
		if _, err := recipes.NewTxMultiLock(locks...); !errors.Is(err, recipes.ErrInvalidArgument) {
			t.Errorf("%s: %v, want ErrInvalidArgument", name, err)
		}
	}
	rw, rw2 := mustRW(t, fa, p+"/rw"), mustRW(t, fa, p+"/rw2")
	tx, err := recipes.NewTxMultiLock(m, rw.ReadLock(), rw2.WriteLock(), own)
	if err != nil {
		t.Fatal(err)
	}
	l := mustMulti(t, tx)
	other := mustLease(t, mustRW(t, fb, p+"/rw").ReadLock(), ctxFor(t, 10*time.Second)) // reads share
	mustRelease(t, other)
	if _, err := mustRW(t, fb, p+"/rw2").WriteLock().TryAcquire(ctxFor(t, 10*time.Second)); !errors.Is(err, recipes.ErrLocked) {
		t.Fatalf("a write beside the set's write: %v, want ErrLocked", err)
	}
	if _, err := mustRW(t, fb, p+"/rw").WriteLock().TryAcquire(ctxFor(t, 10*time.Second)); !errors.Is(err, recipes.ErrLocked) {
		t.Fatalf("a write beside the set's read: %v, want ErrLocked", err)
	}
	releaseMulti(t, l)
}

// The trap of mixing: a sequential acquirer (ours, or Curator's InterProcessMultiLock) holds a
// while it waits for b; a transactional one committed between its two creates is ahead of it
// in b and behind it in a. Each waits for the other: both time out. (This test shows the
// deadlock the docs warn of; it fails if either acquires.)
func TestTxMultiLockMixedWithSequentialCanDeadlock(t *testing.T) {
	zk := shared
	p := lockPath(t)
	a, b := p+"/a", p+"/b"
	fz, fx, fy := zktest.Connect(t, zk), zktest.Connect(t, zk), zktest.Connect(t, zk)
	z := mustAcquire(t, mustMutex(t, fz, a), 10*time.Second)
	seq, err := recipes.NewMultiMutex(fx, a, b)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
	defer cancel()
	x := acquireMultiAsync(seq, ctx)
	zktest.Eventually(t, 10*time.Second, "the sequential one queued in a", func() bool { return len(zktest.Children(t, fz, a)) == 2 })
	y := acquireMultiAsync(mustTx(t, fy, a, b), ctx)
	zktest.Eventually(t, 10*time.Second, "the set queued, first in b", func() bool {
		return slices.Equal(countNodes(t, fz, a, b), []int{3, 1})
	})
	mustRelease(t, z) // x takes a, then queues in b behind y: a cycle
	rx, ry := receive(t, x, "the sequential acquirer"), receive(t, y, "the transactional acquirer")
	if !errors.Is(rx.err, context.DeadlineExceeded) || !errors.Is(ry.err, context.DeadlineExceeded) {
		t.Fatalf("sequential: %v, transactional: %v; want both to time out (deadlock)", rx.err, ry.err)
	}
}

// A Curator InterProcessMutex on one path of a set excludes correctly: the set waits while Java
// holds it, and Java cannot take it while the set holds it.
func TestTxMultiLockWithCuratorMutex(t *testing.T) {
	zk := shared
	p := lockPath(t)
	java := startCurator(t, zk.Servers())
	fw := zktest.Connect(t, zk)
	a, b := p+"/a", p+"/b"
	if _, err := java.Acquire(ctxFor(t, 20*time.Second), b, 10*time.Second); err != nil {
		t.Fatalf("Curator acquire: %v", err)
	}
	got := acquireMultiAsync(mustTx(t, fw, a, b), ctxFor(t, 30*time.Second))
	zktest.Eventually(t, 10*time.Second, "the set to queue behind Java", func() bool {
		return slices.Equal(countNodes(t, fw, a, b), []int{1, 2})
	})
	stillWaiting(t, got, "the set while Curator holds b")
	if err := java.Release(ctxFor(t, 10*time.Second), b); err != nil {
		t.Fatal(err)
	}
	r := receive(t, got, "the set after Curator released")
	if r.err != nil {
		t.Fatal(r.err)
	}
	if _, err := java.Acquire(ctxFor(t, 10*time.Second), b, 300*time.Millisecond); err == nil {
		t.Fatal("Curator acquired b while the set holds it")
	}
	releaseMulti(t, r.l)
	if _, err := java.Acquire(ctxFor(t, 10*time.Second), b, 10*time.Second); err != nil {
		t.Fatalf("Curator acquire after the set released: %v", err)
	}
	if err := java.Release(ctxFor(t, 10*time.Second), b); err != nil {
		t.Fatal(err)
	}
}
