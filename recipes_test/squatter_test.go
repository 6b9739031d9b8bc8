package recipes_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// lockSquatters are the foreign nodes a mutex's directory may hold: persistent nodes (one
// with a lock's name, one with a valid protected name, one with a junk name that sorts first)
// and an ephemeral one whose sequence carries no lock name.
var lockSquatters = []struct {
	name, node string
	mode       framework.Mode
}{
	{"long sequence", "lock-00000000000000000000", framework.Persistent},
	{"bang", "!", framework.Persistent},
	{"valid protected name", "_c_0f1e9d0c-8c5e-4b8e-9d39-6a4c2b1f7e21-lock-0000000000", framework.Persistent},
	{"no lock name, a sequence", "zzz0000000000", framework.Ephemeral},
}

// Issue 25.3: a persistent node that sorts first in a lock directory is no contender: Acquire and
// TryAcquire fail at once with ErrForeignNode naming it, instead of waiting to the deadline or
// saying "by another contender"; the acquirer leaves no node behind. A name that is no lock's
// but ends in 10 digits (zzz0000000000) is a foreign node too, not ErrMixedRecipes.
func TestSquatterIsAForeignNode(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	for _, tt := range lockSquatters {
		for _, try := range []bool{false, true} {
			t.Run(tt.name+map[bool]string{false: "/Acquire", true: "/TryAcquire"}[try], func(t *testing.T) {
				p := lockPath(t)
				squat := p + "/" + tt.node
				if _, err := fw.Create(ctxFor(t, 10*time.Second), squat, nil, framework.WithMode(tt.mode), framework.CreatingParents()); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { fw.Delete(context.Background(), squat) })
				m, _ := recipes.NewMutex(fw, p)
				acquire := m.Acquire
				if try {
					acquire = m.TryAcquire
				}
				start := time.Now()
				l, err := acquire(ctxFor(t, 20*time.Second))
				if err == nil {
					l.Release(ctxFor(t, 10*time.Second))
					t.Fatal("acquired beside a squatter")
				}
				var fe *recipes.ForeignNodeError
				if !errors.Is(err, recipes.ErrForeignNode) || !errors.As(err, &fe) || fe.Path != squat {
					t.Fatalf("after %v: %v, want ErrForeignNode naming %s", time.Since(start), err, squat)
				}
				zktest.Eventually(t, 10*time.Second, "only the squatter left", func() bool {
					kids := zktest.Children(t, fw, p)
					return len(kids) == 1 && kids[0] == tt.node
				})
			})
		}
	}
}

// Issue 25.3: a persistent junk child in a semaphore's leases directory took a slot for ever;
// it is a foreign node: the acquire fails at once and names it.
func TestSemaphoreJunkLeaseIsAForeignNode(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	p := lockPath(t)
	junk := p + "/leases/junk"
	if _, err := fw.Create(ctxFor(t, 10*time.Second), junk, nil, framework.CreatingParents()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fw.Delete(context.Background(), junk) })
	s, err := recipes.NewSemaphore(fw, p, 2)
	if err != nil {
		t.Fatal(err)
	}
	leases, err := s.Acquire(ctxFor(t, 20*time.Second), 1)
	if err == nil {
		for _, l := range leases {
			l.Release(ctxFor(t, 10*time.Second))
		}
		t.Fatal("a lease granted beside a junk node, which takes a slot")
	}
	var fe *recipes.ForeignNodeError
	if !errors.As(err, &fe) || fe.Path != junk || !strings.Contains(err.Error(), "junk") {
		t.Fatalf("Acquire: %v, want ErrForeignNode naming %s", err, junk)
	}
}
