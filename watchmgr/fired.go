package watchmgr

// HasFired reports, without blocking and without starting a goroutine, whether the watch has
// fired or its event is already waiting in go-zookeeper's channel (an invalidation included):
// a sticky lock's local re-grant (recipes.WithSticky) refuses as soon as its directory watch
// has news, even before anyone has read the event.
func (w *Watch) HasFired() bool { return w.s.ended() }
