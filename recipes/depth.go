package recipes

import (
	"context"
	"errors"
	"fmt"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/retry"
)

// ErrQueueTooDeep fails an acquire whose lock directory has grown so large that listing it
// approaches ZooKeeper's jute.maxbuffer (1 MiB by default): past it the server drops the reply
// and the client reconnects for ever. About 15,000 protected contenders of a mutex fill it.
var ErrQueueTooDeep = errors.New("recipes: lock queue too deep to list")

// Listing sizes, in bytes as ZooKeeper encodes them (a 4-byte length per name).
const (
	listingLimit = 1 << 20                 // ZooKeeper's default jute.maxbuffer
	listingFail  = listingLimit * 85 / 100 // refuse here, with room for the reply's other fields
	listingWarn  = listingLimit / 2        // warn once per lock from here
)

// checkDepth refuses a listing too close to the limit, and warns once when it is half-way.
func (l *Lock) checkDepth(children []string) error {
	size := 0
	for _, c := range children {
		size += len(c) + 4
	}
	switch {
	case size >= listingFail:
		return l.tooDeep(len(children), size)
	case size >= listingWarn && l.warnedDepth.CompareAndSwap(false, true):
		l.fw.Logger().Warn("recipes: lock queue is deep; listings near ZooKeeper's 1 MiB limit will fail",
			"lock", l.path, "contenders", len(children), "listing_bytes", size, "fails_at_bytes", listingFail)
	}
	return nil
}

func (l *Lock) tooDeep(n, size int) error {
	return fmt.Errorf("%w: %s has %d contenders, a %d KiB listing (refused from %d KiB: ZooKeeper's jute.maxbuffer is 1 MiB)",
		ErrQueueTooDeep, l.path, n, size>>10, listingFail>>10)
}

// probeDepth explains a listing that failed retryably: when the directory's child count times
// the length of our own name already exceeds the limit, the server drops the reply for its
// size, and retrying cannot help.
func (l *Lock) probeDepth(ctx context.Context, name string, err error) error {
	if framework.Classify(err) == retry.Permanent || ctx.Err() != nil {
		return err
	}
	st, serr := l.fw.Exists(ctx, l.path)
	if serr != nil || st == nil {
		return err
	}
	if size := int(st.NumChildren) * (len(name) + 4); size >= listingFail {
		return errors.Join(l.tooDeep(int(st.NumChildren), size), err)
	}
	return err
}
