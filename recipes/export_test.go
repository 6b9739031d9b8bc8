package recipes

// SetDowngradeHook makes every Downgrade call fn between its checks of the write lease and
// the read node's create. remove undoes it.
func SetDowngradeHook(fn func()) (remove func()) {
	downgradeHook.Store(&fn)
	return func() { downgradeHook.Store(nil) }
}

// SetListHook makes the acquire loop's listings (not CreateAndList's) go through fn, which
// may rewrite them. remove undoes it.
func SetListHook(fn func(l *Lock, children []string) []string) (remove func()) {
	listHook.Store(&fn)
	return func() { listHook.Store(nil) }
}
