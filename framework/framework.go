package framework

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/zkrecipes/zkrecipes/retry"
	"github.com/zkrecipes/zkrecipes/watchmgr"
)

// closeWait bounds how long Close waits for go-zookeeper's goroutines to end.
const closeWait = 3 * time.Second

// Framework is a ZooKeeper client with Curator's connection states, retried operations, protected
// creates, guaranteed deletes and namespaces. Safe for concurrent use. Close it when done.
type Framework struct {
	cfg  config
	conn *zk.Conn
	zc   atomic.Pointer[zk.Conn] // conn, set before go-zookeeper can call back

	retryNotify []retry.DoOption // logs each retry at Debug; made once, not per operation
	evCh        <-chan zk.Event
	wmCB        zk.EventCallback
	wm          *watchmgr.Manager
	log         *slog.Logger
	ns          string // "/ns" or ""
	// servers is the server list given to New, named by ErrNoServer errors.
	servers []string

	st       stateMachine
	hub      *listenerHub
	requests atomic.Int64
	relists  atomic.Int64 // CreateAndList listings that had to be sent again
	// createHooks, set only by tests, pause CreateAndList at the two sides of its hand-off.
	createHooks atomic.Pointer[createHooks]
	// watchHook, set only by tests, runs between go-zookeeper's reply to a watching read (its
	// watch is set) and the Track that counts it.
	watchHook atomic.Pointer[func()]
	// mkdirsHook, set only by tests, runs after a create made missing parents, before it tries again.
	mkdirsHook atomic.Pointer[func(at mkdirsPoint, full string)]
	// closeHook, set only by tests, runs in the Close that won, right after it won.
	closeHook atomic.Pointer[func()]

	bg       *closeGate // operation and background goroutines, which Close waits for
	deletes  pendingSet // background deletes still running, for Shutdown
	closed   atomic.Bool
	paths    pathCache // the directory of the last path checked whole (validate.go)
	quit     chan struct{}
	bgCtx    context.Context
	bgCancel context.CancelFunc
	authDone chan struct{} // closed once the digest credentials were sent (or none are configured)
	authed   atomic.Bool   // authDone is closed: a request checks it without a select (issue 27)
	sockets  *connTracker
}

// New starts connecting to servers ("host:port") and returns at once, without blocking I/O. It
// fails on invalid options or an empty server list.
func New(servers []string, opts ...Option) (*Framework, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.err != nil {
		return nil, cfg.err
	}
	if err := retry.Validate(cfg.retry); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidOption, err)
	}
	f := &Framework{cfg: cfg, log: cfg.logger, quit: make(chan struct{}), hub: newListenerHub(cfg.logger),
		authDone: make(chan struct{}), bg: newCloseGate()}
	if cfg.namespace != "" {
		f.ns = "/" + cfg.namespace
	}
	f.bgCtx, f.bgCancel = context.WithCancel(context.Background())
	f.retryNotify = []retry.DoOption{retry.WithNotify(f.notifyRetry)}
	f.st = stateMachine{policy: cfg.errorPolicy, timeout: f.sessionTimeout, post: f.posted,
		log:      func(msg string, args ...any) { f.log.Warn(msg, args...) },
		lastRead: func() int64 { return f.sockets.lastRead.Load() }, // sockets exist before any session
		cut:      func() { f.sockets.closeAll() }}
	f.st.init()
	if cfg.tracer != nil {
		f.hub.add(func(s ConnectionState) { cfg.tracer(Trace{Kind: TraceState, Name: s.String(), State: s}) })
	}
	for _, fn := range cfg.listeners {
		f.hub.add(fn)
	}
	f.wm = watchmgr.New(cfg.logger)
	f.wmCB = f.wm.Callback()
	if err := f.connect(servers); err != nil {
		f.wm.Close()
		f.hub.close()
		f.bgCancel()
		return nil, err
	}
	if cfg.auth {
		f.goBackground(f.addAuth)
	} else {
		f.endAuth()
	}
	return f, nil
}

// connect dials go-zookeeper with our callback, logger and the user's options.
func (f *Framework) connect(servers []string) error {
	if len(servers) == 0 {
		return fmt.Errorf("%w: no servers (the list of server addresses is empty)", ErrInvalidOption)
	}
	if i := slices.IndexFunc(servers, func(s string) bool { return strings.TrimSpace(s) == "" }); i >= 0 {
		return fmt.Errorf("%w: server address %d of %d is empty (an unset variable split on commas?)",
			ErrInvalidOption, i+1, len(servers))
	}
	all := []func(*zk.Conn){
		func(c *zk.Conn) { f.zc.Store(c) }, // before go-zookeeper's loop starts: no callback sees nil
		zk.WithEventCallback(f.onZKEvent),
		zk.WithLogger(zkLogger{log: f.log}),
	}
	f.servers = slices.Clone(servers)
	dial, hosts := dialerOf(&f.cfg)
	if hosts != nil {
		all = append(all, zk.WithHostProvider(hosts)) // before the user's options: theirs replace it
	}
	f.sockets = newConnTracker(dial, f.log)
	f.sockets.heardAfter = f.st.heardAfter
	all = append(all, zk.WithDialer(f.sockets.Dial))
	all = append(all, f.cfg.zkOptions...)
	// connOption is unexported: forward every option through one function literal.
	conn, ev, err := zk.Connect(servers, f.cfg.sessionTimeout, func(c *zk.Conn) {
		for _, o := range all {
			o(c)
		}
	})
	if err != nil {
		return fmt.Errorf("framework: connect: %w", err)
	}
	f.conn, f.evCh = conn, ev
	return nil
}

