package chaos

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/leader"
)

// Leader election as a workload: a term of leadership maps onto a Holder
// (Done is Term.Done, the one part is fenced by Term.Token and Term.Guard),
// so the ledger, the fence, pinning and every checker judge it as they judge
// a mutex. Acquire waits for the client's next term; Release of a term that
// is still live gives leadership up (a latch is closed and a new one starts,
// a selector's takeover returns); a term that ended by a fault needs nothing,
// since both recipes re-enter the election by themselves.

// leaderWrites is how many fenced writes a leader makes per term, spread
// over it and each only while the term is live.
const leaderWrites = 4

// termHolder adapts a *leader.Term.
type termHolder struct {
	t       *leader.Term
	res     string
	release func(ctx context.Context) error
}

func (h termHolder) Done() <-chan struct{} { return h.t.Done() }
func (h termHolder) Err() error            { return h.t.Err() }
func (h termHolder) Parts() []Part {
	return []Part{{Res: h.res, Token: h.t.Token, Guard: h.t.Guard}}
}
func (h termHolder) Release(ctx context.Context) error { return h.release(ctx) }
func (h termHolder) SessionID() int64                  { return h.t.SessionID() }

// latchLocker is one client's LeaderLatch on path: Acquire awaits its next
// term; giving a live term up closes the latch, and the next Acquire starts
// a new one (at the back of the election). Safe for concurrent use, but
// meant for one worker: two workers would share one term.
type latchLocker struct {
	fw   *framework.Framework
	path string
	id   string
	mu   sync.Mutex
	l    *leader.LeaderLatch // started; nil after a give-up until the next Acquire
	gen  int
}

// LatchLocker returns a Locker whose grants are terms of a LeaderLatch on path.
func LatchLocker(fw *framework.Framework, path, id string) (Locker, func(ctx context.Context) error) {
	l := &latchLocker{fw: fw, path: path, id: id}
	return l, l.close
}

// latch returns the running latch, starting a new one if there is none.
func (l *latchLocker) latch() (*leader.LeaderLatch, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.l != nil {
		return l.l, nil
	}
	l.gen++
	la, err := leader.NewLatch(l.fw, l.path, leader.WithID(fmt.Sprintf("%s.%d", l.id, l.gen)))
	if err != nil {
		return nil, err
	}
	if err := la.Start(); err != nil {
		return nil, err
	}
	l.l = la
	return la, nil
}

func (l *latchLocker) Acquire(ctx context.Context) (Holder, error) {
	la, err := l.latch()
	if err != nil {
		return nil, err
	}
	t, err := la.Await(ctx)
	if err != nil {
		return nil, err
	}
	return termHolder{t: t, res: l.path, release: func(ctx context.Context) error {
		if t.Err() != nil {
			return nil // ended by a fault: the latch re-enters by itself
		}
		return l.giveUp(ctx, la) // voluntary: close, and start anew at the next Acquire
	}}, nil
}

// TryAcquire is an Acquire that may not wait.
func (l *latchLocker) TryAcquire(ctx context.Context) (Holder, error) {
	ctx, cancel := context.WithTimeout(ctx, 0)
	defer cancel()
	return l.Acquire(ctx)
}

// giveUp closes la, if it is still the running latch.
func (l *latchLocker) giveUp(ctx context.Context, la *leader.LeaderLatch) error {
	l.mu.Lock()
	if l.l == la {
		l.l = nil
	}
	l.mu.Unlock()
	return la.Close(ctx)
}

// close closes the running latch, if any (the client's end).
func (l *latchLocker) close(ctx context.Context) error {
	l.mu.Lock()
	la := l.l
	l.l = nil
	l.mu.Unlock()
	if la == nil {
		return nil
	}
	if err := la.Close(ctx); err != nil && !errors.Is(err, leader.ErrClosed) {
		return err
	}
	return nil
}

