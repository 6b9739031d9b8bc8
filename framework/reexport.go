package framework

import (
	"github.com/go-zookeeper/zk"
	"github.com/zkrecipes/zkrecipes/retry"
	"github.com/zkrecipes/zkrecipes/watchmgr"
)

// Watch is a tracked one-shot watch (see watchmgr.Watch), re-exported for recipes.
type Watch = watchmgr.Watch

// WatchHook is a Watch's OnFire or OnEvent registration (see watchmgr.Hook), re-exported for
// recipes.
type WatchHook = watchmgr.Hook

// ErrSessionInterrupted is returned by Watch.Wait when the session was disconnected or expired
// after the watch was set: re-evaluate.
var ErrSessionInterrupted = watchmgr.ErrSessionInterrupted

// Watch event types, re-exported so recipes need not import go-zookeeper.
const (
	EventNodeCreated         = zk.EventNodeCreated
	EventNodeDeleted         = zk.EventNodeDeleted
	EventNodeDataChanged     = zk.EventNodeDataChanged
	EventNodeChildrenChanged = zk.EventNodeChildrenChanged
	EventNotWatching         = zk.EventNotWatching
)

// RetryPolicy returns the Framework's retry policy, for recipes that run their own retry loop
// around several operations.
func (f *Framework) RetryPolicy() retry.Policy { return f.cfg.retry }
