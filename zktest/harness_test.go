package zktest_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/zktest"
)

// fatalRecorder is a testing.TB whose Fatalf records the message and returns.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (r *fatalRecorder) Helper() {}

func (r *fatalRecorder) Fatalf(format string, args ...any) { r.msg = fmt.Sprintf(format, args...) }

// Eventually returns as soon as cond holds, and fails naming what it waited for after the
// bound, having polled more than once.
func TestEventually(t *testing.T) {
	n := 0
	zktest.Eventually(t, 5*time.Second, "the third poll", func() bool { n++; return n == 3 })
	if n != 3 {
		t.Fatalf("cond called %d times, want 3", n)
	}
	r := &fatalRecorder{TB: t}
	calls := 0
	start := time.Now()
	zktest.Eventually(r, 100*time.Millisecond, "never", func() bool { calls++; return false })
	if took := time.Since(start); took < 100*time.Millisecond || took > 5*time.Second || calls < 2 {
		t.Fatalf("gave up after %v and %d polls", took, calls)
	}
	if want := "zktest: timed out after 100ms waiting for never"; r.msg != want {
		t.Fatalf("failure %q, want %q", r.msg, want)
	}
}

// Receive returns a value already sent, and fails naming what it waited for after the bound.
func TestReceive(t *testing.T) {
	ch := make(chan int, 1)
	ch <- 7
	if v := zktest.Receive(t, ch, time.Second, "seven"); v != 7 {
		t.Fatalf("received %d, want 7", v)
	}
	r := &fatalRecorder{TB: t}
	if v := zktest.Receive(r, ch, 50*time.Millisecond, "nothing"); v != 0 {
		t.Fatalf("received %d from an empty channel", v)
	}
	if want := "timed out after 50ms waiting for nothing"; r.msg != want {
		t.Fatalf("failure %q, want %q", r.msg, want)
	}
}

// UniquePath names the test, under the parent, and differs on every call.
func TestUniquePath(t *testing.T) {
	a, b := zktest.UniquePath(t, "/tests"), zktest.UniquePath(t, "/tests/")
	if !regexp.MustCompile(`^/tests/testuniquepath-[0-9a-f]{8}$`).MatchString(a) || a == b {
		t.Fatalf("paths %q, %q", a, b)
	}
	t.Run("sub test/with spaces", func(t *testing.T) {
		if p := zktest.UniquePath(t, "/x"); !regexp.MustCompile(`^/x/testuniquepath-sub_test-with_spaces-[0-9a-f]{8}$`).MatchString(p) {
			t.Fatalf("path %q", p)
		}
	})
}

// Gauge remembers the most holders at once, even when they enter together.
func TestGauge(t *testing.T) {
	var g zktest.Gauge
	const n = 8
	var entered, wg sync.WaitGroup
	release := make(chan struct{})
	entered.Add(n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g.Enter()
			entered.Done()
			<-release
			g.Leave()
		}()
	}
	entered.Wait()
	if g.Load() != n {
		t.Fatalf("%d inside, want %d", g.Load(), n)
	}
	close(release)
	wg.Wait()
	if g.Load() != 0 || g.Max() != n || g.Add(3) != 3 || g.Max() != n {
		t.Fatalf("after: %d inside, max %d", g.Load(), g.Max())
	}
}

// Connect gives a connected framework; Children lists a missing node as empty; a watch is
// counted until it fires, and CheckNoWatches passes once it has.
func TestConnectChildrenNoWatches(t *testing.T) {
	c := zktest.Start(t)
	fw := zktest.Connect(t, c)
	p := zktest.UniquePath(t, "/") // a top-level node: Create makes no parents
	if kids := zktest.Children(t, fw, p); len(kids) != 0 {
		t.Fatalf("children of a missing node: %v", kids)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, w, err := fw.ExistsW(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if fw.Watches() != 1 {
		t.Fatalf("%d client watches, want 1", fw.Watches())
	}
	if _, err := fw.Create(ctx, p, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := fw.Create(ctx, p+"/a", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if kids := zktest.Children(t, fw, p); len(kids) != 1 || kids[0] != "a" {
		t.Fatalf("children %v, want [a]", kids)
	}
	zktest.CheckNoWatches(t, c, fw)
}

// AwaitGone returns once the node is gone (at once when it never was, after its changes when it
// changes first) and returns ctx's error, naming the path, when the node stays; the watches it
// set are gone once the node is.
func TestAwaitGone(t *testing.T) {
	c := zktest.Start(t)
	fw := zktest.Connect(t, c)
	tests := []struct {
		name    string
		exists  bool
		changes int  // data changes before the delete
		deleted bool // deleted at all
	}{
		{"never existed", false, 0, false},
		{"deleted", true, 0, true},
		{"changed twice, then deleted", true, 2, true},
		{"stays", true, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := zktest.UniquePath(t, "/")
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if tc.exists {
				if _, err := fw.Create(ctx, p, nil); err != nil {
					t.Fatal(err)
				}
			}
			if !tc.deleted {
				if tc.exists {
					defer func() { _ = fw.Delete(context.Background(), p) }()
				}
				short, stop := context.WithTimeout(ctx, 300*time.Millisecond)
				defer stop()
				err := zktest.AwaitGone(short, fw, p)
				switch {
				case !tc.exists && err != nil:
					t.Fatalf("AwaitGone of a missing node: %v", err)
				case tc.exists && (!errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), p)):
					t.Fatalf("AwaitGone of a node that stays: %v, want the deadline naming %s", err, p)
				}
				return
			}
			done := make(chan error, 1)
			go func() { done <- zktest.AwaitGone(ctx, fw, p) }()
			zktest.Eventually(t, 10*time.Second, "AwaitGone's watch", func() bool { return fw.Watches() == 1 })
			for i := range tc.changes {
				if _, err := fw.Set(ctx, p, []byte{byte(i)}, -1); err != nil {
					t.Fatal(err)
				}
				// the next watch is set before the next change: nothing is missed either way,
				// this makes the re-arm run
				zktest.Eventually(t, 10*time.Second, "the re-armed watch", func() bool { return fw.Watches() == 1 })
			}
			select {
			case err := <-done:
				t.Fatalf("AwaitGone returned %v before the delete", err)
			default:
			}
			if err := fw.Delete(ctx, p); err != nil {
				t.Fatal(err)
			}
			if err := zktest.Receive(t, done, 10*time.Second, "AwaitGone's return"); err != nil {
				t.Fatalf("AwaitGone: %v", err)
			}
		})
	}
	zktest.CheckNoWatches(t, c, fw)
}
