package watchmgr

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/go-zookeeper/zk"
	"github.com/zkrecipes/zkrecipes/internal/ilist"
)

// ErrSessionInterrupted is returned by Watch.Wait when the session was disconnected or expired
// after the watch was set (or the watch was invalidated): the waiter should re-evaluate.
var ErrSessionInterrupted = errors.New("watchmgr: session interrupted")

// Kind says which go-zookeeper call set a watch.
type Kind int

// Watch kinds.
const (
	Data     Kind = iota // GetW: fires on data change or delete
	Exists               // ExistsW: fires on create, data change or delete
	Children             // ChildrenW: fires on children change or delete
)

// String names the kind.
func (k Kind) String() string {
	switch k {
	case Data:
		return "data"
	case Exists:
		return "exists"
	case Children:
		return "children"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Watch is one waiter's handle on a one-shot go-zookeeper watch, which several Watches may share
// (see Reserve). Safe for concurrent use; several goroutines may Wait, and all of them see the same
// event.
type Watch struct {
	s    *zkWatch
	intr <-chan struct{} // closes at the first disconnect/expiry after this Watch was made
	evs  sync.Once
	out  chan zk.Event // Events' channel, made on its first call

	hook     Hook // the first OnFire or OnEvent registration (onfire.go)
	hookUsed bool // hook was handed out (the Manager's mu guards it)
}

// zkWatch is one go-zookeeper watch: its one-shot channel and the event once read from it. No
// goroutine reads the channel on its own: a waiter holding the turn does (see Wait).
type zkWatch struct {
	kind Kind
	path string
	gen  uint64 // the Manager's session generation when it was set
	// origin is the connection that set it (TrackOn; origin.go), or nil. Set before the watch
	// is published, read-only after.
	origin any
	quit   <-chan struct{}
	m      *Manager

	raw     <-chan zk.Event // go-zookeeper's one-shot channel; nil if untracked
	once    sync.Once       // fire runs once, whoever reads raw
	ev      zk.Event        // written by fire before isFired
	isFired atomic.Bool
	fwd     sync.Once // starts the Events forwarder

	links ilist.Links[zkWatch] // in the Manager's tracked list (tracked.go; its mu guards them)
	e     *pathBooks           // its path's books while it is their latest of its kind (the Manager's mu guards it)

	notified bool       // NodeEvent saw its event (the Manager's mu guards it)
	hooks    watchHooks // its OnFire and OnEvent registrations (the Manager's mu guards them)

	mu sync.Mutex
	// turn holds a token while one goroutine reads raw; the others wait on done, which fire
	// closes. Both are made by the second goroutine that waits, or by a forwarder (chans):
	// the first waiter holds the turn by reading instead (takeTurn), and a waiter called back
	// by OnFire or OnEvent finds the event there, so most watches never need them (issue 27).
	turn    chan struct{}
	done    chan struct{}
	reading bool               // a waiter holds the turn without the channels (takeTurn)
	outs    []chan zk.Event    // Events channels to feed when the watch fires
	fired   context.Context    // Fired's context, made on its first call; nil until then
	stop    context.CancelFunc // ends fired
}

// minPrune is the smallest size of the tracked set at which Track prunes it.
const minPrune = 64

// Track wraps the one-shot channel returned by go-zookeeper's GetW, ExistsW or ChildrenW. The watch
// counts in Live until go-zookeeper fires or invalidates it (or the Manager closes), whether or not
// anyone waits on it, and later Reserve calls for the same kind and path share it. A nil ch yields a
// watch that never fires but is interrupted normally and is not counted.
//
// No goroutine is started: a waiter reads go-zookeeper's channel itself, so the wake-up that hands
// over a lock costs no extra goroutine switch. go-zookeeper sends the event into that channel (it
// has room for one) before closing it, so a watch nobody waits on is seen to have fired by the
// event sitting there, and Live stops counting it.
func (m *Manager) Track(kind Kind, path string, ch <-chan zk.Event) *Watch {
	m.mu.Lock()
	intr := m.intr
	m.mu.Unlock()
	return m.track(kind, path, ch, intr, nil)
}

// track is Track with the interruption channel taken by the caller earlier.
func (m *Manager) track(kind Kind, path string, ch <-chan zk.Event, intr <-chan struct{}, origin any) *Watch {
	return m.trackInto(new(Watch), new(zkWatch), kind, path, ch, intr, origin, nil)
}

// trackInto is track into w and s, zero values the caller allocated (a Registration carries
// them: one allocation for both and the reservation). A non-nil r is the reservation this
// watch ends, under the same lock (see Registration.release); its wake channel is closed by
// the caller.
func (m *Manager) trackInto(w *Watch, s *zkWatch, kind Kind, path string, ch <-chan zk.Event, intr <-chan struct{}, origin any, r *Registration) *Watch {
	s.kind, s.path, s.quit, s.m, s.raw, s.origin = kind, path, m.quit, m, ch, origin
	m.mu.Lock()
	s.gen = m.gen
	closed := m.closed
	if !closed && ch != nil {
		m.lookAtOldest()
		if m.tracked.Len() >= m.pruneAt {
			m.prune()
			m.pruneAt = max(minPrune, 2*m.tracked.Len())
		}
		m.tracked.PushBack(s)
		if k := kind.slot(); k >= 0 {
			e := r.booksOrNil()
			if e == nil { // Track without a reservation, or after Close began
				e = m.books(path, nil)
			}
			e.live[k], s.e = s, e
			if e.early[k] { // its event came before this Track
				e.early[k], s.notified = false, true
			}
		}
	}
	if r != nil {
		r.unpend()
	}
	m.mu.Unlock()
	if closed {
		s.fire(closingEvent(path))
	}
	w.s, w.intr = s, intr
	return w
}

// closingEvent is what a watch reports when the Manager or the connection closes.
func closingEvent(path string) zk.Event {
	return zk.Event{Type: zk.EventNotWatching, State: zk.StateDisconnected, Path: path, Err: zk.ErrClosing}
}

// ended reports whether go-zookeeper has fired or invalidated the watch: its event was taken, or
// is waiting in the channel.
func (s *zkWatch) ended() bool { return s.isFired.Load() || len(s.raw) > 0 }

// fire records ev and publishes it, once: to Wait through done, to Events through each channel.
func (s *zkWatch) fire(ev zk.Event) {
	s.once.Do(func() {
		s.ev = ev
		s.mu.Lock()
		s.isFired.Store(true)
		done, outs, stop := s.done, s.outs, s.stop
		s.outs = nil
		s.mu.Unlock()
		if done != nil { // made before: close it (chans makes a later one closed)
			close(done)
		}
		if stop != nil {
			stop()
		}
		for _, out := range outs {
			out <- ev
			close(out)
		}
	})
}

// Live returns the number of go-zookeeper watches registered and not yet fired or invalidated
// (Watches sharing one count once).
func (m *Manager) Live() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.prune()
	return m.tracked.Len()
}

// Resending reports whether go-zookeeper may have watches to re-send on its next connection:
// a watch counts in Live, or a registration is in progress (Reserve handed it out; its
// watching read may already have set the watch, which Track has not counted yet).
func (m *Manager) Resending() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.prune()
	return m.tracked.Len() > 0 || m.npend > 0
}

