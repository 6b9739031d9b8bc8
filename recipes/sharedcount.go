package recipes

import (
	"context"
	"errors"
	"fmt"

	"github.com/zkrecipes/zkrecipes/driver"
	"github.com/zkrecipes/zkrecipes/framework"
)

// SharedCount is a count stored in one node in Curator's SharedCount encoding (a 4-byte
// big-endian signed integer), the maximum that NewSharedSemaphore reads: set and read it
// without hand-encoding bytes. Java processes' SharedCount on the same path interoperate. It
// holds no state and is safe for concurrent use.
type SharedCount struct {
	fw   *framework.Framework
	path string
}

// NewSharedCount returns the count at path. It does no I/O.
func NewSharedCount(fw *framework.Framework, path string) (*SharedCount, error) {
	if fw == nil {
		return nil, fmt.Errorf("%w: nil framework", ErrInvalidArgument)
	}
	if err := validateLockPath(path); err != nil {
		return nil, err
	}
	return &SharedCount{fw: fw, path: path}, nil
}

// Path returns the count's node.
func (c *SharedCount) Path() string { return c.path }

// Get returns the count and its node's version (for TrySet). A missing node is an error
// wrapping framework.ErrNoNode; data that is not a count, driver.ErrBadCount.
func (c *SharedCount) Get(ctx context.Context) (value int32, version int32, err error) {
	if err := checkContext(ctx); err != nil {
		return 0, 0, err
	}
	data, st, err := c.fw.Get(ctx, c.path)
	if err != nil {
		return 0, 0, fmt.Errorf("recipes: shared count %s: %w", c.path, err)
	}
	n, err := driver.DecodeCount(data)
	if err != nil {
		return 0, 0, fmt.Errorf("recipes: shared count %s: %w", c.path, err)
	}
	return int32(n), st.Version, nil
}

// Set writes the count, creating the node (persistent; missing parents as containers) when it
// is missing.
func (c *SharedCount) Set(ctx context.Context, value int32) error {
	if err := checkContext(ctx); err != nil {
		return err
	}
	data := driver.EncodeCount(value)
	_, err := c.fw.Set(ctx, c.path, data, -1)
	if errors.Is(err, framework.ErrNoNode) {
		_, err = c.fw.Create(ctx, c.path, data, framework.CreatingParents())
		if errors.Is(err, framework.ErrNodeExists) {
			_, err = c.fw.Set(ctx, c.path, data, -1)
		}
	}
	if err != nil {
		return fmt.Errorf("recipes: set shared count %s: %w", c.path, err)
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
	_, err := c.fw.Set(ctx, c.path, driver.EncodeCount(value), version)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, framework.ErrBadVersion):
		return false, nil
	}
	return false, fmt.Errorf("recipes: set shared count %s: %w", c.path, err)
}
