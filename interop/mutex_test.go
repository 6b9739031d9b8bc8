package interop

import (
	"context"
	"errors"
	"path"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// Java acquires; Go sees Curator's protected lock node; participants lists Java's node then a
// node Go queued behind it, the way a zkrecipes contender would.
func TestCuratorMutexVisibleToGo(t *testing.T) {
	ctx := testCtx(t)
	c := startCurator(t)
	conn := connectGo(t)
	p := uniquePath(t)

	node, err := c.Acquire(ctx, p, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if path.Dir(node) != p || !lockNode.MatchString(path.Base(node)) {
		t.Fatalf("Acquire returned %q, want %s/_c_<uuid>-lock-<seq>", node, p)
	}
	kids, _, err := conn.Children(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(kids) != 1 || path.Join(p, kids[0]) != node {
		t.Fatalf("children of %s = %v, want [%s]", p, kids, path.Base(node))
	}
	_, stat, err := conn.Get(node)
	if err != nil {
		t.Fatal(err)
	}
	if stat.EphemeralOwner != c.SessionID() {
		t.Fatalf("lock node owner %x, want Curator's session %x", stat.EphemeralOwner, c.SessionID())
	}

	goNode := createContender(t, conn, p, "lock-", nil)
	parts, err := c.Participants(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 2 || parts[0] != node || parts[1] != goNode {
		t.Fatalf("participants = %v, want [%s %s]", parts, node, goNode)
	}

	if err := c.Release(ctx, p); err != nil {
		t.Fatal(err)
	}
	if ok, _, err := conn.Exists(node); err != nil || ok {
		t.Fatalf("after release, exists(%s) = %v, %v; want false", node, ok, err)
	}
	if err := c.Release(ctx, p); !errors.Is(err, ErrRemote) {
		t.Fatalf("second release: %v, want ErrRemote (not held)", err)
	}
}

// Two Curator sessions exclude each other, and a Go-held predecessor blocks Curator until deleted.
func TestCuratorMutexExcludes(t *testing.T) {
	ctx := testCtx(t)
	a, b := startCurator(t), startCurator(t)
	conn := connectGo(t)
	p := uniquePath(t)

	if _, err := a.Acquire(ctx, p, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Acquire(ctx, p, 300*time.Millisecond); !errors.Is(err, ErrTimeout) {
		t.Fatalf("b acquired a held lock: %v", err)
	}
	if err := a.Release(ctx, p); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Acquire(ctx, p, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := b.Release(ctx, p); err != nil {
		t.Fatal(err)
	}

	// A Go contender's node with a lower sequence holds the lock for Curator too.
	goNode := createContender(t, conn, p, "lock-", nil)
	if _, err := a.Acquire(ctx, p, 300*time.Millisecond); !errors.Is(err, ErrTimeout) {
		t.Fatalf("Curator acquired past a Go-held node: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, err := a.Acquire(ctx, p, 20*time.Second); done <- err }()
	waitChildren(t, conn, p, 2)
	if err := conn.Delete(goNode, -1); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("Curator did not acquire after the Go node was deleted")
	}
	if err := a.Release(ctx, p); err != nil {
		t.Fatal(err)
	}
}

// waitChildren waits (bounded) until p has n children.
func waitChildren(t *testing.T, conn *zk.Conn, p string, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		kids, _, ch, err := conn.ChildrenW(p)
		if err == nil && len(kids) == n {
			return
		}
		if err != nil {
			time.Sleep(20 * time.Millisecond) // parent not created yet: nothing to watch
			continue
		}
		select {
		case <-ch:
		case <-time.After(time.Until(deadline)):
		}
	}
	t.Fatalf("%s never had %d children", p, n)
}

// Bad input comes back as an error reply, not a dead process.
func TestCuratorBadInput(t *testing.T) {
	ctx := testCtx(t)
	c := startCurator(t)
	if _, err := c.Acquire(ctx, "no-slash", time.Second); !errors.Is(err, ErrRemote) {
		t.Fatalf("bad path: %v, want ErrRemote", err)
	}
	if _, err := c.p.call(ctx, "frobnicate"); !errors.Is(err, ErrRemote) {
		t.Fatalf("unknown command: %v, want ErrRemote", err)
	}
	if err := c.MultiRelease(ctx); !errors.Is(err, ErrRemote) {
		t.Fatalf("multilock-release unheld: %v, want ErrRemote", err)
	}
	if err := c.Ping(ctx); err != nil {
		t.Fatalf("process died after bad input: %v", err)
	}
}

// A cancelled command kills the JVM; later calls fail with ErrClosed.
func TestCuratorCancelKills(t *testing.T) {
	ctx := testCtx(t)
	a, b := startCurator(t), startCurator(t)
	p := uniquePath(t)
	if _, err := a.Acquire(ctx, p, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if _, err := b.Acquire(short, p, time.Minute); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cancelled acquire: %v, want DeadlineExceeded", err)
	}
	if err := b.Ping(ctx); !errors.Is(err, ErrClosed) {
		t.Fatalf("after cancel: %v, want ErrClosed", err)
	}
	if err := a.Release(ctx, p); err != nil {
		t.Fatal(err)
	}
}

func TestCuratorClasspathMissing(t *testing.T) {
	t.Setenv("ZKRECIPES_JAVA_LIBS", t.TempDir())
	if _, err := CuratorClasspath(); !errors.Is(err, ErrCuratorMissing) {
		t.Fatalf("got %v, want ErrCuratorMissing", err)
	}
	if _, err := StartCurator(context.Background(), "127.0.0.1:1"); !errors.Is(err, ErrCuratorMissing) {
		t.Fatalf("StartCurator: %v, want ErrCuratorMissing", err)
	}
}

func TestParseReply(t *testing.T) {
	tests := []struct {
		in   string
		want string
		err  error
	}{
		{"ok", "", nil},
		{"ok /a/b", "/a/b", nil},
		{"err timeout", "", ErrTimeout},
		{"err boom", "", ErrRemote},
		{"garbage", "", ErrRemote},
	}
	for _, tt := range tests {
		got, err := parseReply(tt.in)
		if got != tt.want || !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
			t.Errorf("parseReply(%q) = %q, %v; want %q, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}
