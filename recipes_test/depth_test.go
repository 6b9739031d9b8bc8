package recipes_test

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// fill adds n children with names of about 1 KB under dir, from index from on.
func fill(t *testing.T, fw *framework.Framework, dir string, from, n int) {
	t.Helper()
	pad := strings.Repeat("x", 1000)
	for i := from; i < from+n; i += 50 {
		var ops []framework.Op
		for j := i; j < min(i+50, from+n); j++ {
			ops = append(ops, framework.CreateOp(fmt.Sprintf("%s/%s%05d", dir, pad, j), nil, framework.Persistent))
		}
		if _, err := fw.Multi(ctxFor(t, 20*time.Second), ops...); err != nil {
			t.Fatalf("fill: %v", err)
		}
	}
}

// The library says clearly, before ZooKeeper's 1 MiB limit, that a queue is too deep: a
// warning from half-way, then a typed refusal that leaves no node behind, where a listing
// past the limit would be dropped by the server and retried for ever.
func TestQueueTooDeepIsRefusedBeforeTheLimit(t *testing.T) {
	zk := shared
	p := lockPath(t)
	var logs zktest.LogBuffer
	fw := zktest.Connect(t, zk, framework.WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))))
	if _, err := fw.Create(ctxFor(t, 5*time.Second), p, nil, framework.CreatingParents()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deleteTree(t, fw, p) })
	m := mustMutex(t, fw, p)

	fill(t, fw, p, 0, 600) // a ~600 KiB listing: past the warning, short of the refusal
	l := mustAcquire(t, m, 20*time.Second)
	mustRelease(t, l)
	if !strings.Contains(logs.String(), "lock queue is deep") {
		t.Fatalf("no warning at a 600 KiB listing; logs:\n%s", logs.String())
	}

	fill(t, fw, p, 600, 300) // ~900 KiB
	if _, err := m.Acquire(ctxFor(t, 20*time.Second)); !errors.Is(err, recipes.ErrQueueTooDeep) {
		t.Fatalf("Acquire at a 900 KiB listing: %v, want ErrQueueTooDeep", err)
	}
	kids := zktest.Children(t, fw, p)
	for _, k := range kids {
		if strings.Contains(k, "-lock-") {
			t.Fatalf("the refused acquire left its node %s", k)
		}
	}
	// go-zookeeper reads the 900 KiB listing: a Go-only deployment may raise the limit.
	big, err := recipes.NewMutex(fw, p, recipes.WithListingLimit(2<<20))
	if err != nil {
		t.Fatal(err)
	}
	mustRelease(t, mustAcquire(t, big, 20*time.Second))
}

// deleteTree deletes dir's children and dir.
func deleteTree(t *testing.T, fw *framework.Framework, dir string) {
	for _, k := range zktest.Children(t, fw, dir) {
		fw.Delete(ctxFor(t, 10*time.Second), dir+"/"+k)
	}
	fw.Delete(ctxFor(t, 10*time.Second), dir)
}
