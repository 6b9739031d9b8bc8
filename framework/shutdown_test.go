package framework_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
)

// Issue 26.3: Close and Shutdown wait for a Suspended connection to come back, but never past
// their bound: Close's is a third of the session timeout, Shutdown's its ctx. The connection
// here stays cut for longer than either. On the code before the fix Close returned at once (and
// Shutdown did not exist): the lower bound failed.
func TestCloseWhileDisconnectedReturnsAfterBound(t *testing.T) {
	const T = 4 * time.Second // newFW's session timeout
	const slack = 3 * time.Second
	cases := []struct {
		name    string
		close   func(*framework.Framework) error
		wait    time.Duration
		wantErr error
	}{
		{"Close", (*framework.Framework).Close, T / 3, nil},
		{"Shutdown", func(f *framework.Framework) error {
			ctx, cancel := context.WithTimeout(context.Background(), 600*time.Millisecond)
			defer cancel()
			return f.Shutdown(ctx)
		}, 600 * time.Millisecond, context.DeadlineExceeded},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, p, _ := proxied(t)
			t.Cleanup(func() { p.Blackhole(false) })
			p.Blackhole(true)
			p.DropConnections()
			waitState(t, f, framework.Suspended)
			start := time.Now()
			err := tc.close(f)
			d := time.Since(start)
			t.Logf("returned after %v (bound %v): %v", d, tc.wait, err)
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("error %v, want %v", err, tc.wantErr)
			}
			if d < tc.wait*9/10 || d > tc.wait+slack {
				t.Errorf("returned after %v, want about the bound %v (at most %v more)", d, tc.wait, slack)
			}
			select {
			case <-f.Done():
			default:
				t.Error("not closed")
			}
		})
	}
}

// Close does not wait when there is no session to close: a Framework that never connected, or a
// nil ctx given to Shutdown (which closes and names the nil ctx).
func TestCloseWithoutSessionDoesNotWait(t *testing.T) {
	cases := []struct {
		name    string
		close   func(*framework.Framework) error
		wantErr error
	}{
		{"Close never connected", (*framework.Framework).Close, nil},
		{"Shutdown nil ctx", func(f *framework.Framework) error { return f.Shutdown(nil) }, framework.ErrNilContext}, //nolint:staticcheck // the nil ctx is the test
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, err := framework.New([]string{"127.0.0.1:1"}, framework.WithSessionTimeout(30*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			err = tc.close(f)
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("returned after %v, want without the wait (bound %v)", d, 10*time.Second)
			}
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("error %v, want %v", err, tc.wantErr)
			}
		})
	}
}

// waitState polls f's state until it is want (bounded).
func waitState(t *testing.T, f *framework.Framework, want framework.ConnectionState) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for f.State() != want {
		if time.Now().After(deadline) {
			t.Fatalf("state %v, want %v within %v", f.State(), want, bound)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A request whose function panics on the caller's goroutine still leaves Close's count: the
// caller recovers, and Close returns. (Issue 27 took that request's exit out of a defer in its
// outer frame; runHere keeps it in one.) Both request forms, under a context that cannot end
// and under one marked Inline.
func TestPanickingRequestLetsCloseReturn(t *testing.T) {
	live, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, ctx := range []context.Context{context.Background(), framework.Inline(live)} {
		for _, with := range []bool{false, true} {
			f := newFW(t, shared.Servers())
			func() {
				defer func() {
					if recover() == nil {
						t.Error("the request did not panic")
					}
				}()
				framework.PanicRequest(f, ctx, with)
			}()
			closed := make(chan struct{})
			go func() { f.Close(); close(closed) }()
			select {
			case <-closed:
			case <-time.After(bound):
				t.Fatalf("with=%v: Close did not return after a request panicked", with)
			}
		}
	}
}

// Two Closes at once: the one that loses returns only once the Framework is closed (Done
// closed, WaitConnected refusing), as it did when both took a mutex. The winner is held right
// after it has won, and the loser runs then. On 9750187 the loser returned at once with Done
// still open.
func TestConcurrentCloseReturnsClosed(t *testing.T) {
	f := newFW(t, shared.Servers())
	type answer struct {
		done      bool
		connected error
	}
	lost := make(chan answer, 1)
	framework.SetCloseHook(f, func() {
		go func() {
			f.Close()
			a := answer{connected: f.WaitConnected(context.Background())}
			select {
			case <-f.Done():
				a.done = true
			default:
			}
			lost <- a
		}()
		select { // room for a loser that does not wait to return early; a waiting one returns later
		case a := <-lost:
			lost <- a
		case <-time.After(100 * time.Millisecond):
		}
	})
	f.Close()
	select {
	case a := <-lost:
		if !a.done || !errors.Is(a.connected, framework.ErrClosed) {
			t.Fatalf("the losing Close returned with Done closed %v and WaitConnected %v", a.done, a.connected)
		}
	case <-time.After(bound):
		t.Fatal("the losing Close did not return")
	}
}
