package framework

import (
	"maps"
	"slices"
	"sync"
)

// listenerHub delivers connection states to listeners on one goroutine, in order, through an
// unbounded queue: a slow listener delays other listeners, never the client. Safe for concurrent use.
type listenerHub struct {
	mu      sync.Mutex
	fns     map[int]func(ConnectionState)
	next    int
	pending []ConnectionState
	signal  chan struct{}
	quit    chan struct{}
	done    chan struct{}
}

func newListenerHub() *listenerHub {
	h := &listenerHub{
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

func (h *listenerHub) post(s ConnectionState) {
	h.mu.Lock()
	h.pending = append(h.pending, s)
	h.mu.Unlock()
	select {
	case h.signal <- struct{}{}:
	default:
	}
}

// close stops the delivery goroutine after it finishes the listener it is running (if any).
func (h *listenerHub) close() {
	close(h.quit)
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
		for {
			s, fns, ok := h.take()
			if !ok {
				break
			}
			for _, fn := range fns {
				fn(s)
			}
		}
	}
}

// take pops the oldest pending state with a snapshot of the listeners.
func (h *listenerHub) take() (ConnectionState, []func(ConnectionState), bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.pending) == 0 {
		return 0, nil, false
	}
	s := h.pending[0]
	h.pending = h.pending[1:]
	fns := make([]func(ConnectionState), 0, len(h.fns))
	for _, id := range slices.Sorted(maps.Keys(h.fns)) {
		fns = append(fns, h.fns[id])
	}
	return s, fns, true
}
