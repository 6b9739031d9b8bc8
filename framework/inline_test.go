package framework_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// A request in flight on a silent connection: by default a cancelled context returns at once,
// while the epoch is still live; WithInlineRequests waits for the request until go-zookeeper gives
// it up (2/3 of the 4 s session timeout), and then returns both errors.
func TestInlineRequestsWaitForTheRequestInFlight(t *testing.T) {
	for _, tc := range []struct {
		name   string
		inline bool
	}{{"abandonable", false}, {"inline", true}} {
		t.Run(tc.name, func(t *testing.T) {
			var opts []framework.Option
			if tc.inline {
				opts = append(opts, framework.WithInlineRequests())
			}
			f, p, _ := proxied(t, opts...)
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
			gaveUp := errors.Is(err, zk.ErrConnectionClosed)
			switch {
			case !tc.inline && (gaveUp || sess.Err() != nil):
				t.Fatalf("abandonable: err = %v, epoch err = %v; want the context's error while the epoch lives", err, sess.Err())
			case tc.inline && !gaveUp:
				t.Fatalf("inline: err = %v; want the request's own end (connection closed) with the context's error", err)
			}
		})
	}
}
