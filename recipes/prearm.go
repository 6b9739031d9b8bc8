package recipes

import (
	"context"

	"github.com/zkrecipes/zkrecipes/framework"
)

// A wait whose end means that we hold (the driver's GoneHolds: the node ahead was first in our
// listing) ends in a grant only while our own node stands, which settle used to check with a
// getData after the wake: a round trip between the holder's delete and our grant, on the
// critical path of every such handoff (scenario d, and a sticky lock's handover s3). preArm
// sets that getData's watch before the wait instead, right before the watch on the node ahead,
// on the same session. ZooKeeper sends one connection its replies and watch events in the order
// of the changes, so when the node ahead's deletion comes (its event, or the NoNode reply of the
// watching read) on the connection that set our watch, and our watch is still quiet, our node
// stood when the node ahead went: the grant needs no request (framework.InOrder). Across a
// reconnect the server may report the changes made meanwhile in any order, so then, or when our
// watch has news (a delete, a data change), the wake reads as before. The watch is the one
// the held lease keeps on its node (ownwatch.go), so the acquisition sends as many requests as
// before, one of them earlier; the first waiter holds two watches (its own node and the node
// ahead), every other waiter one, and nobody watches a node that others change in a herd.

// preArm sets the data watch on our node before a wait that ends in a grant, unless the one set
// before is still quiet and in order. A node already gone is ErrOwnNodeMissing (queue again).
func (c *contender) preArm(ctx context.Context) error {
	if c.preArmed() != nil {
		return nil
	}
	w, err := c.stands(ctx)
	if err != nil {
		return err
	}
	c.ownW = w
	return nil
}

// preArmed returns the watch preArm set, when it proves that our node still stands at the last
// reply or event seen on the session: quiet and set on the current connection; else nil.
func (c *contender) preArmed() *framework.Watch {
	if w := c.ownW; w != nil && !w.HasNews() && c.lock.fw.InOrder(w) {
		return w
	}
	return nil
}
