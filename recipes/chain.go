package recipes

import (
	"context"

	"github.com/zkrecipes/zkrecipes/framework"
)

// The chain of bursts (issue 27). Under a context that can end, a contender's bursts follow each
// other on the framework's warm goroutines: a burst that ends on a watch parks the contender on
// it (no goroutine waits: the watch's news, or the driver's change, calls fire, which hands the
// wake-up and the next burst to a warm goroutine), and only the grant or a failure is handed to
// the caller. The caller is readied once per attempt, as zk.Lock's waiter is, instead of once per
// burst and once per wake-up; it still waits under its ctx alone and leaves at once (burst.go).
// fire runs on go-zookeeper's receive or connect loop: it never blocks and never calls the
// connection.

// offloaded runs the chain from the burst burst set (a warm goroutine's, Framework.Go).
func (c *contender) offloaded() { c.chain(c.ph) }

// woken runs the chain from a wake-up of the wait fire took (a warm goroutine's). The event
// the watch's news came with names the next burst: nobody reads the watch's channel (a read
// there could wait for go-zookeeper to send the event, a second hand-off); a session's
// interruption or the driver's change (a zero event) lists again, as next does.
func (c *contender) woken() {
	t, ev := c.wakeT, c.wakeEv
	c.wakeT = turn{}
	c.chain(phase{sess: t.sess, byWatch: t.goneHolds && ev.Type == framework.EventNodeDeleted})
}

// chain runs the burst p and the ones after it until the grant, a failure, or a wait on a watch
// that has no news yet (parked: the news goes on with the chain).
func (c *contender) chain(p phase) {
	for {
		t := c.run(c.ictx, p)
		if t.err != nil || t.held || t.w == nil {
			c.handOver(t)
			return
		}
		if c.park(t) {
			return
		}
		var err error
		if p, err = c.wake(t); err != nil { // news already, or the caller left
			c.handOver(turn{err: err})
			return
		}
	}
}

// wake waits for the news of the wait t (there is some: the watch's event is in its channel or
// about to be, the session was interrupted, or the driver's input changed) and names the burst
// that follows, like next. The attempt's ctx ending ends it.
func (c *contender) wake(t turn) (phase, error) {
	ev, err := waitWatch(c.ictx, t.w, t.changed)
	if err = ignoreInterrupt(err); err != nil {
		return phase{}, err
	}
	return phase{sess: t.sess, byWatch: t.goneHolds && ev.Type == framework.EventNodeDeleted}, nil
}

// park registers fire on the wait t's watch and driver change, and reports whether it did (the
// chain's goroutine then returns); false when the watch has news already or the caller left.
func (c *contender) park(t turn) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.left {
		return false
	}
	if c.fire1 == nil { // once per attempt that waits: an uncontended one binds none
		c.fire1, c.woken1 = c.fire, c.woken
	}
	stop, now := t.w.OnFire(c.fire1)
	if now {
		return false
	}
	c.parked, c.stopW, c.running = t, stop, false
	if t.changed != nil {
		c.stopC = context.AfterFunc(t.changed, func() { c.fire(framework.Event{}) })
	}
	return true
}

// fire takes the parked wait, once, and hands its wake-up, with the event ev it came with, to a
// warm goroutine. It runs on
// go-zookeeper's loops (the watch's news), on the driver change's AfterFunc goroutine, or on the
// Manager's closing goroutine.
func (c *contender) fire(ev framework.Event) {
	c.mu.Lock()
	t := c.parked
	if c.running || c.left || t.w == nil {
		c.mu.Unlock()
		return
	}
	stopW, stopC := c.stopW, c.stopC
	c.parked, c.stopW, c.stopC, c.running = turn{}, nil, nil, true
	c.wakeT, c.wakeEv = t, ev
	c.mu.Unlock()
	c.disarm(stopW, stopC)
	c.lock.fw.Go(c.woken1)
}

// disarm removes the wake-ups of a wait that no longer needs them.
func (c *contender) disarm(stopW *framework.WatchHook, stopC func() bool) {
	stopW.Stop()
	if stopC != nil {
		stopC()
	}
}

// handOver gives the turn t to the caller; after the caller left, it deletes the node the
// attempt made instead (nobody else knows it). On a grant handed over, it sets the held lease's
// own-node watch when no own-node check did (ownarm.go).
func (c *contender) handOver(t turn) {
	c.mu.Lock()
	left := c.left
	if !left {
		c.result = t
		c.done <- struct{}{}
	}
	c.running = false
	c.mu.Unlock()
	switch {
	case left && c.path != "":
		c.lock.fw.DeleteInBackground(c.path)
	case !left && t.arm != nil:
		t.arm.run(c.lock.fw, c.path)
	}
}
