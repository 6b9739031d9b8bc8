package recipes

import (
	"context"
	"fmt"
	"path"
	"strconv"
	"sync"

	"github.com/zkrecipes/zkrecipes/framework"
)

// token is a lease's fencing token: the czxid of its lock node.
//
// It usually costs nothing. ZooKeeper names a sequential node after its parent's cversion at
// the create, and the create raises that cversion by one. If the listing sent right behind
// our create shows the parent at cversion seq+1, no other child was created or deleted in
// between, so the parent's pzxid (the zxid of its last child change) is our create's zxid:
// our czxid. Otherwise (a busy lock, or a non-sequential node) the first call of value reads
// our node's stat once: holders that never ask for the token never pay that request.
type token struct {
	fw   *framework.Framework
	path string

	mu    sync.Mutex
	czxid int64 // 0 until known; a failed read is not cached
}

// tokenFor derives the token from parent, the stat of the listing taken right after
// creating p, when p is sequential, or prepares to read p's stat on demand.
func tokenFor(fw *framework.Framework, p string, sequential bool, parent *framework.Stat) *token {
	t := &token{fw: fw, path: p}
	if seq, ok := sequenceOf(path.Base(p)); ok && sequential && parent != nil && int64(parent.Cversion) == seq+1 {
		t.czxid = parent.Pzxid
	}
	return t
}

// value returns the token, reading our node's stat under ctx if the listing did not give it
// away. Only a successful read is kept.
func (t *token) value(ctx context.Context) (int64, error) {
	if err := checkContext(ctx); err != nil {
		return 0, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.czxid != 0 {
		return t.czxid, nil
	}
	st, err := t.fw.Exists(ctx, t.path)
	if err != nil {
		return 0, fmt.Errorf("recipes: token of %s: %w", t.path, err)
	}
	if st == nil {
		return 0, fmt.Errorf("recipes: token of %s: %w", t.path, framework.ErrNoNode)
	}
	t.czxid = st.Czxid
	return t.czxid, nil
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
