package watchmgr

import (
	"sync"

	"github.com/go-zookeeper/zk"
)

// eventQueue is an unbounded FIFO of events. push never blocks (beyond a short mutex) and never
// drops; the single consumer waits on signal. Safe for concurrent use.
type eventQueue struct {
	mu     sync.Mutex
	items  []zk.Event
	signal chan struct{} // capacity 1: "the queue may be non-empty"
}

func newEventQueue() *eventQueue {
	return &eventQueue{signal: make(chan struct{}, 1)}
}

// push appends ev and wakes the consumer.
func (q *eventQueue) push(ev zk.Event) {
	q.mu.Lock()
	q.items = append(q.items, ev)
	q.mu.Unlock()
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

// drain takes every queued event, oldest first.
func (q *eventQueue) drain() []zk.Event {
	q.mu.Lock()
	defer q.mu.Unlock()
	items := q.items
	q.items = nil
	return items
}
