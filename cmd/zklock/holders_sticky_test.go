package main

import (
	"context"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// Issue 28: zklock holders shows the idle node of a sticky lock as the holder: to ZooKeeper,
// and to every other contender, it is one until it goes. Whether it is idle is known only to
// its own process (saying so would cost a write per release).
func TestHoldersShowsStickyIdleNode(t *testing.T) {
	fw := zktest.Connect(t, shared)
	p := lockPath(t)
	m, err := recipes.NewMutex(fw, p, recipes.WithSticky(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	l, err := m.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	idle := l.Path()
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
	defer m.Close(context.Background())
	r := holdersJSON(t, shared.ConnectString(), p)
	if len(r.Holders) != 1 || r.Holders[0].Node != idle || r.Kind != "mutex" {
		t.Fatalf("holders: %+v, want the idle node %s as the mutex's holder", r, idle)
	}
}
