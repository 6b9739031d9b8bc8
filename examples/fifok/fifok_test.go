package fifok_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/driver"
	"github.com/zkrecipes/zkrecipes/examples/fifok"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// srv is the one server the tests share.
var srv *zktest.Cluster

func TestMain(m *testing.M) {
	os.Exit(zktest.Main(m, &srv, zktest.WithContainerCheckInterval(200*time.Millisecond)))
}

// The predicate, from data only: hold among the first k, else watch the node k places ahead;
// its deletion alone proves we hold only when it is first.
func TestDecide(t *testing.T) {
	sorted := []string{"_c_a-slot-0000000001", "_c_b-slot-0000000002", "_c_c-slot-0000000003", "_c_d-slot-0000000004"}
	for _, tc := range []struct {
		k, index int
		want     driver.Decision
	}{
		{1, 0, driver.Decision{Holds: true}},
		{1, 1, driver.Decision{WatchNode: sorted[0], GoneHolds: true}},
		{1, 3, driver.Decision{WatchNode: sorted[2]}},
		{2, 1, driver.Decision{Holds: true}},
		{2, 2, driver.Decision{WatchNode: sorted[0], GoneHolds: true}},
		{2, 3, driver.Decision{WatchNode: sorted[1]}},
		{4, 3, driver.Decision{Holds: true}},
	} {
		d, err := fifok.New(tc.k)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Decide(driver.View{Sorted: sorted, Index: tc.index}); got != tc.want {
			t.Errorf("k=%d index=%d: %+v, want %+v", tc.k, tc.index, got, tc.want)
		}
	}
	if _, err := fifok.New(0); !errors.Is(err, fifok.ErrBadK) {
		t.Fatalf("New(0): %v, want ErrBadK", err)
	}
	d, _ := fifok.New(1)
	if got := driver.Sort(d, []string{"_c_z-slot-0000000002", "_c_a-slot-0000000001"}); got[0] != "_c_a-slot-0000000001" {
		t.Fatalf("sorted %v, want by sequence", got)
	}
}

// kids counts p's children.
func kids(t *testing.T, fw *framework.Framework, p string) int { return len(zktest.Children(t, fw, p)) }

// Six contenders on three sessions hammer a 2-slot lock: never more than 2 holders, and all
// 2 slots are used at some point; afterwards no node and no watch is left.
func TestAtMostK(t *testing.T) {
	const k, workers, rounds = 2, 6, 15
	p := fmt.Sprintf("/fifok/atmostk-%d", time.Now().UnixNano())
	var fws []*framework.Framework
	for i := 0; i < 3; i++ {
		fws = append(fws, zktest.Connect(t, srv))
	}
	var holders zktest.Gauge
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		lock, err := fifok.NewLock(fws[w%len(fws)], p, k)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				lease, err := lock.Acquire(ctx)
				if err != nil {
					cancel()
					t.Errorf("Acquire: %v", err)
					return
				}
				holders.Enter()
				time.Sleep(2 * time.Millisecond) // the holder's work
				holders.Leave()
				if err := lease.Release(ctx); err != nil {
					t.Errorf("Release: %v", err)
				}
				cancel()
			}
		}()
	}
	wg.Wait()
	if holders.Max() > k || holders.Max() < 2 {
		t.Fatalf("at most %d holders at once, want exactly %d", holders.Max(), k)
	}
	zktest.Eventually(t, 10*time.Second, "no nodes", func() bool { return kids(t, fws[0], p) == 0 })
	zktest.CheckNoWatches(t, srv, fws...)
}

// Waiters are granted in the order they queued, as holders release in theirs.
func TestFIFO(t *testing.T) {
	const k, waiters = 2, 4
	p := fmt.Sprintf("/fifok/fifo-%d", time.Now().UnixNano())
	fw := zktest.Connect(t, srv)
	lock, err := fifok.NewLock(fw, p, k)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	held := make(chan *recipes.Lease, k+waiters)
	order := make(chan int, waiters)
	for i := 0; i < k; i++ {
		l, err := lock.Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		held <- l
	}
	for i := 0; i < waiters; i++ {
		go func() {
			l, err := lock.Acquire(ctx)
			if err != nil {
				t.Errorf("waiter %d: %v", i, err)
				return
			}
			order <- i
			held <- l
		}()
		zktest.Eventually(t, 10*time.Second, "the waiter to queue", func() bool { return kids(t, fw, p) == k+i+1 })
	}
	for i := 0; i < waiters; i++ {
		if err := (<-held).Release(ctx); err != nil { // the oldest holder leaves first
			t.Fatal(err)
		}
		select {
		case got := <-order:
			if got != i {
				t.Fatalf("waiter %d granted as #%d", got, i)
			}
		case <-ctx.Done():
			t.Fatal("no grant after a release")
		}
	}
	for i := 0; i < k; i++ {
		(<-held).Release(ctx)
	}
	zktest.Eventually(t, 10*time.Second, "no nodes", func() bool { return kids(t, fw, p) == 0 })
}

// A waiter whose ctx ends deletes its node and returns ctx's error: the loop's cleanup.
func TestCancelledWaiterCleansUp(t *testing.T) {
	p := fmt.Sprintf("/fifok/cancel-%d", time.Now().UnixNano())
	fw := zktest.Connect(t, srv)
	lock, _ := fifok.NewLock(fw, p, 1)
	l, err := lock.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := lock.Acquire(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Acquire past its deadline: %v", err)
	}
	zktest.Eventually(t, 10*time.Second, "the waiter's node to go", func() bool { return kids(t, fw, p) == 1 })
	if err := l.Release(context.Background()); err != nil {
		t.Fatal(err)
	}
	zktest.Eventually(t, 10*time.Second, "no nodes", func() bool { return kids(t, fw, p) == 0 })
	zktest.CheckNoWatches(t, srv, fw)
}
