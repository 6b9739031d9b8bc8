package recipes

import (
	"context"
	"path"
	"strconv"

	"github.com/zkrecipes/zkrecipes/framework"
)

// token is a lease's fencing token: the czxid of its lock node.
//
// It usually costs nothing. ZooKeeper names a sequential node after its
// parent's cversion at the create, and the create raises that cversion by
// one. If the listing sent right behind our create shows the parent at
// cversion seq+1, no other child was created or deleted in between, so the
// parent's pzxid (the zxid of its last child change) is our create's zxid:
// our czxid. Otherwise, or for a non-sequential node, the stat of our node is
// read in the background, in parallel with the wait.
type token struct {
	done  chan struct{}
	czxid int64
}

// tokenFor derives the token from parent, the stat of the listing taken
// right after creating p, or starts reading p's stat.
func tokenFor(fw *framework.Framework, p string, parent *framework.Stat) *token {
	t := &token{done: make(chan struct{})}
	if seq, ok := sequenceOf(path.Base(p)); ok && parent != nil && int64(parent.Cversion) == seq+1 {
		t.czxid = parent.Pzxid
		close(t.done)
		return t
	}
	go func() {
		defer close(t.done)
		ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
		defer cancel()
		if st, err := fw.Exists(ctx, p); err == nil && st != nil {
			t.czxid = st.Czxid
		}
	}()
	return t
}

// value waits for the token; 0 if our node's stat could not be read.
func (t *token) value() int64 {
	<-t.done
	return t.czxid
}

// sequenceOf parses the 10-digit sequence suffix ZooKeeper appends.
func sequenceOf(name string) (int64, bool) {
	const width = 10
	if len(name) < width {
		return 0, false
	}
	n, err := strconv.ParseInt(name[len(name)-width:], 10, 32)
	if err != nil || n < 0 {
		return 0, false // not a sequence, or a wrapped (negative) one
	}
	return n, true
}