// onZKEvent is go-zookeeper's event callback: it runs on go-zookeeper's connect loop (session
// events) and receive loop (watch events), so it never blocks and never calls the connection. It
// drives the state machine synchronously, then lets watchmgr interrupt the waiters: an epoch has
// ended before any waiter wakes to re-evaluate.
//
// Why no request of a new session can return while the old epoch looks live (go-zookeeper v1.0.4,
// conn.go): loop() runs connect() then authenticate() on one goroutine. authenticate() stores the
// session id and calls setState(StateExpired) or setState(StateHasSession), which calls us, before
// it returns; only then does loop() start sendLoop (which writes queued requests to the socket) and
// recvLoop (which answers them). So the Expired callback (ending the old epoch) and the HasSession
// callback (starting the new one) have both returned before the first request of the new session
// is even sent. Likewise setState(StateDisconnected) calls us before flushRequests fails the
// requests in flight. The session id read here is the one authenticate() has just stored: the id
// of the session this event is about (0 after an expiry).
func (f *Framework) onZKEvent(ev zk.Event) {
	if ev.Type == zk.EventSession {
		var id int64
		if c := f.zc.Load(); c != nil {
			id = c.SessionID()
		}
		switch ev.State {
		case zk.StateDisconnected:
			if f.wm.Resending() {
				f.sockets.armSetWatches(true) // go-zookeeper re-sends them on the next session
			}
		case zk.StateHasSession:
			if !f.wm.Resending() {
				f.sockets.armSetWatches(false) // nothing to re-send: open
			}
		}
		f.st.onEvent(ev, id)
		if ev.State == zk.StateHasSession {
			f.sockets.tagEpoch(f.Session(), id)
		}
	} else if ev.Path != "" && strings.HasPrefix(ev.Path, f.ns) {
		f.wm.NodeEvent(ev.Type, f.rel(ev.Path)) // before go-zookeeper sends it to the watches
	}
	f.wmCB(ev)
}

// endAuth lets requests go: the credentials were sent, or none are configured.
func (f *Framework) endAuth() {
	f.authed.Store(true)
	close(f.authDone)
}

// addAuth sends the digest credentials once connected (go-zookeeper re-sends them on reconnect).
// Operations wait for it, so that none runs unauthenticated.
func (f *Framework) addAuth(ctx context.Context) {
	defer f.endAuth()
	auth := []byte(f.cfg.authUser + ":" + f.cfg.authPass)
	err := retry.Do(ctx, retry.Forever(100*time.Millisecond), f.classify, func(ctx context.Context) error {
		if err := f.waitConnectedBounded(ctx); err != nil {
			return err
		}
		_, err := call(f, ctx, func() (struct{}, error) { return struct{}{}, f.conn.AddAuth("digest", auth) })
		return err
	})
	if err != nil && !f.closed.Load() {
		f.log.Error("framework: digest auth failed", "err", err)
	}
}

// posted queues a state for the listeners (and the log); it runs under the state machine's lock.
func (f *Framework) posted(s ConnectionState, session int64) { f.hub.post(s, session) }

// sessionTimeout is the session timeout the server negotiated in the ConnectResponse of the
// last session it granted (credentials.go), or the requested one before the first.
func (f *Framework) sessionTimeout() time.Duration {
	if c := f.sockets.creds.Load(); c != nil {
		return c.timeout
	}
	return f.cfg.sessionTimeout
}

// notConnected is the error of a wait for a connection that ctx ended: it wraps both ctx's error
// and ErrNoServer, and names the addresses tried and why.
func (f *Framework) notConnected(ctxErr error) error {
	err := fmt.Errorf("framework: not connected: tried %s: %w (%w)", f.sockets.noServer(f.servers), ErrNoServer, ctxErr)
	return f.sockets.alsoTLS(err)
}

// SessionTimeout returns the session timeout the server negotiated, or the requested one (see
// WithSessionTimeout) before the first session: the time a silent client keeps its session and
// its ephemeral nodes.
func (f *Framework) SessionTimeout() time.Duration { return f.sessionTimeout() }

// WaitConnected blocks until the Framework has a session, ctx ends or it is closed (ErrClosed).
// When ctx ends first the error matches both ctx's error and ErrNoServer with errors.Is, and
// names each address tried and why it failed (refused, timed out, connected but no session).
func (f *Framework) WaitConnected(ctx context.Context) error {
	if ctx == nil {
		return ErrNilContext
	}
	for {
		if f.closed.Load() {
			return ErrClosed
		}
		state, _, connected := f.st.snapshot()
		if state.IsConnected() {
			return nil
		}
		select {
		case <-connected:
		case <-ctx.Done():
			return f.notConnected(ctx.Err())
		case <-f.quit:
			return ErrClosed
		}
	}
}

