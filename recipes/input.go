package recipes

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/zkrecipes/zkrecipes/framework"
)

// inputWatch keeps one data watch on a driver's input node for a lock object and hands its
// current data to every contender of that object: however many acquire, the input costs one
// read and one watch per change, not one per acquire (Curator's SharedCount). It starts no
// goroutine: the watch's Fired context ends when the input changes. A nil *inputWatch is a
// driver without input.
type inputWatch struct {
	fw   *framework.Framework
	path string

	mu      sync.Mutex
	data    []byte
	changed context.Context // ends when the watch fires; nil while no valid read is held
}

// current returns the input's data and a context that ends when it changes, reading (and
// watching) the node only when no valid read is held. A nil receiver returns nils.
func (iw *inputWatch) current(ctx context.Context) ([]byte, context.Context, error) {
	if iw == nil {
		return nil, nil, nil
	}
	iw.mu.Lock()
	defer iw.mu.Unlock()
	if iw.changed != nil && iw.changed.Err() == nil {
		return iw.data, iw.changed, nil
	}
	data, _, w, err := iw.fw.GetW(ctx, iw.path)
	if errors.Is(err, framework.ErrNoNode) {
		return nil, nil, fmt.Errorf("%w: input node %s does not exist", ErrInvalidArgument, iw.path)
	}
	if err != nil {
		return nil, nil, err
	}
	// The watch's own context: no goroutine of ours waits for it, and every lock object on
	// this input node shares the framework's one watch, and so its one forwarding goroutine.
	changed := w.Fired()
	iw.data, iw.changed = data, changed
	return data, changed, nil
}
