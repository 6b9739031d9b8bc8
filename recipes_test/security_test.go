package recipes_test

import (
	"errors"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// The claims of docs/security.md, against a real ZooKeeper.

// The default ACL of every node a recipe creates, parents included, is world:anyone with every
// permission (ZooKeeper's OPEN_ACL_UNSAFE, Curator's default).
func TestSecurityDefaultACLIsOpen(t *testing.T) {
	fw := zktest.Connect(t, shared)
	root := zktest.UniquePath(t, "/security-tests")
	p := root + "/lock"
	l := mustAcquire(t, mustMutex(t, fw, p), 10*time.Second)
	defer mustRelease(t, l)
	for _, n := range []string{root, p, l.Path()} {
		acl, _, err := fw.GetACL(ctxFor(t, 5*time.Second), n)
		if err != nil || len(acl) != 1 || acl[0] != framework.OpenACL()[0] {
			t.Fatalf("ACL of %s: %+v (%v), want world:anyone all", n, acl, err)
		}
	}
}

// securedFramework connects as user with the creator-only ACL provider.
func securedFramework(t *testing.T, user string) *framework.Framework {
	return zktest.Connect(t, shared, framework.WithDigestAuth(user, user+"-pw"),
		framework.WithACLProvider(framework.CreatorACLProvider()))
}

// A lock secured with credentials and the creator-only ACL provider: a client without the
// credentials can neither delete the holder's node nor queue (its acquire fails at once with
// ErrNoAuth, never retried), nor read the node's data.
func TestSecuritySecuredLockRefusesIntruder(t *testing.T) {
	owner, intruder := securedFramework(t, "alice"), zktest.Connect(t, shared)
	p := zktest.UniquePath(t, "/security-tests") + "/lock"
	l := mustAcquire(t, mustMutex(t, owner, p), 10*time.Second)
	defer mustRelease(t, l)
	if err := intruder.Delete(ctxFor(t, 5*time.Second), l.Path()); !errors.Is(err, framework.ErrNoAuth) {
		t.Fatalf("intruder's delete: %v, want ErrNoAuth", err)
	}
	if _, _, err := intruder.Get(ctxFor(t, 5*time.Second), l.Path()); !errors.Is(err, framework.ErrNoAuth) {
		t.Fatalf("intruder's read: %v, want ErrNoAuth", err)
	}
	_, err := mustMutex(t, intruder, p).Acquire(ctxFor(t, 10*time.Second))
	if !errors.Is(err, framework.ErrNoAuth) {
		t.Fatalf("intruder's Acquire: %v, want ErrNoAuth", err)
	}
	if err := l.Err(); err != nil {
		t.Fatalf("the owner lost its lease: %v", err)
	}
}

// The parent chain: with a world-open root, an intruder deletes the owner's empty lock
// directory (a creator-only container) and recreates it with its own ACL: the owner is locked
// out. A root pre-created with the creator-only ACL stops it: the intruder can neither delete
// nor create the directory.
func TestSecurityParentChain(t *testing.T) {
	for _, tt := range []struct {
		name       string
		rootACL    func() []framework.ACL
		lockedOut  bool
		intruderOK bool
	}{
		{"world-open root", framework.OpenACL, true, true},
		{"creator-only root", framework.CreatorACL, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			owner, intruder := securedFramework(t, "alice"), securedFramework(t, "mallory")
			root := zktest.UniquePath(t, "/security-tests")
			if _, err := owner.Create(ctxFor(t, 5*time.Second), root, nil, framework.WithACL(tt.rootACL()),
				framework.CreatingParents()); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { owner.Delete(ctxFor(t, 5*time.Second), root) })
			p := root + "/lock"
			mustRelease(t, mustAcquire(t, mustMutex(t, owner, p), 10*time.Second)) // p stays, empty, until reaped
			err := intruder.Delete(ctxFor(t, 5*time.Second), p)
			if err == nil {
				_, err = intruder.Create(ctxFor(t, 5*time.Second), p, nil)
				t.Cleanup(func() { intruder.Delete(ctxFor(t, 5*time.Second), p) })
			}
			if (err == nil) != tt.intruderOK || (err != nil && !errors.Is(err, framework.ErrNoAuth) && !errors.Is(err, framework.ErrNoNode)) {
				t.Fatalf("intruder's delete and create of %s: %v", p, err)
			}
			_, err = mustMutex(t, owner, p).Acquire(ctxFor(t, 10*time.Second))
			if got := errors.Is(err, framework.ErrNoAuth); got != tt.lockedOut {
				t.Fatalf("owner's Acquire after the intruder: %v (locked out %v, want %v)", err, got, tt.lockedOut)
			}
		})
	}
}

// Node data proves nothing: any client that may create a contender writes any identity, and it
// is read as zkrecipes' own.
func TestSecurityIdentityIsClaimedNotProved(t *testing.T) {
	fw := zktest.Connect(t, shared)
	forged := recipes.Identity{Host: "trusted-host", PID: 1, Name: "backup", Kind: recipes.KindMutex}.Encode()
	l := mustAcquire(t, mustMutex(t, fw, lockPath(t), recipes.WithNodeData(forged)), 10*time.Second)
	defer mustRelease(t, l)
	data, _, err := fw.Get(ctxFor(t, 5*time.Second), l.Path())
	if err != nil || recipes.NodeOrigin(data) != recipes.OriginGo {
		t.Fatalf("forged identity read as %q (%v)", recipes.NodeOrigin(data), err)
	}
}
