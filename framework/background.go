package framework

// DeleteInBackground deletes p on a background goroutine, as a guaranteed delete: it waits for a
// connection and retries, for as long as the Framework is open, until the node is gone (NoNode is
// success) or the server refuses permanently. It returns at once. Recipes use it to let go of a node
// without holding up a caller whose context has ended or whose session is in doubt.
func (f *Framework) DeleteInBackground(p string, opts ...DeleteOption) {
	dc := deleteConfig{version: -1}
	for _, o := range opts {
		o(&dc)
	}
	if err := ValidatePath(p); err != nil || f.closed.Load() {
		return
	}
	f.deleteInBackground(f.full(p), dc.version)
}
