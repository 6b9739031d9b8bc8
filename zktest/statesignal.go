package zktest

import (
	"testing"

	"github.com/zkrecipes/zkrecipes/framework"
)

// StateSignal returns a channel that receives a signal when fw's connection enters state (as
// framework.Reconnected after a blip, framework.Lost after an expiry). It holds one signal: the
// listener never blocks, and entries not yet received merge into one. The listener is removed
// when the test ends. Call it before causing the change, so that the change cannot be missed.
func StateSignal(tb testing.TB, fw *framework.Framework, state framework.ConnectionState) <-chan struct{} {
	tb.Helper()
	ch := make(chan struct{}, 1)
	remove := fw.AddListener(func(s framework.ConnectionState) {
		if s == state {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	})
	tb.Cleanup(remove)
	return ch
}
