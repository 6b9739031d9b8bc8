package framework_test

import (
	"context"
	"errors"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/retry"
	"github.com/zkrecipes/zkrecipes/zktest"
)

func TestProtectedCreateAdoptsAfterCutReply(t *testing.T) {
	for _, mode := range []framework.Mode{framework.EphemeralSequential, framework.PersistentSequential, framework.Persistent} {
		t.Run(mode.String(), func(t *testing.T) {
			f, p, _ := proxied(t)
			ctx := testCtx(t)
			dir := uniquePath(t)
			if _, err := f.Create(ctx, dir, nil); err != nil {
				t.Fatal(err)
			}
			p.CutReplyAfter(zktest.OpCreate, zktest.OpCreate2)
			p.ResetCounts()
			got, err := f.Create(ctx, dir+"/lock-", []byte("x"), framework.Protected(), framework.WithMode(mode), framework.CreatingParents())
			if err != nil {
				t.Fatalf("protected create: %v", err)
			}
			name := path.Base(got)
			if !framework.IsProtected(name) || !strings.HasPrefix(framework.StripProtected(name), "lock-") {
				t.Fatalf("created %q: not a protected lock- name", got)
			}
			kids, _, err := f.Children(ctx, dir)
			if err != nil || len(kids) != 1 || kids[0] != name {
				t.Fatalf("children %v (%v), want exactly [%s]", kids, err, name)
			}
			if n := p.Requests()[zktest.OpCreate]; n != 1 {
				t.Fatalf("%d create requests sent, want 1 (the node must be adopted, not re-created)", n)
			}
			if mode == framework.EphemeralSequential {
				stat, err := f.Exists(ctx, got)
				if err != nil || stat.EphemeralOwner != f.SessionID() {
					t.Fatalf("owner: %+v, %v", stat, err)
				}
			}
		})
	}
}

func TestProtectedCreateFailureLeavesNoNode(t *testing.T) {
	tests := []struct {
		name   string
		policy retry.Policy
		ctx    func() (context.Context, context.CancelFunc)
	}{
		{"policy-refuses", retry.NTimes(0, 0), func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), bound)
		}},
		{"ctx-ends-during-retry", retry.Forever(time.Hour), func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 1500*time.Millisecond)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, p, _ := proxied(t, framework.WithRetryPolicy(tt.policy))
			dir := uniquePath(t)
			if _, err := f.Create(testCtx(t), dir, nil); err != nil {
				t.Fatal(err)
			}
			p.CutReplyAfter(zktest.OpCreate, zktest.OpCreate2)
			ctx, cancel := tt.ctx()
			defer cancel()
			_, err := f.Create(ctx, dir+"/lock-", nil, framework.Protected(), framework.WithMode(framework.EphemeralSequential))
			if err == nil {
				t.Fatal("protected create succeeded, want a failure")
			}
			waitChildren(t, f, dir, 0)
		})
	}
}

// waitChildren waits (bounded) until dir has n children.
func waitChildren(t *testing.T, f *framework.Framework, dir string, n int) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for {
		kids, _, err := f.Children(testCtx(t), dir)
		if err == nil && len(kids) == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("children of %s: %v (%v), want %d", dir, kids, err, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestGuaranteedDeleteCompletesAfterReconnect(t *testing.T) {
	f, p, s := proxied(t, framework.WithRetryPolicy(retry.NTimes(0, 0)))
	ctx := testCtx(t)
	node := uniquePath(t)
	if _, err := f.Create(ctx, node, nil); err != nil {
		t.Fatal(err)
	}
	p.Blackhole(true)
	dctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	err := f.Delete(dctx, node, framework.Guaranteed())
	cancel()
	if err == nil {
		t.Fatal("delete through a blackhole succeeded")
	}
	s.expect(t, framework.Suspended)
	p.Blackhole(false)
	deadline := time.Now().Add(bound)
	for {
		stat, err := f.Exists(ctx, node)
		if err == nil && stat == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("node still there after reconnect: %v, %v", stat, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestContainerParentsReaped(t *testing.T) {
	f := newFW(t, nil)
	ctx := testCtx(t)
	top := uniquePath(t)
	leaf, err := f.Create(ctx, top+"/a/b/lock-", nil, framework.CreatingParents(), framework.WithMode(framework.EphemeralSequential))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Delete(ctx, leaf); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(bound)
	for {
		stat, err := f.Exists(ctx, top)
		if err == nil && stat == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("container parents not reaped: %v, %v", stat, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestDigestACL(t *testing.T) {
	acl := framework.DigestACL("alice", "secret")
	owner := newFW(t, nil, framework.WithDigestAuth("alice", "secret"),
		framework.WithACLProvider(framework.ACLProviderFunc(func(string) []framework.ACL { return acl })))
	other := newFW(t, nil)
	ctx := testCtx(t)
	node := uniquePath(t)
	if _, err := owner.Create(ctx, node, []byte("private")); err != nil {
		t.Fatalf("create with digest ACL: %v", err)
	}
	if data, _, err := owner.Get(ctx, node); err != nil || string(data) != "private" {
		t.Fatalf("owner Get = %q, %v", data, err)
	}
	if _, _, err := other.Get(ctx, node); !errors.Is(err, framework.ErrNoAuth) {
		t.Fatalf("unauthenticated Get = %v, want ErrNoAuth", err)
	}
}

func TestRetryStopsWhenCtxEnds(t *testing.T) {
	f, p, _ := proxied(t, framework.WithRetryPolicy(retry.Forever(50*time.Millisecond)))
	p.Blackhole(true)
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := f.Exists(ctx, "/x")
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Exists = %v, want DeadlineExceeded", err)
		}
	case <-time.After(bound):
		t.Fatal("Exists did not return after its ctx ended")
	}
	p.Blackhole(false)
}
