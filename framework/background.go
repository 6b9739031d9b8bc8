package framework

// DeleteInBackground deletes p on a background goroutine, as a guaranteed delete: it waits for a
// connection and retries, for as long as the Framework is open, until the node is gone (NoNode is
// success) or the server refuses permanently. It returns at once. Recipes use it to let go of a node
// without holding up a caller whose context has ended or whose session is in doubt.
//
// The channel it returns closes when that delete has ended (done, the node gone, refused, or the
// Framework closed; closed at once if none was started): a caller who must know the node is gone
// before it goes on waits for it, bounded by its ctx, instead of sending a second delete.
func (f *Framework) DeleteInBackground(p string, opts ...DeleteOption) <-chan struct{} {
	dc := deleteConfig{version: -1}
	for _, o := range opts {
		o(&dc)
	}
	if err := ValidatePath(p); err != nil || f.closed.Load() {
		return closedChan
	}
	return f.deleteInBackground(f.full(p), dc.version)
}
