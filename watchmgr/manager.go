package watchmgr

import (
	"log/slog"
	"maps"
	"slices"
	"sync"

	"github.com/go-zookeeper/zk"
)

// Manager is the only receiver of go-zookeeper events: its Callback interrupts waiters and
// enqueues, and one dispatcher goroutine delivers session events to subscribers in order. It also tracks one-shot
// watches. Safe for concurrent use.
type Manager struct {
	log   *slog.Logger
	queue *eventQueue
	quit  chan struct{}
	done  chan struct{}
	once  sync.Once

	mu     sync.Mutex
	subs   map[int]func(zk.Event)
	nextID int
	intr   chan struct{} // closed at the next disconnect/expiry, then replaced
	closed bool

	watches sync.WaitGroup        // Events forwarders still running
	tracked watchList             // go-zookeeper watches that may still be live; pruned as they fire (tracked.go)
	paths   map[string]*pathBooks // each path's latest watches and registrations in progress (books.go)
	npend   int                   // registrations in progress
	gen     uint64                // session generation: incremented at each expiry
	pruneAt int                   // prune tracked when it reaches this size
	hooks   hookList              // OnFire and OnEvent registrations not yet run (onfire.go)
}

// New starts a Manager and its dispatcher goroutine. A nil logger discards. Call Close to stop it.
func New(logger *slog.Logger) *Manager {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	m := &Manager{
		log:   logger,
		queue: newEventQueue(),
		quit:  make(chan struct{}),
		done:  make(chan struct{}),
		subs:  make(map[int]func(zk.Event)),
		intr:  make(chan struct{}),

		paths:   make(map[string]*pathBooks),
		pruneAt: minPrune,
	}
	go m.dispatch()
	return m
}

// Callback returns the function to pass to zk.WithEventCallback (or to call from one). On a
// disconnect or expiry it interrupts every waiter at once (a mutex and a channel close); it copies
// each session event into an unbounded queue for the subscribers. It never blocks, never drops an
// event and never calls the connection. Watch events are ignored here: each reaches its waiter
// through the watch's own channel, so that a notification wakes only that waiter and not the
// dispatcher as well.
func (m *Manager) Callback() zk.EventCallback {
	return func(ev zk.Event) {
		if ev.Type != zk.EventSession {
			return
		}
		if ev.State == zk.StateDisconnected || ev.State == zk.StateExpired {
			m.interrupt(ev.State == zk.StateExpired)
		}
		m.queue.push(ev)
	}
}

// Subscribe registers fn for session events (Type == zk.EventSession). fn runs on the dispatcher
// goroutine, in event order, after the Callback has interrupted the waiters; it must not block for
// long (other subscribers wait behind it) and must not call Subscribe's cancel of another subscriber synchronously in a way
// that waits. The returned cancel removes fn; it is idempotent.
func (m *Manager) Subscribe(fn func(zk.Event)) (cancel func()) {
	m.mu.Lock()
	id := m.nextID
	m.nextID++
	m.subs[id] = fn
	m.mu.Unlock()
	return func() {
		m.mu.Lock()
		delete(m.subs, id)
		m.mu.Unlock()
	}
}

// Close stops the dispatcher, wakes every waiter (watches still unfired report a NotWatching event
// with zk.ErrClosing) and waits for the Manager's goroutines to end. Events queued but not yet
// dispatched are discarded. Idempotent.
func (m *Manager) Close() {
	m.once.Do(func() {
		close(m.quit)
		<-m.done
		m.mu.Lock()
		m.closed = true
		close(m.intr)
		m.tracked.Clear()
		clear(m.paths)
		fns := m.takeAllHooks()
		m.mu.Unlock()
		for _, fn := range fns {
			fn(zk.Event{})
		}
		m.watches.Wait()
	})
}

// dispatch is the single dispatcher goroutine.
func (m *Manager) dispatch() {
	defer close(m.done)
	for {
		select {
		case <-m.quit:
			return
		case <-m.queue.signal:
		}
		for _, ev := range m.queue.drain() {
			m.handle(ev)
		}
	}
}

// handle processes one event on the dispatcher goroutine.
func (m *Manager) handle(ev zk.Event) {
	m.log.Debug("zk session event", "state", ev.State.String(), "server", ev.Server)
	for _, fn := range m.subscribers() {
		fn(ev)
	}
}

// interrupt wakes every watch set before now, and runs every OnFire callback (OnEvent's wait
// for their watch, but after an expiry, which invalidates it); after an expiry, no watch set
// before is shared.
func (m *Manager) interrupt(expired bool) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	if expired {
		m.gen++
	}
	close(m.intr)
	m.intr = make(chan struct{})
	fns, invalidated := m.takeInterruptHooks(expired)
	m.mu.Unlock()
	for _, fn := range fns {
		fn(zk.Event{})
	}
	for _, fn := range invalidated {
		fn(zk.Event{Type: zk.EventNotWatching, State: zk.StateExpired, Err: zk.ErrSessionExpired})
	}
}

// subscribers returns a snapshot of the subscribers in registration order.
func (m *Manager) subscribers() []func(zk.Event) {
	m.mu.Lock()
	defer m.mu.Unlock()
	fns := make([]func(zk.Event), 0, len(m.subs))
	for _, id := range slices.Sorted(maps.Keys(m.subs)) {
		fns = append(fns, m.subs[id])
	}
	return fns
}
