package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/driver"
	"github.com/zkrecipes/zkrecipes/leader"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// A custom lock (here two holders at once) shows its recorded kind, and zklock, not knowing its
// predicate, claims neither "holds" nor "waits" for its nodes: their role is "unknown".
func TestHoldersCustomLockRoleUnknown(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	p := lockPath(t)
	l, err := recipes.NewLock(fw, p, driver.Standard("job-", 2))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		lease, err := l.Acquire(ctxFor(t, 10*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { lease.Release(context.Background()) })
	}
	r := holdersJSON(t, zk.ConnectString(), p)
	want := recipes.CustomKind("job-")
	if r.Kind != want || len(r.Holders)+len(r.Queue) != 0 || len(r.Unknown) != 2 ||
		r.Unknown[0].Kind != want || r.Unknown[1].Kind != want {
		t.Fatalf("report %+v; want both nodes of kind %q with an unknown role", r, want)
	}
	out, errOut, code := runZklock(t, "--servers", zk.ConnectString(), "holders", p)
	if code != 0 {
		t.Fatalf("holders: exit %d\n%s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[2], "unknown") || !strings.HasPrefix(lines[3], "unknown") ||
		strings.Contains(out, "waits") || !strings.Contains(out, want) {
		t.Fatalf("holders:\n%s", out)
	}
}

// A latch's leader holds, the other latches wait, all of kind "leader latch"; a selector's
// nodes are "leader selector" (its data, without an id, is our identity, which records it).
func TestHoldersLatchAndSelector(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	p := lockPath(t)
	first, err := leader.NewLatch(fw, p, leader.WithID("first"))
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { first.Close(context.Background()) })
	term, err := first.Await(ctxFor(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"second", "third"} {
		l, err := leader.NewLatch(fw, p, leader.WithID(id))
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close(context.Background()) })
	}
	zktest.Eventually(t, 10*time.Second, "three latch nodes", func() bool { return len(zktest.Children(t, fw, p)) == 3 })
	r := holdersJSON(t, zk.ConnectString(), p)
	if r.Kind != recipes.KindLatch || len(r.Holders) != 1 || r.Holders[0].Node != term.Path() || len(r.Queue) != 2 ||
		r.Holders[0].Kind != recipes.KindLatch || r.Queue[0].Kind != recipes.KindLatch {
		t.Fatalf("report %+v; want the leader %s holding, two waiting, all leader latches", r, term.Path())
	}

	sp := lockPath(t)
	led := make(chan string, 1)
	s, err := leader.NewSelector(fw, sp, func(ctx context.Context, t *leader.Term) error {
		led <- t.Path()
		<-ctx.Done()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	var node string
	select {
	case node = <-led:
	case <-time.After(10 * time.Second):
		t.Fatal("the selector did not lead")
	}
	r = holdersJSON(t, zk.ConnectString(), sp)
	if len(r.Holders) != 1 || r.Holders[0].Node != node || r.Holders[0].Kind != recipes.KindSelector {
		t.Fatalf("report %+v; want %s holding, a leader selector", r, node)
	}
}
