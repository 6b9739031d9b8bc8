package recipes

import (
	"context"
	"path"
	"strconv"
	"sync"

	"github.com/zkrecipes/zkrecipes/framework"
)

// token is a lease's fencing token: the czxid of its lock node.
//
// It usually costs nothing. ZooKeeper names a sequential node after its
// parent's cversion at the create, and the create raises that cversion by
// one. If the listing sent right behind our create shows the parent at
// cversion seq+1, no other child was created or deleted in between, so the
// parent's pzxid (the zxid of its last child change) is our create's zxid:
// our czxid. Otherwise (a busy lock, or a non-sequential node) the first call
// of value reads our node's stat once: holders that never ask for the token
// never pay that request.
type token struct {
	fw    *framework.Framework
	path  string
	once  sync.Once
	czxid int64
}

// tokenFor derives the token from parent, the stat of the listing taken
// right after creating p, or prepares to read p's stat on demand.
func tokenFor(fw *framework.Framework, p string, parent *framework.Stat) *token {
	t := &token{fw: fw, path: p}
	if seq, ok := sequenceOf(path.Base(p)); ok && parent != nil && int64(parent.Cversion) == seq+1 {
		t.czxid = parent.Pzxid
		t.once.Do(func() {})
	}
	return t
}

// value returns the token, reading our node's stat the first time if the
// listing did not give it away; 0 if the node could not be read (it is gone,
// or the framework is closed), which no resource should accept.
func (t *token) value() int64 {
	t.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
		defer cancel()
		if st, err := t.fw.Exists(ctx, t.path); err == nil && st != nil {
			t.czxid = st.Czxid
		}
	})
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
