package framework

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/zkrecipes/zkrecipes/retry"
)

// check validates what every operation needs before any request: the path (a write refuses "/"),
// the context and the Framework's state.
func (f *Framework) check(ctx context.Context, p string, write bool) error {
	if err := f.paths.check(p, write); err != nil {
		return err
	}
	if ctx == nil {
		return ErrNilContext
	}
	if f.closed.Load() {
		return ErrClosed
	}
	return nil
}

// classify is Classify, except that nothing is retried once the Framework is closed.
func (f *Framework) classify(err error) retry.Class {
	if f.closed.Load() {
		return retry.Permanent
	}
	return Classify(err)
}

// retry runs op under ctx and the retry policy, waiting for a connection before each attempt.
// The first attempt runs here, outside retry.Do, which takes over only after a failure: a
// request that succeeds at once, nearly all of them, pays none of Do's per-call checks, and the
// log level that decides whether retries are logged is read only when one may be. When nothing
// needs waiting for, the first attempt is op itself, with no closure around it (issue 27).
func (f *Framework) retry(ctx context.Context, op func(ctx context.Context) error) error {
	if ctx == nil {
		return ErrNilContext
	}
	if err := ctx.Err(); err != nil { // as retry.Do: no attempt under a context that has ended
		return err
	}
	var err error
	if f.sendable() {
		err = op(ctx)
	} else {
		err = f.attempt(ctx, op)
	}
	if err == nil {
		return nil
	}
	var opts []retry.DoOption
	if f.log.Enabled(ctx, slog.LevelDebug) { // no option, no allocation, when nobody reads the log
		opts = f.retryNotify
	}
	return retry.Continue(ctx, f.cfg.retry, f.classify, func(ctx context.Context) error { return f.attempt(ctx, op) },
		err, opts...)
}

// sendable reports whether a request may be sent now without waiting: the credentials are sent,
// and waitConnectedBounded would return at once.
func (f *Framework) sendable() bool { return f.authed.Load() && f.connectedNow() }

// connectedNow reports whether go-zookeeper has a session and has re-sent its watches (no
// socket gate): waitConnectedBounded's case for returning at once.
func (f *Framework) connectedNow() bool {
	return f.conn.State() == zk.StateHasSession && f.sockets.gate.Load() == nil
}

