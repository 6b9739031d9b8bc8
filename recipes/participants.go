package recipes

import (
	"context"
	"errors"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/zkrecipes/zkrecipes/driver"
	"github.com/zkrecipes/zkrecipes/framework"
)

// Participant is one contender node of a lock: its full path
// (namespace-relative) and the data it was created with.
type Participant struct {
	Path string
	Data []byte
}

// participants lists dir's children in the driver's order (holder first for
// a mutex), keeps those whose name contains kind (all when kind is empty),
// and reads their data in parallel. Nodes that vanish between the listing
// and the read are left out.
func participants(ctx context.Context, fw *framework.Framework, dir string, drv driver.Driver, kind string) ([]Participant, error) {
	children, _, err := fw.Children(ctx, dir)
	if errors.Is(err, framework.ErrNoNode) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	sorted := slices.DeleteFunc(driver.Sort(drv, children), func(name string) bool {
		return !strings.Contains(name, kind)
	})
	out := make([]Participant, len(sorted))
	errs := make([]error, len(sorted))
	var wg sync.WaitGroup
	for i, name := range sorted {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := path.Join(dir, name)
			data, _, err := fw.Get(ctx, p)
			out[i], errs[i] = Participant{Path: p, Data: data}, err
		}()
	}
	wg.Wait()
	kept := out[:0]
	for i, p := range out {
		switch {
		case errs[i] == nil:
			kept = append(kept, p)
		case errors.Is(errs[i], framework.ErrNoNode):
		default:
			return nil, errs[i]
		}
	}
	return kept, nil
}
