package leader

import "sync"

// Listener is told when a latch gains or loses leadership (Curator's LeaderLatchListener).
// Either field may be nil. Calls happen only when leadership flips, in order, one at a time,
// on a goroutine of the latch's own, never while the latch holds a lock of its own and never
// from go-zookeeper's callback: a listener may call any method of the latch, Close included.
// By the time a call runs, leadership may have flipped back; the opposite call follows.
type Listener struct {
	IsLeader  func()
	NotLeader func()
}

// notifier runs posted calls in order on a goroutine that exists only while calls are
// pending, so a latch keeps no goroutine for its listeners when nothing happens.
type notifier struct {
	mu        sync.Mutex
	queue     []func()
	running   bool
	silenced  bool
	listeners map[*Listener]struct{}
}

// add registers l; remove unregisters it (calls already running finish).
func (n *notifier) add(l Listener) (remove func()) {
	p := &l
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.listeners == nil {
		n.listeners = make(map[*Listener]struct{})
	}
	n.listeners[p] = struct{}{}
	return func() {
		n.mu.Lock()
		defer n.mu.Unlock()
		delete(n.listeners, p)
	}
}

// post queues a leadership flip for every listener registered when it runs.
func (n *notifier) post(leader bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.silenced {
		return
	}
	n.queue = append(n.queue, func() { n.call(leader) })
	if !n.running {
		n.running = true
		go n.drain()
	}
}

// silence drops pending calls and refuses new ones (CloseSilent).
func (n *notifier) silence() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.silenced = true
	n.queue = nil
}

// drain runs queued calls until none is left.
func (n *notifier) drain() {
	for {
		n.mu.Lock()
		if len(n.queue) == 0 {
			n.running = false
			n.mu.Unlock()
			return
		}
		fn := n.queue[0]
		n.queue = n.queue[1:]
		n.mu.Unlock()
		fn()
	}
}

// call tells each listener, without holding n.mu.
func (n *notifier) call(leader bool) {
	n.mu.Lock()
	if n.silenced {
		n.mu.Unlock()
		return
	}
	ls := make([]Listener, 0, len(n.listeners))
	for l := range n.listeners {
		ls = append(ls, *l)
	}
	n.mu.Unlock()
	for _, l := range ls {
		if fn := l.IsLeader; leader && fn != nil {
			fn()
		} else if fn := l.NotLeader; !leader && fn != nil {
			fn()
		}
	}
}
