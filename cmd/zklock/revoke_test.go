package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// zklock revoke refuses anything but a contender node of a lock with a usage error and writes
// nothing: the lock's directory (issue 17.2: it wrote __REVOKE__ into it and exited 0), a
// persistent node named like a contender; the holder keeps its lock.
func TestRevokeRefusesNonContenders(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	p := lockPath(t)
	revoked := make(chan struct{}, 1)
	m, _ := recipes.NewMutex(fw, p, recipes.WithRevocation(func(*recipes.Lease) { revoked <- struct{}{} }))
	l, err := m.Acquire(ctxFor(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(ctxFor(t, 10*time.Second))
	persistent := p + "/lock-0000000099"
	if _, err := fw.Create(ctxFor(t, 5*time.Second), persistent, []byte("keep")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fw.Delete(ctxFor(t, 5*time.Second), persistent) })
	for _, tt := range []struct{ node, want string }{
		{p, "not a contender node"},
		{persistent, "persistent"},
		{p + "/config", "not a contender node"},
	} {
		before, bst, _ := fw.Get(ctxFor(t, 5*time.Second), p)
		out, errOut, code := runZklock(t, "--servers", zk.ConnectString(), "revoke", tt.node)
		if code != exitUsage || !strings.Contains(errOut, tt.want) || strings.Contains(out, "asked the holder") {
			t.Fatalf("revoke %s: exit %d (want %d), stderr lacks %q:\n%s%s", tt.node, code, exitUsage, tt.want, out, errOut)
		}
		after, ast, err := fw.Get(ctxFor(t, 5*time.Second), p)
		if err != nil || !bytes.Equal(before, after) || ast.Version != bst.Version {
			t.Fatalf("revoke %s changed the directory: %q -> %q (%v)", tt.node, before, after, err)
		}
	}
	if data, _, err := fw.Get(ctxFor(t, 5*time.Second), persistent); err != nil || string(data) != "keep" {
		t.Fatalf("persistent node: %q, %v", data, err)
	}
	select {
	case <-revoked:
		t.Fatal("the holder was asked to release")
	default:
	}
	if err := l.Err(); err != nil {
		t.Fatalf("holder lost its lock: %v", err)
	}
}