// selectorLocker is one client's LeaderSelector on path, with AutoRequeue:
// its takeover hands each term to Acquire and returns when the term is
// released or ends.
type selectorLocker struct {
	s     *leader.LeaderSelector
	path  string
	terms chan selGrant
	// linger, when positive, keeps a takeover whose term ended (ctx) running until its worker
	// has stopped and released, at most linger: a stopping leader returns from its takeover
	// only after its stop delay, as a real one finishing its step does.
	linger time.Duration
}

// selGrant is a term on its way from the takeover to Acquire; closing ret
// makes the takeover return.
type selGrant struct {
	t   *leader.Term
	ret chan struct{}
}

// SelectorLocker returns a Locker whose grants are terms of a started
// LeaderSelector on path (AutoRequeue), and its close.
func SelectorLocker(fw *framework.Framework, path, id string) (Locker, func(ctx context.Context) error, error) {
	return selectorLockerOf(fw, path, id, 0)
}

// selectorLockerOf is SelectorLocker whose takeovers linger after their term ended (see linger).
func selectorLockerOf(fw *framework.Framework, path, id string, linger time.Duration) (Locker, func(ctx context.Context) error, error) {
	l := &selectorLocker{path: path, terms: make(chan selGrant), linger: linger}
	s, err := leader.NewSelector(fw, path, l.takeover, leader.WithID(id), leader.WithAutoRequeue())
	if err != nil {
		return nil, nil, err
	}
	if err := s.Start(); err != nil {
		return nil, nil, err
	}
	l.s = s
	return l, s.Close, nil
}

// takeover leads until Release asks it to return or the term ends.
func (l *selectorLocker) takeover(ctx context.Context, t *leader.Term) error {
	g := selGrant{t: t, ret: make(chan struct{})}
	select {
	case l.terms <- g:
	case <-ctx.Done():
		return nil
	}
	select {
	case <-g.ret:
	case <-ctx.Done():
		if l.linger > 0 {
			t := time.NewTimer(l.linger)
			defer t.Stop()
			select {
			case <-g.ret:
			case <-t.C:
			}
		}
	}
	return nil
}

func (l *selectorLocker) Acquire(ctx context.Context) (Holder, error) {
	for {
		select {
		case g := <-l.terms:
			if g.t.Err() != nil {
				close(g.ret)
				continue // ended on its way here: nobody believed in it
			}
			return termHolder{t: g.t, res: l.path, release: func(ctx context.Context) error {
				close(g.ret) // return from the takeover: the term ends, the node goes
				select {
				case <-g.t.Done():
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			}}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// TryAcquire is an Acquire that may not wait.
func (l *selectorLocker) TryAcquire(ctx context.Context) (Holder, error) {
	ctx, cancel := context.WithTimeout(ctx, 0)
	defer cancel()
	return l.Acquire(ctx)
}

// electionPicker builds client c's latch or selector on the run's first
// lock path; the client closes it before its framework.
func (s WorkloadSpec) electionPicker(e *Env, c *Client, long time.Duration) (Picker, error) {
	if s.Workers > 1 {
		return nil, fmt.Errorf("chaos: workload %s runs one candidate per session, not %d", s.Kind, s.Workers)
	}
	p0 := e.lockPath(0)
	var l Locker
	var closeFn func(ctx context.Context) error
	if s.Kind == WLeader {
		l, closeFn = LatchLocker(c.FW, p0, c.Name)
	} else {
		var err error
		var linger time.Duration
		if s.StopMax > 0 {
			linger = s.StopMax + pinBound*e.T // the worker's stop delay, after a pinned wait and a late write
		}
		if l, closeFn, err = selectorLockerOf(c.FW, p0, c.Name, linger); err != nil {
			return nil, err
		}
	}
	c.closers = append(c.closers, closeFn)
	spec := OpSpec{Locker: l, Res: p0, Mode: "x", Deadline: long, Write: true, Writes: leaderWrites}
	return func(*rand.Rand) OpSpec { return spec }, nil
}
