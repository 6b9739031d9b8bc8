package recipes_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// Issue 25.3: a persistent node with a valid lease name in a semaphore's leases directory took a
// slot for ever (Acquire waited to its deadline, TryAcquire said busy): it is a foreign node, and
// an acquire that would wait behind it fails at once naming it, leaving nothing of its own behind.
// An ephemeral lease of another client is a contender as before: TryAcquire says busy.
func TestSemaphorePersistentLeaseIsAForeignNode(t *testing.T) {
	const guid = "0f1e9d0c-8c5e-4b8e-9d39-6a4c2b1f7e21"
	zk := shared
	fw := zktest.Connect(t, zk)
	for _, tt := range []struct {
		name, node string
		mode       framework.Mode
		foreign    bool
	}{
		{"plain lease name", "lease-0000000007", framework.Persistent, true},
		{"protected lease name", "_c_" + guid + "-lease-0000000007", framework.Persistent, true},
		{"ephemeral lease of another client", "lease-0000000007", framework.Ephemeral, false},
	} {
		for _, try := range []bool{false, true} {
			if !tt.foreign && !try {
				continue // an Acquire behind a live lease waits: the semaphore tests cover it
			}
			t.Run(tt.name+map[bool]string{false: "/Acquire", true: "/TryAcquire"}[try], func(t *testing.T) {
				p := lockPath(t)
				squat := p + "/leases/" + tt.node
				if _, err := fw.Create(ctxFor(t, 10*time.Second), squat, nil, framework.WithMode(tt.mode), framework.CreatingParents()); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { fw.Delete(context.Background(), squat) })
				s, err := recipes.NewSemaphore(fw, p, 1)
				if err != nil {
					t.Fatal(err)
				}
				acquire := s.Acquire
				if try {
					acquire = s.TryAcquire
				}
				start := time.Now()
				leases, err := acquire(ctxFor(t, 10*time.Second), 1)
				if err == nil {
					s.ReturnAll(ctxFor(t, 10*time.Second), leases)
					t.Fatal("a lease granted beside a lease that takes the only slot")
				}
				var fe *recipes.ForeignNodeError
				switch {
				case !tt.foreign && (!errors.Is(err, recipes.ErrLocked) || errors.Is(err, recipes.ErrForeignNode)):
					t.Fatalf("TryAcquire: %v, want ErrLocked", err)
				case tt.foreign && (!errors.Is(err, recipes.ErrForeignNode) || !errors.As(err, &fe) || fe.Path != squat):
					t.Fatalf("after %v: %v, want ErrForeignNode naming %s", time.Since(start), err, squat)
				}
				zktest.Eventually(t, 10*time.Second, "only the other lease left", func() bool {
					kids := zktest.Children(t, fw, p+"/leases")
					return len(kids) == 1 && kids[0] == tt.node && len(zktest.Children(t, fw, p+"/locks")) == 0
				})
			})
		}
	}
}