// attempt is one attempt of op behind the auth and connection gates.
func (f *Framework) attempt(ctx context.Context, op func(ctx context.Context) error) error {
	if !f.authed.Load() {
		select {
		case <-f.authDone:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if err := f.waitConnectedBounded(ctx); err != nil {
		return err
	}
	return op(ctx)
}

// notifyRetry logs a retry at Debug; Framework.retryNotify holds it as an option made once.
func (f *Framework) notifyRetry(err error, next time.Duration) {
	f.log.Debug("framework: retrying", "err", err, "in", next)
}

// waitConnectedBounded waits until a request may be sent: go-zookeeper has a session and has
// re-sent its watches (setwatches.go). It returns early on ctx (its error) or Close (ErrClosed),
// and after the connection timeout with a retryable error wrapping ErrNoServer, without sending:
// a request queued on a connection that is down would be written on the next one before
// go-zookeeper re-registers its watches, inside its data race on lastZxid.
func (f *Framework) waitConnectedBounded(ctx context.Context) error {
	if f.connectedNow() {
		return nil
	}
	timer := time.NewTimer(f.cfg.connTimeout)
	defer timer.Stop()
	for {
		if f.conn.State() == zk.StateHasSession {
			return f.sockets.passSetWatches(ctx, timer.C)
		}
		_, _, connected := f.st.snapshot()
		select {
		case <-connected:
		case <-ctx.Done():
			return f.notConnected(ctx.Err())
		case <-f.quit:
			return ErrClosed
		case <-timer.C:
			return fmt.Errorf("framework: not connected within %v, tried %s: %w",
				f.cfg.connTimeout, f.sockets.noServer(f.servers), ErrNoServer)
		}
	}
}

// op runs one go-zookeeper request under the retry policy, each attempt through call.
func op[T any](f *Framework, ctx context.Context, fn func() (T, error)) (T, error) {
	var v T
	err := f.retry(ctx, func(ctx context.Context) error {
		r, err := call(f, ctx, fn)
		v = r
		return err
	})
	return v, err
}

// opWith is op for a request given as callWith's: fn captures nothing, a is its argument.
func opWith[A, T any](f *Framework, ctx context.Context, a A, fn func(A) (T, error)) (T, error) {
	var v T
	err := f.retry(ctx, func(ctx context.Context) error {
		r, err := callWith(f, ctx, a, fn)
		v = r
		return err
	})
	return v, err
}

// pathArgs is the argument of a request that takes a server path alone (callWith).
type pathArgs struct {
	conn *zk.Conn
	full string
}

// call runs one go-zookeeper request on a goroutine so that ctx can end the wait (the request itself
// cannot be cancelled and may still complete). It runs the request on the caller's goroutine instead
// under a context that can never end (context.Background()), and inside a
// create that runs on a goroutine of its own (withInline). It counts the request and maps errors:
// ErrClosed once closed, sentinels for go-zookeeper's "unknown error" codes.
func call[T any](f *Framework, ctx context.Context, fn func() (T, error)) (T, error) {
	v, err, _ := runRequest(f, ctx, fn, false)
	return v, err
}

// callTracked is call that also returns a channel closed when the request has finished (even if
// ctx ended first), for cleanups that must not race with it. A request that ran on the caller's
// goroutine has finished when callTracked returns: its channel is one closed already, made once.
func callTracked[T any](f *Framework, ctx context.Context, fn func() (T, error)) (T, error, <-chan struct{}) {
	return runRequest(f, ctx, fn, true)
}

// finishedAlready is callTracked's channel for a request that ended before it returned.
var finishedAlready = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// endRequest marks a request begun by enterRequest as ended, and closes finished if there is one.
func (f *Framework) endRequest(finished chan struct{}) {
	f.bg.exit()
	if finished != nil {
		close(finished)
	}
}

type result[T any] struct {
	v   T
	err error
}

// runRequest is call; with track, it also returns a channel closed once the request has ended
// (or never ran): finishedAlready when it ended before runRequest returns (it ran on the
// caller's goroutine, or never ran), so that the common case allocates no channel.
// A request that runs on the caller's goroutine goes from here to runHere through two small
// checks (runsHere, enterRequest), without the closures and layers (op's, retry's attempt,
// call's, beginRequest) that cost it ~0.7 µs cold (issue 27).
func runRequest[T any](f *Framework, ctx context.Context, fn func() (T, error), track bool) (T, error, <-chan struct{}) {
	if !runsHere(ctx) {
		return runBeside(f, ctx, fn, track)
	}
	if !f.enterRequest() {
		var zero T
		return zero, ErrClosed, finishedAlready
	}
	v, err := runHere(f, fn)
	if err != nil {
		err = f.callError(err)
	}
	return v, err, finishedAlready
}

// runHere runs a request that entered on the caller's goroutine; it exits even if fn panics.
func runHere[T any](f *Framework, fn func() (T, error)) (T, error) {
	defer f.bg.exit()
	return fn()
}

// enterRequest counts a request for Close and RequestsStarted, unless the Framework is closed.
func (f *Framework) enterRequest() bool {
	if !f.bg.enter() {
		return false
	}
	f.requests.Add(1)
	return true
}

// runsHere reports whether a request under ctx runs on the caller's goroutine: nobody leaves it
// early (ctx cannot end, or is marked Inline), so no goroutine runs beside it. It reads
// ctx.Done once.
func runsHere(ctx context.Context) bool {
	d := ctx.Done()
	return d == nil || markedInline(ctx, d)
}

// callWith is call for a request given as fn, a function that captures nothing, and its
// argument a. A request closure that captures its variables escapes through the hand-off
// beside a cancellable caller, so it was allocated for every request, even one that ran on
// the caller's goroutine; a is copied to the heap only when the request is handed off
// (issue 27).
func callWith[A, T any](f *Framework, ctx context.Context, a A, fn func(A) (T, error)) (T, error) {
	v, err, _ := runRequestWith(f, ctx, a, fn, false)
	return v, err
}

// callTrackedWith is callTracked for a request given as callWith's.
func callTrackedWith[A, T any](f *Framework, ctx context.Context, a A, fn func(A) (T, error)) (T, error, <-chan struct{}) {
	return runRequestWith(f, ctx, a, fn, true)
}

// runRequestWith is runRequest for a request given as callWith's. The two stay separate copies:
// routing runRequest through this one needs a generic function value to call its closure, and
// that allocated 16 B on every request (session 23).
func runRequestWith[A, T any](f *Framework, ctx context.Context, a A, fn func(A) (T, error), track bool) (T, error, <-chan struct{}) {
	if !runsHere(ctx) {
		heap := a // moved to the heap here, on the hand-off's branch only
		return runBeside(f, ctx, func() (T, error) { return fn(heap) }, track)
	}
	if !f.enterRequest() {
		var zero T
		return zero, ErrClosed, finishedAlready
	}
	v, err := runHereWith(f, a, fn)
	if err != nil {
		err = f.callError(err)
	}
	return v, err, finishedAlready
}

// runHereWith is runHere for a request given as callWith's.
func runHereWith[A, T any](f *Framework, a A, fn func(A) (T, error)) (T, error) {
	defer f.bg.exit()
	return fn(a)
}

// runBeside runs a request on a goroutine beside the caller, who waits for it until ctx ends
// (runRequest).
func runBeside[T any](f *Framework, ctx context.Context, fn func() (T, error), track bool) (T, error, <-chan struct{}) {
	var zero T
	if !f.enterRequest() {
		return zero, ErrClosed, finishedAlready
	}
	var finished chan struct{}
	if track {
		finished = make(chan struct{})
	}
	ch := make(chan result[T], 1)
	f.Go(func() {
		defer f.endRequest(finished)
		v, err := fn()
		ch <- result[T]{v, err}
	})
	select {
	case r := <-ch:
		return r.v, f.callError(r.err), finishedOr(finished)
	case <-ctx.Done():
		return zero, ctx.Err(), finishedOr(finished)
	}
}

// finishedOr is finished, or finishedAlready when no channel was asked for.
func finishedOr(finished chan struct{}) <-chan struct{} {
	if finished == nil {
		return finishedAlready
	}
	return finished
}

// callError maps a go-zookeeper error: sentinels for its "unknown error" codes, ErrClosed for a
// connection closed by our own Close, and ErrNoServer wrapped with the addresses tried.
func (f *Framework) callError(err error) error {
	err = mapZKError(err)
	switch {
	case err == nil:
	case f.closed.Load() && errors.Is(err, zk.ErrConnectionClosed):
		return ErrClosed
	case errors.Is(err, zk.ErrNoServer):
		return fmt.Errorf("framework: no ZooKeeper server reachable, tried %s: %w", f.sockets.noServer(f.servers), err)
	}
	return err
}

// full maps a namespace-relative path to the server path.
func (f *Framework) full(p string) string {
	if f.ns == "" {
		return p
	}
	if p == "/" {
		return f.ns
	}
	return f.ns + p
}

// rel maps a server path back to a namespace-relative one.
func (f *Framework) rel(full string) string {
	if f.ns == "" {
		return full
	}
	r := full[min(len(f.ns), len(full)):]
	if r == "" {
		return "/"
	}
	return r
}

// inlineKey marks a context whose requests run on the caller's goroutine although the context
// can end (see Inline); its value is the Done channel of the context it marked.
type inlineKey struct{}

// Inline returns ctx marked so that the Framework's requests under it run on the calling
// goroutine, with no goroutine beside each of them: ctx's end is then seen between requests,
// not during one. It is for a goroutine that nobody leaves early, or that someone else waits for
// under ctx, so that that wait still ends at once: a held lease's watch on its node, a create of
// CreateAndList. A context derived from the result with a Done of its own (WithTimeout,
// WithCancel: a cleanup's bound, say) is not inline: its requests run beside it again, so that
// its own end is honoured at once.
func Inline(ctx context.Context) context.Context {
	if inlined(ctx) { // marked already (an acquire's burst calling CreateAndList): no new context
		return ctx
	}
	return context.WithValue(ctx, inlineKey{}, ctx.Done())
}

// withInline is Inline, for the Framework's own goroutines.
func withInline(ctx context.Context) context.Context { return Inline(ctx) }

// inlined reports whether ctx is (or shares the Done of) a context marked by Inline.
func inlined(ctx context.Context) bool { return markedInline(ctx, ctx.Done()) }

// markedInline reports whether ctx carries Inline's mark for done, its Done channel.
func markedInline(ctx context.Context, done <-chan struct{}) bool {
	m, ok := ctx.Value(inlineKey{}).(<-chan struct{})
	return ok && m == done
}
