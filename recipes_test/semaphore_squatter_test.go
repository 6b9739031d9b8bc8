package recipes_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// Issue 25.3: a persistent node with a valid lease name in a semaphore's leases directory took a
// slot for ever (Acquire waited to its deadline, TryAcquire said busy): it is a foreign node, and
// an acquire that would wait behind it fails at once naming it, leaving nothing of its own behind.
// An ephemeral lease of another client is a contender as before: TryAcquire says busy.
func TestSemaphorePersistentLeaseIsAForeignNode(t *testing.T) {
	const guid = "0f1e9d0c-8c5e-4b8e-9d39-6a4c2b1f7e21"
	zk := shared
	fw := zktest.Connect(t, zk)
	for _, tt := range []struct {
		name, node string
		mode       framework.Mode
		foreign    bool
	}{
		{"plain lease name", "lease-0000000007", framework.Persistent, true},
		{"protected lease name", "_c_" + guid + "-lease-0000000007", framework.Persistent, true},
		{"ephemeral lease of another client", "lease-0000000007", framework.Ephemeral, false},
	} {
		for _, try := range []bool{false, true} {
			if !tt.foreign && !try {
				continue // an Acquire behind a live lease waits: the semaphore tests cover it
			}
			t.Run(tt.name+map[bool]string{false: "/Acquire", true: "/TryAcquire"}[try], func(t *testing.T) {
				p := lockPath(t)
				squat := p + "/leases/" + tt.node
				plantSquatter(t, fw, squat, tt.mode)
				s, err := recipes.NewSemaphore(fw, p, 1)
				if err != nil {
					t.Fatal(err)
				}
				acquire := s.Acquire
				if try {
					acquire = s.TryAcquire
				}
				start := time.Now()
				leases, err := acquire(ctxFor(t, 10*time.Second), 1)
				if err == nil {
					s.ReturnAll(ctxFor(t, 10*time.Second), leases)
					t.Fatal("a lease granted beside a lease that takes the only slot")
				}
				var fe *recipes.ForeignNodeError
				switch {
				case !tt.foreign && (!errors.Is(err, recipes.ErrLocked) || errors.Is(err, recipes.ErrForeignNode)):
					t.Fatalf("TryAcquire: %v, want ErrLocked", err)
				case tt.foreign && (!errors.Is(err, recipes.ErrForeignNode) || !errors.As(err, &fe) || fe.Path != squat):
					t.Fatalf("after %v: %v, want ErrForeignNode naming %s", time.Since(start), err, squat)
				}
				zktest.Eventually(t, 10*time.Second, "only the other lease left", func() bool {
					kids := zktest.Children(t, fw, p+"/leases")
					return len(kids) == 1 && kids[0] == tt.node && len(zktest.Children(t, fw, p+"/locks")) == 0
				})
			})
		}
	}
}

// statCounter traces a framework's operations: how many exists requests each path had, and a
// signal on every children watch set on dir.
type statCounter struct {
	dir     string
	mu      sync.Mutex
	exists  map[string]int
	watched chan struct{}
}

func newStatCounter(dir string) *statCounter {
	return &statCounter{dir: dir, exists: map[string]int{}, watched: make(chan struct{}, 16)}
}

func (s *statCounter) trace(tr framework.Trace) {
	if tr.Kind != framework.TraceOperation {
		return
	}
	switch {
	case tr.Name == "exists":
		s.mu.Lock()
		s.exists[tr.Path]++
		s.mu.Unlock()
	case tr.Name == "getChildrenW" && tr.Path == s.dir && tr.Err == nil:
		s.watched <- struct{}{}
	}
}

func (s *statCounter) count(prefix string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for p, c := range s.exists {
		if strings.HasPrefix(p, prefix) {
			n += c
		}
	}
	return n
}

// awaitWatch waits, bounded, for the next children watch on the counter's directory.
func (s *statCounter) awaitWatch(t *testing.T, what string) {
	t.Helper()
	zktest.Receive(t, s.watched, 10*time.Second, "a children watch on "+s.dir+" "+what)
}

