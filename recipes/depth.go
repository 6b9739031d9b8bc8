package recipes

import (
	"context"
	"errors"
	"fmt"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/retry"
)

// ErrQueueTooDeep fails an acquire whose lock directory has grown so large that listing it
// approaches the 1 MiB jute.maxbuffer of Java clients: a Curator process contending on the same
// path would then lose its connection on every listing, for ever. About 15,000 protected
// contenders of a mutex fill the default limit (WithListingLimit).
var ErrQueueTooDeep = errors.New("recipes: lock queue too deep to list")

// DefaultListingLimit is 85 % of ZooKeeper's default jute.maxbuffer (1 MiB), with room for the
// reply's other fields: the listing size, in bytes as ZooKeeper encodes them (a 4-byte length per
// name), from which an acquire is refused.
const DefaultListingLimit = (1 << 20) * 85 / 100

// listingLimit is the lock's limit (WithListingLimit, else the default).
func (l *Lock) listingLimit() int {
	if l.opts.listing > 0 {
		return l.opts.listing
	}
	return DefaultListingLimit
}

// checkDepth refuses a listing at the limit, and warns once when it is half-way.
func (l *Lock) checkDepth(children []string) error {
	size := 0
	for _, c := range children {
		size += len(c) + 4
	}
	limit := l.listingLimit()
	switch {
	case size >= limit:
		return l.tooDeep(len(children), size)
	case size >= limit/2 && l.warnedDepth.CompareAndSwap(false, true):
		l.fw.Logger().Warn("recipes: lock queue is deep; acquires will be refused at the listing limit",
			"lock", l.path, "contenders", len(children), "listing_bytes", size, "fails_at_bytes", limit)
	}
	return nil
}

func (l *Lock) tooDeep(n, size int) error {
	return fmt.Errorf("%w: %s has %d contenders, a %d KiB listing (refused from %d KiB; see WithListingLimit)",
		ErrQueueTooDeep, l.path, n, size>>10, l.listingLimit()>>10)
}

// probeDepth explains a listing that failed retryably: when the directory's child count times
// the length of our own name already exceeds the limit, a client or server with a smaller
// jute.maxbuffer may be dropping the reply for its size, and retrying cannot help.
func (l *Lock) probeDepth(ctx context.Context, name string, err error) error {
	if framework.Classify(err) == retry.Permanent || ctx.Err() != nil {
		return err
	}
	st, serr := l.fw.Exists(ctx, l.path)
	if serr != nil || st == nil {
		return err
	}
	if size := int(st.NumChildren) * (len(name) + 4); size >= l.listingLimit() {
		return errors.Join(l.tooDeep(int(st.NumChildren), size), err)
	}
	return err
}
