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

// Issue 17.15: a second Acquire by the holder of the same Lock waits on itself. TryAcquire says
// so (a lease of this process holds it: Reenter), and a blocking Acquire warns once. On the old
// code TryAcquire said "held by another contender" and nothing was logged.
func TestSelfReacquireSaysSo(t *testing.T) {
	var logs zktest.LogBuffer
	fw := zktest.Connect(t, shared, framework.WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))))
	p := lockPath(t)
	m := mustMutex(t, fw, p)
	l := mustAcquire(t, m, 10*time.Second)

	_, err := m.TryAcquire(ctxFor(t, 10*time.Second))
	var le *recipes.LockedError
	if !errors.Is(err, recipes.ErrSelfLocked) || !errors.As(err, &le) || le.Held != l.NodeName() ||
		!strings.Contains(err.Error(), "this process") || !strings.Contains(err.Error(), "Reenter") {
		t.Fatalf("TryAcquire by the holder's Lock: %v, want ErrLocked naming a lease of this process and Reenter", err)
	}
	// Another Lock object on the path is another contender, even in this process.
	_, err = mustMutex(t, fw, p).TryAcquire(ctxFor(t, 10*time.Second))
	if !errors.Is(err, recipes.ErrLocked) || errors.Is(err, recipes.ErrSelfLocked) || strings.Contains(err.Error(), "Reenter") {
		t.Fatalf("TryAcquire by another Lock: %v, want plain ErrLocked", err)
	}
	for range 2 {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		_, err = m.Acquire(ctx)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Acquire behind our own lease: %v, want DeadlineExceeded", err)
		}
	}
	if n := strings.Count(logs.String(), "waits behind a lease of this process"); n != 1 {
		t.Fatalf("warned %d times, want once:\n%s", n, logs.String())
	}
	// A lease that was released no longer counts as ours.
	mustRelease(t, l)
	l2, err := m.TryAcquire(ctxFor(t, 10*time.Second))
	if err != nil {
		t.Fatalf("TryAcquire after release: %v", err)
	}
	mustRelease(t, l2)
}