// Close ends the current epoch (ErrClosed), stops background work (guaranteed deletes), closes the
// ZooKeeper session (its ephemeral nodes go) and waits for every goroutine the Framework started,
// except a connection-state listener still running: no listener is called after Close, and the
// listener goroutine ends when that one returns. Close may be called from a listener. Operations in
// flight return ErrClosed. Idempotent; always returns nil.
//
// Before closing, Close does what Shutdown does with a bound of a third of SessionTimeout: when
// the connection is down but the session may live (Suspended, a short outage), it waits for the
// reconnect and for the pending background deletes, so that closing the session deletes our
// nodes at once instead of leaving them until the session expires (a whole session timeout for
// the next holder of our locks). It does not wait when the session is lost or was never had.
// Past the bound it closes anyway: use Shutdown to choose the bound.
func (f *Framework) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), f.closeBound())
	defer cancel()
	_ = f.Shutdown(ctx)
	return nil
}

// closeNow is Close without the wait: it ends everything at once.
func (f *Framework) closeNow() {
	if !f.closed.CompareAndSwap(false, true) {
		<-f.quit // a Close that lost returns once the Framework is closed, as the winner sees it
		return
	}
	if h := f.closeHook.Load(); h != nil {
		(*h)()
	}
	close(f.quit)
	// No request or goroutine enters from here on. Closed first: an enter refused means
	// closed is true (a refused request's ErrClosed is never logged as a failure); one that
	// enters in between is waited for like any other.
	f.bg.shut()

	f.st.close()
	f.bgCancel()
	f.passSetWatchesBeforeClose()
	f.conn.Close() // sends closeSession and waits (at most ~1 s) for the answer
	f.sockets.closeAll()
	f.bg.wait()
	f.drainEvents()
	f.wm.Close()
	f.hub.close()
}

// Done returns a channel that is closed as soon as Close is called: for work of the caller's
// own that must end with the Framework, such as a pause between tries (operations already
// return ErrClosed once it is closed).
func (f *Framework) Done() <-chan struct{} { return f.quit }

// drainEvents waits (bounded) until go-zookeeper closes its event channel, which it does after
// all its goroutines have ended.
func (f *Framework) drainEvents() {
	timeout := time.After(closeWait)
	for {
		select {
		case _, ok := <-f.evCh:
			if !ok {
				return
			}
		case <-timeout:
			f.log.Warn("framework: go-zookeeper did not stop in time")
			return
		}
	}
}

// enter registers a goroutine unless the Framework is closed.
// Its exit is f.bg.exit().
func (f *Framework) enter() bool { return f.bg.enter() }

// goBackground runs fn on a goroutine stopped by Close (its ctx is cancelled then).
func (f *Framework) goBackground(fn func(ctx context.Context)) {
	if !f.enter() {
		return
	}
	go func() {
		defer f.bg.exit()
		fn(f.bgCtx)
	}()
}

// AddListener registers fn for connection-state changes. fn runs on one goroutine, in order; a slow
// fn delays other listeners but never the client. fn may call Close. No fn is called after Close.
// remove unregisters it. New has started connecting already: a listener that must see the first
// Connected is given to New instead (WithListener).
func (f *Framework) AddListener(fn func(ConnectionState)) (remove func()) { return f.hub.add(fn) }

// State returns the current connection state.
func (f *Framework) State() ConnectionState {
	s, _, _ := f.st.snapshot()
	return s
}

// SessionID returns go-zookeeper's current session id (0 while none).
func (f *Framework) SessionID() int64 { return f.conn.SessionID() }

// Session returns the current session epoch. Before the first connection it is a placeholder
// (ID 0) that ends when the first session starts.
func (f *Framework) Session() *Session {
	_, s, _ := f.st.snapshot()
	return s
}

// Watches returns the number of live go-zookeeper watches (set and not yet fired or invalidated);
// Watches that share one count once.
func (f *Framework) Watches() int { return f.wm.Live() }

// DefaultData returns the data used when Create is given nil data.
func (f *Framework) DefaultData() []byte { return append([]byte(nil), f.cfg.defaultData...) }

// Logger returns the Framework's logger.
func (f *Framework) Logger() *slog.Logger { return f.log }

// RequestsStarted returns how many requests this Framework has sent to ZooKeeper.
func (f *Framework) RequestsStarted() int64 { return f.requests.Load() }

// Namespace returns the namespace ("" for none).
func (f *Framework) Namespace() string { return f.cfg.namespace }

// passSetWatchesBeforeClose lets go-zookeeper re-send its watches before the closeSession request
// (which bypasses waitConnectedBounded) is queued behind them: see setwatches.go. Bounded by
// closeWait; only while connected, since a connection that is down re-sends nothing.
func (f *Framework) passSetWatchesBeforeClose() {
	if f.conn.State() != zk.StateHasSession {
		return
	}
	timer := time.NewTimer(closeWait)
	defer timer.Stop()
	_ = f.sockets.passSetWatches(context.Background(), timer.C)
}
