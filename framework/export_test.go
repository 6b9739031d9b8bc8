package framework

import (
	"time"

	"github.com/go-zookeeper/zk"
)

// SetProtectedIDs makes f's protected creates take their GUIDs from next, so that a test can put a
// node with the same prefix in the way.
func SetProtectedIDs(f *Framework, next func() string) { f.protectedID = next }

// SlowDispatcher makes watchmgr's dispatcher goroutine spend d on every Disconnected event, so that
// anything still driven by it lags behind go-zookeeper. remove undoes it.
func SlowDispatcher(f *Framework, d time.Duration) (remove func()) {
	return f.wm.Subscribe(func(ev zk.Event) {
		if ev.State == zk.StateDisconnected {
			time.Sleep(d)
		}
	})
}
