package interop

import (
	"context"
	"errors"
	"path"
	"regexp"
	"testing"
	"time"
)

var kazooLockNode = regexp.MustCompile(`^[0-9a-f]{32}__lock__[0-9]{10}$`)

func startKazoo(t *testing.T, o KazooOptions) *KazooProcess {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	k, err := StartKazoo(ctx, servers, o)
	if errors.Is(err, ErrKazooMissing) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	return k
}

// kazoo acquires; Go sees kazoo's node with the identifier as data, owned by kazoo's session; a
// node named as our kazoo drivers name theirs (_c_<uuid>-__lock__<seq>) is a contender to kazoo
// without extra_lock_patterns; Close ends the process by its quit, not by the kill after the grace.
func TestKazooLockVisibleToGo(t *testing.T) {
	ctx := testCtx(t)
	a := startKazoo(t, KazooOptions{Identifier: "py-a"})
	b := startKazoo(t, KazooOptions{Identifier: "py-b"})
	conn := connectGo(t)
	p := uniquePath(t)

	node, err := a.Acquire(ctx, p, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if path.Dir(node) != p || !kazooLockNode.MatchString(path.Base(node)) {
		t.Fatalf("Acquire returned %q, want %s/<uuid hex>__lock__<seq>", node, p)
	}
	data, stat, err := conn.Get(node)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != "py-a" || stat.EphemeralOwner != a.SessionID() {
		t.Fatalf("kazoo's node: data %q, owner %x; want py-a, %x", data, stat.EphemeralOwner, a.SessionID())
	}
	if _, err := b.TryAcquire(ctx, p); !errors.Is(err, ErrRemote) {
		t.Fatalf("second kazoo try-acquire: %v, want busy", err)
	}
	goNode := createContender(t, conn, p, "__lock__", []byte("go"))
	ids, err := b.Contenders(ctx, p)
	if err != nil || len(ids) != 2 || ids[0] != "py-a" || ids[1] != "go" {
		t.Fatalf("contenders = %q, %v; want [py-a go]", ids, err)
	}
	if err := a.Release(ctx, p); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Acquire(ctx, p, 300*time.Millisecond); !errors.Is(err, ErrTimeout) {
		t.Fatalf("kazoo acquired behind the Go-named node %s: %v", goNode, err)
	}
	if err := conn.Delete(goNode, -1); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Acquire(ctx, p, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	b.Close()
	if took := time.Since(start); b.p.waitEr != nil || took > 5*time.Second {
		t.Fatalf("the kazoo process did not quit cleanly: %v (after %v); stderr: %s", b.p.waitEr, took, b.p.stderr.String())
	}
	if v, err := a.Version(ctx); err != nil || v == "" {
		t.Fatalf("version = %q, %v", v, err)
	}
}
