package recipes_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// Issue 26.8: Curator's downgrade idiom (acquire the read lock while holding the write lock)
// and an upgrade (the write lock while holding a read lease) both wait on this process's own
// lease until ctx ends. Nothing can tell the caller's goroutine, and another goroutine of the
// process must still wait for the writer, so neither is granted: TryAcquire names the lease of
// this process that holds it and what to do instead (a *LockedError matching ErrSelfLocked),
// and a blocking Acquire warns once. On the old code TryAcquire said "by another contender" and
// nothing was logged.
func TestReadWriteSelfWaitSaysSo(t *testing.T) {
	kazoo := func(t testing.TB, fw *framework.Framework, p string, _ ...recipes.LockOption) *recipes.InterProcessReadWriteLock {
		rw, err := recipes.NewKazooReadWriteLock(fw, p)
		if err != nil {
			t.Fatal(err)
		}
		return rw
	}
	tests := []struct {
		name     string
		newRW    func(t testing.TB, fw *framework.Framework, p string, opts ...recipes.LockOption) *recipes.InterProcessReadWriteLock
		hold     func(rw *recipes.InterProcessReadWriteLock) (*recipes.Lease, error)
		try      func(rw *recipes.InterProcessReadWriteLock) *recipes.Lock
		advice   string // what TryAcquire's error and the warning must say
		warnText string
	}{
		{"read while holding the write lock (downgrade)", mustRW,
			func(rw *recipes.InterProcessReadWriteLock) (*recipes.Lease, error) {
				return rw.WriteLock().Acquire(ctxFor(t, 10*time.Second))
			},
			func(rw *recipes.InterProcessReadWriteLock) *recipes.Lock { return rw.ReadLock().Lock },
			"Downgrade", "waits behind a write lease of this process"},
		{"write while holding a read lease (upgrade)", mustRW,
			func(rw *recipes.InterProcessReadWriteLock) (*recipes.Lease, error) {
				return rw.ReadLock().Acquire(ctxFor(t, 10*time.Second))
			},
			func(rw *recipes.InterProcessReadWriteLock) *recipes.Lock { return rw.WriteLock().Lock },
			"no upgrade", "waits behind a read lease of this process"},
		{"kazoo: read while holding the write lock (no downgrade)", kazoo,
			func(rw *recipes.InterProcessReadWriteLock) (*recipes.Lease, error) {
				return rw.WriteLock().Acquire(ctxFor(t, 10*time.Second))
			},
			func(rw *recipes.InterProcessReadWriteLock) *recipes.Lock { return rw.ReadLock().Lock },
			"no downgrade", "waits behind a write lease of this process"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs zktest.LogBuffer
			fw := zktest.Connect(t, shared, framework.WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))))
			p := lockPath(t)
			rw := tt.newRW(t, fw, p)
			held, err := tt.hold(rw)
			if err != nil {
				t.Fatal(err)
			}
			_, err = tt.try(rw).TryAcquire(ctxFor(t, 10*time.Second))
			var le *recipes.LockedError
			if !errors.Is(err, recipes.ErrLocked) || !errors.Is(err, recipes.ErrSelfLocked) || !errors.As(err, &le) ||
				le.Held != held.NodeName() || !strings.Contains(err.Error(), tt.advice) {
				t.Fatalf("TryAcquire: %v (%+v), want a LockedError matching ErrSelfLocked, Held %s, saying %q", err, le, held.NodeName(), tt.advice)
			}
			// Another read-write lock object on the path is another contender, even in this process.
			_, err = tt.try(tt.newRW(t, fw, p)).TryAcquire(ctxFor(t, 10*time.Second))
			if !errors.Is(err, recipes.ErrLocked) || errors.Is(err, recipes.ErrSelfLocked) {
				t.Fatalf("TryAcquire through another lock object: %v, want plain ErrLocked", err)
			}
			for range 2 {
				ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
				_, err = tt.try(rw).Acquire(ctx)
				cancel()
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("Acquire behind our own lease: %v, want DeadlineExceeded", err)
				}
			}
			if n := strings.Count(logs.String(), tt.warnText); n != 1 || !strings.Contains(logs.String(), tt.advice) {
				t.Fatalf("warned %d times, want once, saying %q:\n%s", n, tt.advice, logs.String())
			}
			mustRelease(t, held)
			l, err := tt.try(rw).TryAcquire(ctxFor(t, 10*time.Second))
			if err != nil {
				t.Fatalf("TryAcquire after release: %v", err)
			}
			mustRelease(t, l)
		})
	}
}
