package framework_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/retry"
)

// countingHandler counts how often the logger is asked whether Debug is on under a context
// marked with requestKey (go-zookeeper's own log lines, forwarded at Debug, ask under none),
// and keeps the messages it is given.
type countingHandler struct {
	debugAsked atomic.Int64
	mu         sync.Mutex
	msgs       []string
}

type requestKey struct{}

func (h *countingHandler) Enabled(ctx context.Context, l slog.Level) bool {
	if l == slog.LevelDebug && ctx.Value(requestKey{}) != nil {
		h.debugAsked.Add(1)
	}
	return true
}

func (h *countingHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	h.msgs = append(h.msgs, r.Message)
	h.mu.Unlock()
	return nil
}

func (h *countingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *countingHandler) WithGroup(string) slog.Handler      { return h }

func (h *countingHandler) count(msg string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, m := range h.msgs {
		if strings.Contains(m, msg) {
			n++
		}
	}
	return n
}

// A request that succeeds at once never asks the logger whether retries are to be logged: that
// question is asked only on a failure that may be retried (issue 27, a cold cache line per
// request). Retries are still logged at Debug, one line each.
func TestRetryLogOnlyAsksOnFailure(t *testing.T) {
	h := &countingHandler{}
	f := newFW(t, nil, framework.WithLogger(slog.New(h)))
	ctx, cancel := context.WithTimeout(context.WithValue(context.Background(), requestKey{}, true), bound)
	defer cancel()
	before := h.debugAsked.Load()
	for range 20 {
		if _, err := f.Exists(ctx, "/retrylog"); err != nil {
			t.Fatal(err)
		}
	}
	if n := h.debugAsked.Load() - before; n != 0 {
		t.Fatalf("20 requests that succeeded asked the logger %d times whether Debug is on, want 0", n)
	}

	h2 := &countingHandler{}
	down, err := framework.New([]string{closedPort(t)}, framework.WithLogger(slog.New(h2)),
		framework.WithConnectionTimeout(50*time.Millisecond), framework.WithRetryPolicy(retry.NTimes(2, time.Millisecond)))
	if err != nil {
		t.Fatal(err)
	}
	defer down.Close()
	if _, err := down.Exists(ctx, "/x"); !errors.Is(err, framework.ErrNoServer) {
		t.Fatalf("Exists with no server = %v, want ErrNoServer", err)
	}
	if n := h2.count("framework: retrying"); n != 2 {
		t.Fatalf("%d retries logged, want 2 (NTimes(2))", n)
	}
}

// A request under a context that has ended sends nothing and returns the context's error, as
// retry.Do did before the Framework made first attempts itself.
func TestEndedContextSendsNothing(t *testing.T) {
	f := newFW(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	before := f.RequestsStarted()
	for name, req := range map[string]func() error{
		"Exists":   func() error { _, err := f.Exists(ctx, "/ended"); return err },
		"Children": func() error { _, _, err := f.Children(ctx, "/"); return err },
		"Delete":   func() error { return f.Delete(ctx, "/ended") },
		"GetW":     func() error { _, _, _, err := f.GetW(ctx, "/ended"); return err },
	} {
		if err := req(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s under an ended context = %v, want context.Canceled", name, err)
		}
	}
	if n := f.RequestsStarted() - before; n != 0 {
		t.Fatalf("requests under an ended context sent %d requests, want 0", n)
	}
}
