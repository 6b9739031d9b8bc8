package chaos

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/zkrecipes/zkrecipes/framework"
)

// Fence is a resource outside ZooKeeper that checks fencing tokens: it
// accepts a write whose token is at least the highest it has accepted for
// that lock, and refuses lower ones. It accepts an equal token on purpose:
// the checker, not the resource, must notice that two holds shared a token.
// Safe for concurrent use.
type Fence struct {
	h        *History
	mu       sync.Mutex
	accepted map[string][]fenced // per lock, in acceptance order
	rejected int
}

// NewFence returns an empty fence that records its writes in h.
func NewFence(h *History) *Fence {
	return &Fence{h: h, accepted: make(map[string][]fenced)}
}

// Write offers a write under res with token and reports whether it was accepted.
func (f *Fence) Write(proc string, op int64, res string, token int64) bool {
	f.mu.Lock()
	acc := f.accepted[res]
	ok := token > 0 && (len(acc) == 0 || token >= acc[len(acc)-1].token)
	if ok {
		f.accepted[res] = append(acc, fenced{token: token, op: op})
	} else {
		f.rejected++
	}
	f.mu.Unlock()
	f.h.Add(Event{Proc: proc, Kind: Write, Res: "ext:" + res, Op: op, Token: token, OK: ok})
	return ok
}

// fenced is one accepted write: its token and the acquisition that made it.
type fenced struct {
	token int64
	op    int64
}

// snapshot returns the accepted writes per lock, in acceptance order, and
// the number of refused writes.
func (f *Fence) snapshot() (map[string][]fenced, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[string][]fenced, len(f.accepted))
	for k, v := range f.accepted {
		out[k] = append([]fenced(nil), v...)
	}
	return out, f.rejected
}

// zkEntry is one write kept in a znode register: the writer's token and a
// unique element naming the write.
type zkEntry struct {
	token int64
	elem  string
}

// zkWrite appends (token, elem) to the set kept in the znode dataPath, as a
// read-modify-write whose Multi is guarded only by guard (version -1: the
// guard is the only thing that keeps a stale holder out). It returns nil when
// the transaction committed.
func zkWrite(ctx context.Context, fw *framework.Framework, guard framework.Op, dataPath string, token int64, elem string) error {
	data, _, err := fw.Get(ctx, dataPath)
	if err != nil {
		return err
	}
	line := strconv.FormatInt(token, 10) + " " + elem + "\n"
	next := append(append([]byte(nil), data...), line...)
	_, err = fw.Multi(ctx, guard, framework.SetOp(dataPath, next, -1))
	return err
}

// parseZK reads a znode register's entries.
func parseZK(data []byte) ([]zkEntry, error) {
	var out []zkEntry
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if line == "" {
			continue
		}
		tok, elem, ok := strings.Cut(line, " ")
		n, err := strconv.ParseInt(tok, 10, 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("chaos: bad register line %q", line)
		}
		out = append(out, zkEntry{token: n, elem: elem})
	}
	return out, nil
}

// errIndeterminate marks a fenced write whose outcome is unknown.
var errIndeterminate = errors.New("chaos: write outcome unknown")
