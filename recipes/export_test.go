package recipes

// SetDowngradeHook makes every Downgrade call fn between its checks of the write lease and
// the read node's create. remove undoes it.
func SetDowngradeHook(fn func()) (remove func()) {
	downgradeHook.Store(&fn)
	return func() { downgradeHook.Store(nil) }
}
