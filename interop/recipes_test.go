package interop

import (
	"errors"
	"path"
	"strings"
	"testing"
	"time"
)

// Read/write lock, semaphore and multi-lock: Curator's node names as Go sees them.
func TestCuratorOtherRecipes(t *testing.T) {
	ctx := testCtx(t)
	a, b := startCurator(t), startCurator(t)
	conn := connectGo(t)
	p := uniquePath(t)

	rwPath := p + "/rw"
	r1, err := a.ReadAcquire(ctx, rwPath, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.ReadAcquire(ctx, rwPath, 10*time.Second); err != nil {
		t.Fatalf("second reader blocked: %v", err)
	}
	if !strings.Contains(path.Base(r1), "__READ__") {
		t.Fatalf("read node %q lacks __READ__", r1)
	}
	if _, err := b.WriteAcquire(ctx, rwPath, 300*time.Millisecond); !errors.Is(err, ErrTimeout) {
		t.Fatalf("writer acquired while another session reads: %v", err)
	}
	if err := a.ReadRelease(ctx, rwPath); err != nil {
		t.Fatal(err)
	}
	if err := b.ReadRelease(ctx, rwPath); err != nil {
		t.Fatal(err)
	}
	w, err := b.WriteAcquire(ctx, rwPath, 10*time.Second)
	if err != nil || !strings.Contains(path.Base(w), "__WRIT__") {
		t.Fatalf("write acquire = %q, %v", w, err)
	}
	if err := b.WriteRelease(ctx, rwPath); err != nil {
		t.Fatal(err)
	}

	semPath := p + "/sem"
	leases, err := a.SemaphoreAcquire(ctx, semPath, 2, 2, 10*time.Second)
	if err != nil || len(leases) != 2 {
		t.Fatalf("semaphore acquire = %v, %v", leases, err)
	}
	kids, _, err := conn.Children(semPath + "/leases")
	if err != nil || len(kids) != 2 {
		t.Fatalf("lease nodes = %v, %v; want 2", kids, err)
	}
	if _, err := b.SemaphoreAcquire(ctx, semPath, 2, 1, 300*time.Millisecond); !errors.Is(err, ErrTimeout) {
		t.Fatalf("third lease granted over max 2: %v", err)
	}
	if err := a.SemaphoreRelease(ctx, semPath); err != nil {
		t.Fatal(err)
	}

	paths := []string{p + "/m1", p + "/m2", p + "/m3"}
	if err := a.MultiAcquire(ctx, 10*time.Second, paths...); err != nil {
		t.Fatal(err)
	}
	for _, mp := range paths {
		if kids, _, err := conn.Children(mp); err != nil || len(kids) != 1 {
			t.Fatalf("children of %s = %v, %v; want 1", mp, kids, err)
		}
	}
	if _, err := b.Acquire(ctx, paths[1], 300*time.Millisecond); !errors.Is(err, ErrTimeout) {
		t.Fatalf("mutex acquired inside a held multi-lock: %v", err)
	}
	if err := a.MultiRelease(ctx); err != nil {
		t.Fatal(err)
	}
}
