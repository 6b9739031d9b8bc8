package framework_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// A request in flight on a silent connection: a cancelled context returns at once, while the
// epoch is still live (go-zookeeper cannot cancel the request; a goroutine waits beside it).
func TestCancelledRequestInFlightReturnsAtOnce(t *testing.T) {
	for _, tc := range []struct{ name string }{{"abandonable"}} {
		t.Run(tc.name, func(t *testing.T) {
			f, p, _ := proxied(t)
			dir := uniquePath(t)
			if _, err := f.Create(testCtx(t), dir, nil); err != nil {
				t.Fatal(err)
			}
			sess := f.Session()
			p.Blackhole(true)
			defer p.Blackhole(false)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			before := f.RequestsStarted()
			done := make(chan error, 1)
			go func() {
				_, _, err := f.Children(ctx, dir)
				done <- err
			}()
			zktest.Eventually(t, bound, "the listing to start", func() bool { return f.RequestsStarted() != before }) // on its way (or being sent)
			cancel()
			var err error
			select {
			case err = <-done:
			case <-time.After(bound):
				t.Fatalf("Children still waiting %v after its context ended", bound)
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if errors.Is(err, zk.ErrConnectionClosed) || sess.Err() != nil {
				t.Fatalf("err = %v, epoch err = %v; want the context's error while the epoch lives", err, sess.Err())
			}
		})
	}
}
