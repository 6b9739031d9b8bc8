package recipes

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/zkrecipes/zkrecipes/driver"
	"github.com/zkrecipes/zkrecipes/framework"
)

// SharedCount is Curator's SharedCount: a count stored in one node in its encoding (a 4-byte
// big-endian signed integer), the maximum that NewSharedSemaphore reads. Java processes'
// SharedCount on the same path interoperate.
//
// Used without Start it holds no state: Get, Set and TrySet read and write the node. With a seed
// (WithSeed) a missing node is created holding the seed, by Start or by Get. Start also keeps
// the count and its version (Count, VersionedValue) up to date through one data watch and calls
// the listeners (AddListener) on every change it sees, until Close. It is safe for concurrent
// use.
type SharedCount struct {
	fw      *framework.Framework
	path    string
	seed    int32
	seeded  bool
	mu      sync.Mutex
	cur     countState // the last count seen (seed, version -1, before Start)
	run     *countWatch
	closed  bool
	lis     map[int]func(int32)
	nextLis int
}

// VersionedValue is a count with the version of the node that held it, as Curator's
// VersionedValue: TrySetCount sets a new count only if the node is still at that version.
// Version -1 means never read (the seed).
type VersionedValue struct {
	Version int32
	Value   int32
}

// countState is a VersionedValue and the node's creation (a deleted and recreated node starts
// again at version 0).
type countState struct {
	VersionedValue
	czxid int64
}

// newer reports whether s, read from the node, is a later state than the one seen, c: a node
// created later (zxids only grow), or a later version of the same node. A late read of a node
// since deleted and recreated is not newer.
func (s countState) newer(c countState) bool {
	return s.czxid > c.czxid || (s.czxid == c.czxid && s.Version > c.Version)
}

// SharedCountOption configures a SharedCount.
type SharedCountOption func(*SharedCount)

// WithSeed sets the count that Start and Get create the node with when it is missing (Curator's
// seedValue). Without it a missing node is an error wrapping framework.ErrNoNode.
func WithSeed(v int32) SharedCountOption {
	return func(c *SharedCount) { c.seed, c.seeded = v, true }
}

// NewSharedCount returns the count at path. It does no I/O.
func NewSharedCount(fw *framework.Framework, path string, opts ...SharedCountOption) (*SharedCount, error) {
	if fw == nil {
		return nil, fmt.Errorf("%w: nil framework", ErrInvalidArgument)
	}
	if err := validateLockPath(path); err != nil {
		return nil, err
	}
	c := &SharedCount{fw: fw, path: path}
	for _, o := range opts {
		if o == nil {
			return nil, fmt.Errorf("%w: nil option", ErrInvalidArgument)
		}
		o(c)
	}
	c.cur = countState{VersionedValue: VersionedValue{Version: -1, Value: c.seed}}
	return c, nil
}

// Path returns the count's node.
func (c *SharedCount) Path() string { return c.path }

// Get reads the count and its node's version (for TrySet) from ZooKeeper. A missing node is
// created holding the seed (WithSeed), else it is an error wrapping framework.ErrNoNode; data
// that is not a count, driver.ErrBadCount.
func (c *SharedCount) Get(ctx context.Context) (value int32, version int32, err error) {
	if err := checkContext(ctx); err != nil {
		return 0, 0, err
	}
	s, err := c.read(ctx)
	if err != nil {
		return 0, 0, err
	}
	c.saw(s)
	return s.Value, s.Version, nil
}

// read reads the node, creating it with the seed when it is missing and a seed was given.
func (c *SharedCount) read(ctx context.Context) (countState, error) {
	data, st, err := c.fw.Get(ctx, c.path)
	if errors.Is(err, framework.ErrNoNode) && c.seeded {
		if err = c.create(ctx, c.seed); err == nil || errors.Is(err, framework.ErrNodeExists) {
			data, st, err = c.fw.Get(ctx, c.path)
		}
	}
	if err != nil {
		return countState{}, fmt.Errorf("recipes: shared count %s: %w", c.path, err)
	}
	return decodeCountState(c.path, data, st)
}

// decodeCountState decodes the node's data read with st.
func decodeCountState(p string, data []byte, st *framework.Stat) (countState, error) {
	n, err := driver.DecodeCount(data)
	if err != nil {
		return countState{}, fmt.Errorf("recipes: shared count %s: %w", p, err)
	}
	return countState{VersionedValue: VersionedValue{Version: st.Version, Value: int32(n)}, czxid: st.Czxid}, nil
}

// create creates the node (persistent; missing parents as containers) holding v.
func (c *SharedCount) create(ctx context.Context, v int32) error {
	_, err := c.fw.Create(ctx, c.path, driver.EncodeCount(v), framework.CreatingParents())
	return err
}

// Set writes the count (Curator's setCount), creating the node (persistent; missing parents as
// containers) when it is missing.
func (c *SharedCount) Set(ctx context.Context, value int32) error {
	if err := checkContext(ctx); err != nil {
		return err
	}
	data := driver.EncodeCount(value)
	st, err := c.fw.Set(ctx, c.path, data, -1)
	if errors.Is(err, framework.ErrNoNode) {
		err = c.create(ctx, value)
		if errors.Is(err, framework.ErrNodeExists) {
			st, err = c.fw.Set(ctx, c.path, data, -1)
		}
	}
	if err != nil {
		return fmt.Errorf("recipes: set shared count %s: %w", c.path, err)
	}
	if st != nil {
		c.saw(countState{VersionedValue: VersionedValue{Version: st.Version, Value: value}, czxid: st.Czxid})
	}
	return nil
}

// TrySet writes the count only if the node is still at version (from Get), as Curator's
// trySetCount; it reports false when someone changed it meanwhile.
func (c *SharedCount) TrySet(ctx context.Context, value int32, version int32) (bool, error) {
	if err := checkContext(ctx); err != nil {
		return false, err
	}
	if version < 0 {
		return false, fmt.Errorf("%w: version %d", ErrInvalidArgument, version)
	}
	st, err := c.fw.Set(ctx, c.path, driver.EncodeCount(value), version)
	switch {
	case err == nil:
		c.saw(countState{VersionedValue: VersionedValue{Version: st.Version, Value: value}, czxid: st.Czxid})
		return true, nil
	case errors.Is(err, framework.ErrBadVersion):
		return false, nil
	}
	return false, fmt.Errorf("recipes: set shared count %s: %w", c.path, err)
}

// TrySetCount is Curator's trySetCount(previous, newCount): it writes newCount only if the node
// is still at previous.Version (from VersionedValue or Get), and reports false when someone
// changed it meanwhile. A previous that was never read (version -1) is ErrInvalidArgument.
func (c *SharedCount) TrySetCount(ctx context.Context, previous VersionedValue, newCount int32) (bool, error) {
	return c.TrySet(ctx, newCount, previous.Version)
}