// Issue 25.3, the cost of the squatter check: an acquire that holds at once reads no stat, and a
// waiter reads the stat of a lease ahead once for its whole wait, however often it wakes.
func TestSemaphoreLeaseStatsOncePerWait(t *testing.T) {
	zk := shared
	p := lockPath(t)
	leases := p + "/leases"
	sc := newStatCounter(leases)
	fwW := zktest.Connect(t, zk, framework.WithTracer(sc.trace))
	fwH := zktest.Connect(t, zk)

	free, _ := recipes.NewSemaphore(fwW, lockPath(t), 2)
	got, err := free.Acquire(ctxFor(t, 10*time.Second), 1)
	if err != nil {
		t.Fatal(err)
	}
	free.ReturnAll(ctxFor(t, 10*time.Second), got)
	if n := sc.count(free.Path()); n != 0 {
		t.Fatalf("an uncontended acquire read %d stats, want 0", n)
	}

	sh, _ := recipes.NewSemaphore(fwH, p, 1)
	held, err := sh.Acquire(ctxFor(t, 10*time.Second), 1)
	if err != nil {
		t.Fatal(err)
	}
	sw, _ := recipes.NewSemaphore(fwW, p, 1)
	done := make(chan error, 1)
	go func() {
		got, err := sw.Acquire(ctxFor(t, 20*time.Second), 1)
		if err == nil {
			err = sw.ReturnAll(ctxFor(t, 10*time.Second), got)
		}
		done <- err
	}()
	sc.awaitWatch(t, "of the waiter")
	extra := leases + "/lease-0000000099"
	if _, err := fwH.Create(ctxFor(t, 10*time.Second), extra, nil, framework.WithMode(framework.Ephemeral)); err != nil {
		t.Fatal(err)
	}
	sc.awaitWatch(t, "after a lease came")
	if err := fwH.Delete(ctxFor(t, 10*time.Second), extra); err != nil {
		t.Fatal(err)
	}
	sc.awaitWatch(t, "after a lease left")
	if err := sh.ReturnAll(ctxFor(t, 10*time.Second), held); err != nil {
		t.Fatal(err)
	}
	if err := zktest.Receive(t, done, 20*time.Second, "the waiter to acquire after the release"); err != nil {
		t.Fatal(err)
	}
	if n := sc.count(held[0].Path()); n != 1 {
		t.Fatalf("the waiter read the stat of the lease ahead %d times over three wakes, want 1", n)
	}
}

// Issue 25.3: a persistent lease that comes while an acquirer waits is found on the wake it
// causes: the waiter fails naming it rather than waiting on behind it.
func TestSemaphorePersistentLeaseWhileWaiting(t *testing.T) {
	zk := shared
	p := lockPath(t)
	sc := newStatCounter(p + "/leases")
	fwW := zktest.Connect(t, zk, framework.WithTracer(sc.trace))
	fwH := zktest.Connect(t, zk)
	sh, _ := recipes.NewSemaphore(fwH, p, 1)
	held, err := sh.Acquire(ctxFor(t, 10*time.Second), 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sh.ReturnAll(context.Background(), held) })
	sw, _ := recipes.NewSemaphore(fwW, p, 1)
	done := make(chan error, 1)
	go func() {
		got, err := sw.Acquire(ctxFor(t, 20*time.Second), 1)
		if err == nil {
			sw.ReturnAll(ctxFor(t, 10*time.Second), got)
		}
		done <- err
	}()
	sc.awaitWatch(t, "of the waiter")
	squat := p + "/leases/lease-0000000099"
	if _, err := fwH.Create(ctxFor(t, 10*time.Second), squat, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fwH.Delete(context.Background(), squat) })
	err = zktest.Receive(t, done, 15*time.Second, "the waiter to fail behind a persistent lease")
	var fe *recipes.ForeignNodeError
	if !errors.As(err, &fe) || fe.Path != squat {
		t.Fatalf("Acquire: %v, want ErrForeignNode naming %s", err, squat)
	}
}
