package recipes_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// Issue 26.9: Curator's SharedCount takes a seed value that creates the node when it is missing.
// Before, Get of a missing count was an error and there was no seed, Start or listener (the test
// did not compile: no WithSeed, Start, Count, VersionedValue, TrySetCount, AddListener, Close).
func TestSharedCountSeed(t *testing.T) {
	tests := []struct {
		name     string
		existing *int32 // the node's count before Start; nil: missing
		opts     []recipes.SharedCountOption
		want     int32
		wantErr  error
	}{
		{"missing, seeded: created with the seed", nil, []recipes.SharedCountOption{recipes.WithSeed(7)}, 7, nil},
		{"existing, seeded: the seed is ignored", ptr(int32(3)), []recipes.SharedCountOption{recipes.WithSeed(7)}, 3, nil},
		{"missing, no seed: ErrNoNode", nil, nil, 0, framework.ErrNoNode},
		{"missing, seed 0", nil, []recipes.SharedCountOption{recipes.WithSeed(0)}, 0, nil},
	}
	for _, tt := range tests {
		for _, how := range []string{"Start", "Get"} {
			t.Run(tt.name+" by "+how, func(t *testing.T) {
				fw := zktest.Connect(t, shared)
				p := lockPath(t) + "/count"
				t.Cleanup(func() { fw.Delete(context.Background(), p) })
				if tt.existing != nil {
					mustSharedCount(t, fw, p).Set(ctxFor(t, 5*time.Second), *tt.existing)
				}
				c := mustSharedCount(t, fw, p, tt.opts...)
				var got int32
				var err error
				if how == "Start" {
					if err = c.Start(ctxFor(t, 10*time.Second)); err == nil {
						t.Cleanup(func() { c.Close() })
						got = c.Count()
					}
				} else {
					got, _, err = c.Get(ctxFor(t, 10*time.Second))
				}
				if !errors.Is(err, tt.wantErr) || (err == nil && got != tt.want) {
					t.Fatalf("%s: %d, %v; want %d, %v", how, got, err, tt.want, tt.wantErr)
				}
				if err == nil {
					v, _, err := mustSharedCount(t, fw, p).Get(ctxFor(t, 5*time.Second))
					if err != nil || v != tt.want {
						t.Fatalf("the node holds %d, %v; want %d", v, err, tt.want)
					}
				}
			})
		}
	}
}

// Issue 26.9: a started SharedCount keeps the count and its version (Count, VersionedValue),
// TrySetCount is Curator's compare-and-set on a VersionedValue, and listeners hear every change,
// another client's or our own, through one data watch. Close stops the goroutine at once, and
// the watch goes with the node's next change (go-zookeeper cannot remove one).
func TestSharedCountListeners(t *testing.T) {
	zktest.CheckGoroutines(t)
	fw, other := zktest.Connect(t, shared), zktest.Connect(t, shared)
	p := lockPath(t) + "/count"
	t.Cleanup(func() { other.Delete(context.Background(), p) })
	c := mustSharedCount(t, fw, p, recipes.WithSeed(1))
	if c.Count() != 1 || c.VersionedValue() != (recipes.VersionedValue{Version: -1, Value: 1}) {
		t.Fatalf("before Start: %d, %+v; want the seed, version -1", c.Count(), c.VersionedValue())
	}
	if err := c.Start(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Start(ctxFor(t, 10*time.Second)); !errors.Is(err, recipes.ErrInvalidArgument) {
		t.Fatalf("second Start: %v, want ErrInvalidArgument", err)
	}
	heard := make(chan int32, 16)
	remove := c.AddListener(func(n int32) { heard <- n })
	o := mustSharedCount(t, other, p)

	steps := []struct {
		name  string
		write func() error
		want  int32
	}{
		{"another client's Set", func() error { return o.Set(ctxFor(t, 5*time.Second), 5) }, 5},
		{"our TrySetCount", func() error {
			ok, err := c.TrySetCount(ctxFor(t, 5*time.Second), c.VersionedValue(), 6)
			if err == nil && (!ok || c.Count() != 6) {
				return errors.New("TrySetCount at the current version did not set, or Count did not follow")
			}
			return err
		}, 6},
		{"another client's Set after our session expired", func() error {
			if err := zktest.Expire(ctxFor(t, 10*time.Second), shared, fw); err != nil {
				return err
			}
			return o.Set(ctxFor(t, 5*time.Second), 7)
		}, 7},
		{"a delete and a Set that recreates it", func() error {
			if err := other.Delete(ctxFor(t, 5*time.Second), p); err != nil {
				return err
			}
			return o.Set(ctxFor(t, 5*time.Second), 9)
		}, 9},
	}
	for _, st := range steps {
		if err := st.write(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if got := awaitCount(t, heard, st.want); got != st.want {
			t.Fatalf("%s: listener heard %d, want %d", st.name, got, st.want)
		}
		if c.Count() != st.want {
			t.Fatalf("%s: Count %d, want %d", st.name, c.Count(), st.want)
		}
	}
	stale := c.VersionedValue()
	if err := o.Set(ctxFor(t, 5*time.Second), 10); err != nil {
		t.Fatal(err)
	}
	if got := awaitCount(t, heard, 10); got != 10 {
		t.Fatalf("listener heard %d, want 10", got)
	}
	if ok, err := c.TrySetCount(ctxFor(t, 5*time.Second), stale, 20); ok || err != nil || c.Count() != 10 {
		t.Fatalf("TrySetCount at a stale version: %v, %v, Count %d; want false, nil, 10", ok, err, c.Count())
	}
	remove()
	if err := o.Set(ctxFor(t, 5*time.Second), 11); err != nil {
		t.Fatal(err)
	}
	zktest.Eventually(t, 10*time.Second, "Count 11", func() bool { return c.Count() == 11 })
	select {
	case n := <-heard:
		t.Fatalf("a removed listener heard %d", n)
	default:
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctxFor(t, 10*time.Second)); !errors.Is(err, recipes.ErrInvalidArgument) {
		t.Fatalf("Start after Close: %v, want ErrInvalidArgument", err)
	}
	// The one data watch stays until the node changes (go-zookeeper cannot remove it): then
	// neither client nor server holds one.
	if err := o.Set(ctxFor(t, 5*time.Second), 12); err != nil {
		t.Fatal(err)
	}
	zktest.CheckNoWatches(t, shared, fw, other)
}

// awaitCount returns the first count heard that is want, or the last one heard if none is
// within 10 s (listeners may coalesce changes, never reorder them).
func awaitCount(t *testing.T, heard <-chan int32, want int32) int32 {
	t.Helper()
	var last int32 = -1
	limit := time.After(10 * time.Second)
	for {
		select {
		case n := <-heard:
			if n == want {
				return n
			}
			last = n
		case <-limit:
			return last
		}
	}
}

func mustSharedCount(t testing.TB, fw *framework.Framework, p string, opts ...recipes.SharedCountOption) *recipes.SharedCount {
	t.Helper()
	c, err := recipes.NewSharedCount(fw, p, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ptr[T any](v T) *T { return &v }
