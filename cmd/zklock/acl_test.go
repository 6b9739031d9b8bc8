package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// zklock with credentials creates creator-only nodes (issue 25.7): an anonymous client cannot
// delete the lock node, nor the lock directory (its parent, created by zklock, is creator-only
// too), nor read the node, nor queue in the directory; the credentials come from a
// file (--auth-file) or the environment (ZKLOCK_AUTH), never from argv.
func TestZklockCredentialsMakeNodesPrivate(t *testing.T) {
	zk := shared
	file := filepath.Join(t.TempDir(), "auth")
	if err := os.WriteFile(file, []byte("alice:s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	anon := zktest.Connect(t, zk)
	for _, tt := range []struct {
		name string
		args []string
		env  string
	}{
		{"auth file", []string{"--auth-file", file}, ""},
		{"environment", nil, "alice:s3cret"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// A root of its own: zklock creates its missing parents creator-only too, which would
			// lock the other tests out of a shared root.
			p := zktest.UniquePath(t, "/zklock-acl-tests")
			t.Setenv("ZKLOCK_AUTH", tt.env)
			args := append([]string{"--servers", zk.ConnectString()}, tt.args...)
			holder := startZklock(t, append(args, "lock", p)...)
			line := holder.expect(t, "ZKLOCK_NODE=", 30*time.Second)
			node := strings.TrimPrefix(line, "ZKLOCK_NODE=")
			for _, target := range []string{node, p} {
				err := anon.Delete(ctxFor(t, 5*time.Second), target)
				if !errors.Is(err, framework.ErrNoAuth) {
					t.Fatalf("anonymous delete of %s: %v, want ErrNoAuth", target, err)
				}
			}
			if _, _, err := anon.Get(ctxFor(t, 5*time.Second), node); !errors.Is(err, framework.ErrNoAuth) {
				t.Fatalf("anonymous read of the lock node: %v, want ErrNoAuth", err)
			}
			if _, err := anon.Create(ctxFor(t, 5*time.Second), p+"/lock-", nil, framework.WithMode(framework.EphemeralSequential)); !errors.Is(err, framework.ErrNoAuth) {
				t.Fatalf("anonymous contender in the lock directory: %v, want ErrNoAuth", err)
			}
			owner := zktest.Connect(t, zk, framework.WithDigestAuth("alice", "s3cret"))
			acl, _, err := owner.GetACL(ctxFor(t, 5*time.Second), node)
			if err != nil || len(acl) != 1 || acl[0].Scheme != "digest" || !strings.HasPrefix(acl[0].ID, "alice:") {
				t.Fatalf("lock node ACL %+v (%v), want alice's digest only", acl, err)
			}
		})
	}
}

// --acl open keeps the world-open ACL with credentials, and a bad --acl or auth file is a usage
// error.
func TestZklockACLFlags(t *testing.T) {
	checkFlagErrors(t, []flagCase{
		{"bad acl", []string{"--acl", "everyone", "holders", "/p"}, "--acl"},
		{"missing auth file", []string{"--auth-file", "/nonexistent/auth", "holders", "/p"}, "--auth-file"},
	})
}
