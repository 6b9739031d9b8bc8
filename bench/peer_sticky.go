package main

import (
	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
	"github.com/zkrecipes/zkrecipes/recipes"
)

// zkrecipesStickyName is the sticky configuration's name in the tables.
const zkrecipesStickyName = "zkrecipes sticky"

// zkrecipesStickyPeer is this library with every mutex and read/write lock sticky
// (recipes.WithSticky with the default idle time). It runs the s scenarios only.
func zkrecipesStickyPeer() harness.Peer {
	return zkrecipesVariant(zkrecipesStickyName, func(s *zkrSession) harness.Session {
		s.lockOpts = []recipes.LockOption{recipes.WithSticky(0)}
		return s
	})
}
