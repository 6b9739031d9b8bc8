package recipes_test

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// Revoke writes only into a contender node of a lock: the lock's directory, a node whose name
// is no contender name, one directly under the root, or a persistent node named like a
// contender are refused with ErrNotContender (and ErrInvalidArgument), and their data stays
// as it was; the holder keeps its lock. Issue 17.2: revoking the directory wrote __REVOKE__
// into it.
func TestRevokeRefusesNonContenders(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	p := lockPath(t)
	revoked := make(chan *recipes.Lease, 1)
	l := mustAcquire(t, mustMutex(t, fw, p, recipes.WithRevocation(func(l *recipes.Lease) { revoked <- l })), 10*time.Second)
	defer mustRelease(t, l)
	if _, err := fw.Set(ctxFor(t, 5*time.Second), p, []byte("dir data"), -1); err != nil {
		t.Fatal(err)
	}
	persistent := p + "/lock-0000000099"
	other := p + "/config"
	for _, n := range []string{persistent, other} {
		if _, err := fw.Create(ctxFor(t, 5*time.Second), n, []byte("keep")); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { fw.Delete(ctxFor(t, 5*time.Second), n) })
	}
	for _, tt := range []struct{ name, node string }{
		{"lock directory", p},
		{"persistent contender name", persistent},
		{"not a contender name", other},
		{"short sequence", p + "/lock-123"},
		{"unknown lock name", p + "/_c_0f1e9d0c-8c5e-4b8e-9d39-6a4c2b1f7e21-thing-0000000001"},
		{"bad protection prefix", p + "/_c_nope-lock-0000000001"},
		{"under the root", "/lock-0000000001"},
		{"under a contender", l.Path() + "/lock-0000000001"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before, bstat, berr := fw.Get(ctxFor(t, 5*time.Second), tt.node)
			err := recipes.Revoke(ctxFor(t, 5*time.Second), fw, tt.node)
			if !errors.Is(err, recipes.ErrNotContender) || !errors.Is(err, recipes.ErrInvalidArgument) {
				t.Fatalf("Revoke(%s) = %v, want ErrNotContender", tt.node, err)
			}
			after, astat, aerr := fw.Get(ctxFor(t, 5*time.Second), tt.node)
			if !bytes.Equal(before, after) || errors.Is(aerr, framework.ErrNoNode) != errors.Is(berr, framework.ErrNoNode) || (bstat != nil && astat.Version != bstat.Version) {
				t.Fatalf("%s changed: %q (%v) -> %q (%v)", tt.node, before, berr, after, aerr)
			}
		})
	}
	select {
	case <-revoked:
		t.Fatal("the holder was asked to release")
	default:
	}
	if err := l.Err(); err != nil {
		t.Fatalf("holder lost its lease: %v", err)
	}
	// A contender node that is gone is no error.
	if err := recipes.Revoke(ctxFor(t, 5*time.Second), fw, p+"/_c_0f1e9d0c-8c5e-4b8e-9d39-6a4c2b1f7e21-lock-0000009999"); err != nil {
		t.Fatalf("Revoke of a gone node = %v", err)
	}
}
