package framework

import (
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
)

// listenerHub delivers connection states to listeners on one goroutine, in order, through an
// unbounded queue: a slow listener delays other listeners, never the client. Safe for concurrent use.
type listenerHub struct {
	log     *slog.Logger
	mu      sync.Mutex
	fns     map[int]func(ConnectionState)
	next    int
	pending []posting
	signal  chan struct{}
	quit    chan struct{}
	done    chan struct{}
	calling atomic.Bool // a listener is running on the delivery goroutine
}

// posting is one state change with the session it is about, for the log.
type posting struct {
	state   ConnectionState
	session int64
}

func newListenerHub(log *slog.Logger) *listenerHub {
	h := &listenerHub{
		log:    log,
		fns:    make(map[int]func(ConnectionState)),
		signal: make(chan struct{}, 1),
		quit:   make(chan struct{}),
		done:   make(chan struct{}),
	}
	go h.run()
	return h
}

func (h *listenerHub) add(fn func(ConnectionState)) (remove func()) {
	h.mu.Lock()
	id := h.next
	h.next++
	h.fns[id] = fn
	h.mu.Unlock()
	return func() {
		h.mu.Lock()
		delete(h.fns, id)
		h.mu.Unlock()
	}
}

// post queues s; it never blocks beyond a short mutex.
func (h *listenerHub) post(s ConnectionState, session int64) {
	h.mu.Lock()
	h.pending = append(h.pending, posting{s, session})
	h.mu.Unlock()
	select {
	case h.signal <- struct{}{}:
	default:
	}
}

// close stops the delivery goroutine: no listener is called afterwards. It waits for the goroutine
// to end unless a listener is running, which may be the caller itself (Close from a listener): then
// the goroutine ends as soon as that listener returns.
func (h *listenerHub) close() {
	close(h.quit)
	if h.calling.Load() {
		return
	}
	<-h.done
}

func (h *listenerHub) run() {
	defer close(h.done)
	for {
		select {
		case <-h.quit:
			return
		case <-h.signal:
		}
		if !h.deliverPending() {
			return
		}
	}
}

// deliverPending delivers the queued states; false when the hub was closed meanwhile.
func (h *listenerHub) deliverPending() bool {
	for {
		p, fns, ok := h.take()
		if !ok {
			return true
		}
		h.log.Info("framework: connection state", "state", p.state.String(), "session", fmt.Sprintf("0x%x", p.session))
		for _, fn := range fns {
			if !h.call(fn, p.state) {
				return false
			}
		}
	}
}

// call runs one listener unless the hub is closed.
func (h *listenerHub) call(fn func(ConnectionState), s ConnectionState) bool {
	h.calling.Store(true)
	defer h.calling.Store(false)
	select {
	case <-h.quit: // checked after calling is set: close either sees calling or we see quit
		return false
	default:
	}
	fn(s)
	return true
}

// take pops the oldest pending state with a snapshot of the listeners.
func (h *listenerHub) take() (posting, []func(ConnectionState), bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.pending) == 0 {
		return posting{}, nil, false
	}
	s := h.pending[0]
	h.pending = h.pending[1:]
	fns := make([]func(ConnectionState), 0, len(h.fns))
	for _, id := range slices.Sorted(maps.Keys(h.fns)) {
		fns = append(fns, h.fns[id])
	}
	return s, fns, true
}
