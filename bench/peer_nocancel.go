package main

import (
	"context"

	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
	"github.com/zkrecipes/zkrecipes/recipes"
)

// zkrecipesNoCancelName is the diagnostic variant's name in the tables.
const zkrecipesNoCancelName = "zkrecipes no-cancel"

// zkrecipesNoCancelPeer is this library with every mutex acquired and released under
// context.Background() instead of the harness's cancellable context (issue 27): a context that
// cannot end lets the acquire loop run its requests on the caller's goroutine, with no goroutine
// beside them, the way zk.Lock's Lock() does. It measures what cancellation costs, so it runs only
// when named in -peers (never in the default plan), and only the timed lock scenarios.
func zkrecipesNoCancelPeer() harness.Peer {
	return zkrecipesVariant(zkrecipesNoCancelName, func(s *zkrSession) harness.Session {
		return noCancelSession{s}
	})
}

// noCancelSession is a zkrecipes session whose mutexes ignore the harness's context.
type noCancelSession struct{ *zkrSession }

func (s noCancelSession) Mutex(path string) (harness.Locker, error) {
	m, err := recipes.NewMutex(s.fw, path, s.lockOpts...)
	if err != nil {
		return nil, err
	}
	return &leaseLocker{acquire: func(context.Context) (recipes.Held, error) {
		return m.Hold(context.Background())
	}, background: true}, nil
}
