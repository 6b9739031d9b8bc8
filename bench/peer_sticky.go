package main

import (
	"context"

	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
	"github.com/zkrecipes/zkrecipes/recipes"
)

// zkrecipesStickyName is the sticky configuration's name in the tables.
const zkrecipesStickyName = "zkrecipes sticky"

// zkrecipesStickyPeer is this library with every mutex and read/write lock sticky
// (recipes.WithSticky with the default idle time). It runs the s scenarios only.
func zkrecipesStickyPeer() harness.Peer {
	return harness.GoPeer{PeerName: zkrecipesStickyName, Connect: func(ctx context.Context, servers string) (harness.Session, error) {
		s, err := connectZkrecipes(ctx, servers)
		if err != nil {
			return nil, err
		}
		s.(*zkrSession).lockOpts = []recipes.LockOption{recipes.WithSticky(0)}
		return s, nil
	}}
}
