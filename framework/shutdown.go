package framework

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// closeReconnectDivisor: Close waits at most T/closeReconnectDivisor (T: SessionTimeout) for the
// connection to come back. go-zookeeper gives a silent connection up after 2T/3, so under a
// partition the server expires the session about T/3 later: past that, waiting cannot make the
// handoff earlier, and a caller exiting waits no longer than a third of the time a crash costs.
const closeReconnectDivisor = 3

// Shutdown closes the Framework as Close does, but first, while ctx allows, lets what we still
// owe the server reach it: when the connection is down but the session may live (Suspended), it
// waits for the reconnect; once connected, it waits for the guaranteed deletes still running in
// the background (DeleteInBackground, a Release whose ctx ended). Then it closes the session,
// which deletes every ephemeral node of ours at once, so that after a short outage the next
// holder of our locks starts as soon as we exit, not a whole session timeout later when the
// server expires the session. Closing the session only deletes our own nodes (it is a release),
// so this grants nothing sooner than safe. It does not wait when the session is known lost, when
// the Framework never had a session, or once Close has begun.
//
// Shutdown returns when the Framework is closed. It returns nil when nothing was left to wait for
// (or it came in time), and an error wrapping ctx's error when ctx ended first: the Framework is
// closed all the same, but our nodes may stay until the server expires the session. A nil ctx
// closes at once and returns ErrNilContext. Operations keep working during the wait.
func (f *Framework) Shutdown(ctx context.Context) error {
	if ctx == nil {
		f.closeNow()
		return ErrNilContext
	}
	err := f.flushBeforeClose(ctx)
	f.closeNow()
	return err
}

// flushBeforeClose waits, until ctx ends, for a Suspended connection to come back and then for the
// pending background deletes. It returns nil at once when there is nothing to wait for.
func (f *Framework) flushBeforeClose(ctx context.Context) error {
	if f.closed.Load() {
		return nil
	}
	state, _, connected := f.st.snapshot()
	switch state {
	case Latent, Lost:
		return nil // no session to close, or none left
	case Suspended:
		select {
		case <-connected:
		case <-f.quit:
			return nil
		case <-ctx.Done():
			return fmt.Errorf("framework: shutdown: no reconnect before ctx ended, so our nodes stay until the session expires: %w", ctx.Err())
		}
	}
	select {
	case <-f.deletes.idle():
	case <-f.quit:
	case <-ctx.Done():
		return fmt.Errorf("framework: shutdown: background deletes still pending when ctx ended: %w", ctx.Err())
	}
	return nil
}

// closeBound is Close's bound on flushBeforeClose: a third of the session timeout.
func (f *Framework) closeBound() time.Duration {
	return f.sessionTimeout() / closeReconnectDivisor
}

// pendingSet counts the background deletes still running, so that Shutdown can wait for them.
type pendingSet struct {
	mu   sync.Mutex
	n    int
	zero chan struct{} // closed while n == 0; nil stands for a closed one
}

// add counts one more.
func (p *pendingSet) add() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.n == 0 {
		p.zero = make(chan struct{})
	}
	p.n++
}

// done counts one less.
func (p *pendingSet) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n--
	if p.n == 0 {
		close(p.zero)
	}
}

// idle returns a channel closed once none is pending.
func (p *pendingSet) idle() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.n == 0 {
		return closedChan
	}
	return p.zero
}

// closedChan is a channel that is always closed.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()