// Kind returns how the watch was set.
func (w *Watch) Kind() Kind { return w.s.kind }

// Path returns the watched path as given to Track or Reserve.
func (w *Watch) Path() string { return w.s.path }

// Events returns a one-shot channel that receives the watch's event and is then closed, for select
// loops. Each Watch has its own channel; one goroutine per go-zookeeper watch (not per Watch)
// reads go-zookeeper's channel for them, started on the first call and ended when the watch fires
// or the Manager closes. It outlives session interruptions.
func (w *Watch) Events() <-chan zk.Event {
	w.evs.Do(func() {
		w.out = make(chan zk.Event, 1)
		s := w.s
		s.mu.Lock()
		fired := s.isFired.Load()
		if !fired {
			s.outs = append(s.outs, w.out)
		}
		s.mu.Unlock()
		if fired {
			w.out <- s.ev
			close(w.out)
			return
		}
		s.fwd.Do(s.startForward)
	})
	return w.out
}

// Fired returns a context that is cancelled when the watch fires, is invalidated or the Manager
// closes (when Events would deliver), for context.AfterFunc and selects. Every Watch sharing
// one go-zookeeper watch gets the same context, and its first call starts the one goroutine
// per go-zookeeper watch that Events uses: however many Watches share it, no goroutine waits
// for each. A session interruption does not end it.
func (w *Watch) Fired() context.Context {
	s := w.s
	s.mu.Lock()
	if s.fired == nil {
		s.fired, s.stop = context.WithCancel(context.Background())
		if s.isFired.Load() {
			s.stop()
		}
	}
	ctx := s.fired
	s.mu.Unlock()
	s.fwd.Do(s.startForward)
	return ctx
}

// startForward starts the goroutine that reads go-zookeeper's channel for Events.
func (s *zkWatch) startForward() {
	if s.raw == nil {
		return
	}
	s.m.mu.Lock()
	closed := s.m.closed
	if !closed {
		s.m.watches.Add(1)
	}
	s.m.mu.Unlock()
	if closed {
		s.closing()
		return
	}
	go s.forward()
}

// forward reads go-zookeeper's channel until the watch fires or the Manager closes.
func (s *zkWatch) forward() {
	defer s.m.watches.Done()
	turn, done := s.chans()
	select {
	case turn <- struct{}{}:
		defer func() { <-turn }()
	case <-done:
		return
	case <-s.quit:
		s.closing()
		return
	}
	select {
	case ev, ok := <-s.raw:
		s.fireRaw(ev, ok)
	case <-done:
	case <-s.quit:
		s.closing()
	}
}

