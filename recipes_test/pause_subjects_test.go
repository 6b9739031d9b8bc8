package recipes_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	election "github.com/zkrecipes/zkrecipes/leader"
	"github.com/zkrecipes/zkrecipes/recipes"
)

// liveness is what exposes a lock's loss: Done, Context and Err.
type liveness interface {
	Done() <-chan struct{}
	Context() context.Context
	Err() error
}

// pauseKinds are the holders a pause holder holds, each on a framework of its own (so each
// one's loss is its own): every type that exposes Done, Context and Err.
var pauseKinds = []string{"mutex", "semaphore", "multi", "term", "session"}

// pauseChecks are the ways a holder asks whether it still holds before a write: each must
// report the loss on its first call after a pause past the deadline.
var pauseChecks = map[string]func(l liveness) error{
	"err": func(l liveness) error { return l.Err() },
	"done": func(l liveness) error {
		select {
		case <-l.Done():
			return l.Err()
		default:
			return nil
		}
	},
	"ctx": func(l liveness) error {
		ctx := l.Context()
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return nil
	},
}

// holdKind acquires kind at p on fw and returns what exposes its loss, and its release.
func holdKind(ctx context.Context, fw *framework.Framework, kind, p string) (liveness, func(context.Context), error) {
	switch kind {
	case "mutex":
		m, err := recipes.NewMutex(fw, p)
		if err != nil {
			return nil, nil, err
		}
		l, err := m.Acquire(ctx)
		if err != nil {
			return nil, nil, err
		}
		return l, func(ctx context.Context) { _ = l.Release(ctx) }, nil
	case "semaphore":
		s, err := recipes.NewSemaphore(fw, p, 1)
		if err != nil {
			return nil, nil, err
		}
		ls, err := s.Acquire(ctx, 1)
		if err != nil {
			return nil, nil, err
		}
		return ls[0], func(ctx context.Context) { _ = ls[0].Release(ctx) }, nil
	case "multi":
		m, err := recipes.NewMultiMutex(fw, p+"/a", p+"/b")
		if err != nil {
			return nil, nil, err
		}
		ml, err := m.Acquire(ctx)
		if err != nil {
			return nil, nil, err
		}
		return ml, func(ctx context.Context) { _ = ml.Release(ctx) }, nil
	case "term":
		return holdTerm(ctx, fw, p)
	case "session":
		return fw.Session(), func(context.Context) {}, nil
	}
	return nil, nil, fmt.Errorf("unknown kind %q", kind)
}

// holdTerm starts a latch at p and awaits its term.
func holdTerm(ctx context.Context, fw *framework.Framework, p string) (liveness, func(context.Context), error) {
	latch, err := election.NewLatch(fw, p)
	if err != nil {
		return nil, nil, err
	}
	if err := latch.Start(); err != nil {
		return nil, nil, err
	}
	term, err := latch.Await(ctx)
	if err != nil {
		_ = latch.Close(ctx)
		return nil, nil, err
	}
	return term, func(ctx context.Context) { _ = latch.Close(ctx) }, nil
}

// pauseSubject is one holder of a pause holder: a kind checked one way.
type pauseSubject struct {
	name    string // kind/check
	fw      *framework.Framework
	live    liveness
	check   func(liveness) error
	release func(context.Context)
	lost    bool
}

// holdSubjects connects one framework per kind and check, and holds each kind under dir.
func holdSubjects(ctx context.Context, spec pauseSpec, dir string) ([]*pauseSubject, error) {
	var subjects []*pauseSubject
	for _, kind := range pauseKinds {
		for _, check := range []string{"err", "done", "ctx"} {
			s, err := holdSubject(ctx, spec, dir, kind, check)
			if err != nil {
				return subjects, err
			}
			subjects = append(subjects, s)
		}
	}
	return subjects, nil
}

func holdSubject(ctx context.Context, spec pauseSpec, dir, kind, check string) (*pauseSubject, error) {
	fw, err := framework.New(spec.Servers, framework.WithSessionTimeout(spec.T))
	if err != nil {
		return nil, err
	}
	s := &pauseSubject{name: kind + "/" + check, fw: fw, check: pauseChecks[check]}
	if err := fw.WaitConnected(ctx); err != nil {
		fw.Close()
		return nil, err
	}
	s.live, s.release, err = holdKind(ctx, fw, kind, dir+"/"+kind+"-"+check)
	if err != nil {
		fw.Close()
		return nil, fmt.Errorf("%s: %w", s.name, err)
	}
	return s, nil
}

// wantLoss checks that err, the loss a subject reported, is the one its kind must report:
// ErrLockLost for a lock, the session's end for a session epoch.
func wantLoss(name, err string) error {
	want := recipes.ErrLockLost.Error()
	if strings.HasPrefix(name, "session/") {
		want = "session"
	}
	if !strings.Contains(err, want) {
		return fmt.Errorf("%s lost with %q, want it to name %q", name, err, want)
	}
	return nil
}

// releaseSubjects releases and closes every subject, each bounded by d.
func releaseSubjects(subjects []*pauseSubject, d time.Duration) {
	for _, s := range subjects {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		s.release(ctx)
		cancel()
		s.fw.Close()
	}
}