// chans returns the watch's turn and done channels, making them at the first call (done
// closed already if the watch has fired, the turn taken if a waiter holds it by takeTurn).
func (s *zkWatch) chans() (turn, done chan struct{}) {
	s.mu.Lock()
	if s.done == nil {
		s.turn, s.done = make(chan struct{}, 1), make(chan struct{})
		if s.isFired.Load() {
			close(s.done)
		}
		if s.reading {
			s.turn <- struct{}{} // its holder gives it back through the channel (giveTurn)
		}
	}
	turn, done = s.turn, s.done
	s.mu.Unlock()
	return turn, done
}

// takeTurn takes the turn to read raw without the turn channel, when nobody has asked for the
// channels yet: a watch's first waiter, nearly always its only one, then makes no channel and
// selects on none of them (issue 27). A waiter that comes meanwhile makes the channels with the
// turn taken (chans).
func (s *zkWatch) takeTurn() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.turn != nil || s.reading {
		return false
	}
	s.reading = true
	return true
}

// giveTurn gives back the turn takeTurn took: through the turn channel if a waiter made it since.
func (s *zkWatch) giveTurn() {
	s.mu.Lock()
	s.reading = false
	turn := s.turn
	s.mu.Unlock()
	if turn != nil {
		<-turn
	}
}

// Interrupted returns a channel that closes at the first disconnect or expiry go-zookeeper reports
// after this Watch was made (and when the Manager closes). go-zookeeper keeps watches across a
// disconnect, so an interruption does not end the watch; it tells a waiter to re-evaluate.
func (w *Watch) Interrupted() <-chan struct{} { return w.intr }

// Wait blocks until the watch fires (returns its event), ctx ends (ctx.Err()), or the session is
// interrupted after the Watch was made (ErrSessionInterrupted). An invalidation by go-zookeeper
// (session expiry or close: an EventNotWatching) or the Manager's Close returns the event and
// ErrSessionInterrupted wrapping the event's error. A fired event wins over a simultaneous
// interruption.
func (w *Watch) Wait(ctx context.Context) (zk.Event, error) {
	s := w.s
	if s.isFired.Load() {
		return s.result()
	}
	if s.takeTurn() { // the first waiter, nearly always the only one: no channel made
		defer s.giveTurn()
		select {
		case ev, ok := <-s.raw: // the news is here already (a waiter called back by OnFire)
			return s.fireRaw(ev, ok)
		default:
		}
		return w.readRaw(ctx, nil) // who fires besides the turn's holder ends quit too
	}
	turn, done := s.chans()
	select {
	case turn <- struct{}{}: // we read go-zookeeper's channel until we return
		defer func() { <-turn }()
		return w.readRaw(ctx, done)
	case <-done:
		return s.result()
	case <-ctx.Done():
		return zk.Event{}, ctx.Err()
	case <-s.quit:
		return s.closing()
	case <-w.intr:
		return s.interrupted()
	}
}

// readRaw is Wait for the one goroutine holding the turn on go-zookeeper's channel. Whoever reads
// the event fires the watch before giving the turn back, so a closed channel seen here was closed
// without an event: the connection closed.
func (w *Watch) readRaw(ctx context.Context, done <-chan struct{}) (zk.Event, error) {
	s := w.s
	select {
	case ev, ok := <-s.raw:
		return s.fireRaw(ev, ok)
	case <-done:
		return s.result()
	case <-ctx.Done():
		return zk.Event{}, ctx.Err()
	case <-s.quit:
		return s.closing()
	case <-w.intr:
		select {
		case ev, ok := <-s.raw:
			return s.fireRaw(ev, ok)
		default:
		}
		return s.interrupted()
	}
}

// fireRaw fires with what a receive from go-zookeeper's channel gave.
func (s *zkWatch) fireRaw(ev zk.Event, ok bool) (zk.Event, error) {
	if !ok {
		ev = closingEvent(s.path)
	}
	s.fire(ev)
	return s.result()
}

// closing fires the watch as closed by the Manager (unless it fired already).
func (s *zkWatch) closing() (zk.Event, error) {
	s.fire(closingEvent(s.path))
	return s.result()
}

// interrupted reports a session interruption, unless the watch has fired or its event is waiting
// in go-zookeeper's channel (an event wins).
func (s *zkWatch) interrupted() (zk.Event, error) {
	turn, _ := s.chans()
	select {
	case turn <- struct{}{}: // free: look for an event nobody has read yet
		select {
		case ev, ok := <-s.raw:
			ev, err := s.fireRaw(ev, ok)
			<-turn
			return ev, err
		default:
		}
		<-turn
	default: // a goroutine (perhaps the caller, in readRaw) reads raw and fires when the event comes
	}
	if s.isFired.Load() {
		return s.result()
	}
	return zk.Event{}, ErrSessionInterrupted
}

// result returns a fired watch's event as Wait's return values.
func (s *zkWatch) result() (zk.Event, error) {
	ev := s.ev
	if ev.Type == zk.EventNotWatching {
		return ev, fmt.Errorf("%w: %w", ErrSessionInterrupted, ev.Err)
	}
	return ev, nil
}
