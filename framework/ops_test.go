package framework_test

import (
	"bytes"
	"context"
	"errors"
	"runtime/metrics"
	"sort"
	"testing"

	"github.com/zkrecipes/zkrecipes/framework"
)

func TestCRUD(t *testing.T) {
	f := newFW(t, nil)
	ctx := testCtx(t)
	p := uniquePath(t)
	created, err := f.Create(ctx, p, []byte("v1"))
	if err != nil || created != p {
		t.Fatalf("Create = %q, %v", created, err)
	}
	if _, err := f.Create(ctx, p, nil); !errors.Is(err, framework.ErrNodeExists) {
		t.Fatalf("second Create = %v, want ErrNodeExists", err)
	}
	data, stat, err := f.Get(ctx, p)
	if err != nil || string(data) != "v1" || stat.Version != 0 {
		t.Fatalf("Get = %q, %+v, %v", data, stat, err)
	}
	if _, err := f.Set(ctx, p, []byte("v2"), 5); !errors.Is(err, framework.ErrBadVersion) {
		t.Fatalf("Set bad version = %v", err)
	}
	if stat, err = f.Set(ctx, p, []byte("v2"), 0); err != nil || stat.Version != 1 {
		t.Fatalf("Set = %+v, %v", stat, err)
	}
	for _, name := range []string{"a", "b"} {
		if _, err := f.Create(ctx, p+"/"+name, nil); err != nil {
			t.Fatal(err)
		}
	}
	kids, _, err := f.Children(ctx, p)
	sort.Strings(kids)
	if err != nil || len(kids) != 2 || kids[0] != "a" || kids[1] != "b" {
		t.Fatalf("Children = %v, %v", kids, err)
	}
	if err := f.Delete(ctx, p); !errors.Is(err, framework.ErrNotEmpty) {
		t.Fatalf("Delete non-empty = %v", err)
	}
	for _, name := range []string{"a", "b"} {
		if err := f.Delete(ctx, p+"/"+name, framework.WithVersion(0)); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Delete(ctx, p); err != nil {
		t.Fatal(err)
	}
	if stat, err := f.Exists(ctx, p); stat != nil || err != nil {
		t.Fatalf("Exists after delete = %v, %v", stat, err)
	}
	if _, _, err := f.Get(ctx, p); !errors.Is(err, framework.ErrNoNode) {
		t.Fatalf("Get after delete = %v", err)
	}
	if err := f.Sync(ctx, "/"); err != nil {
		t.Fatalf("Sync = %v", err)
	}
	if _, _, err := f.Children(ctx, "/"); err != nil {
		t.Fatalf("Children(/) = %v", err)
	}
}

func TestCreateModes(t *testing.T) {
	f := newFW(t, nil, framework.WithDefaultData([]byte("dflt")))
	ctx := testCtx(t)
	p := uniquePath(t)
	seq, err := f.Create(ctx, p+"/q/n-", nil, framework.WithMode(framework.EphemeralSequential), framework.CreatingParents())
	if err != nil || len(seq) != len(p+"/q/n-")+10 {
		t.Fatalf("sequential create = %q, %v", seq, err)
	}
	data, stat, err := f.Get(ctx, seq)
	if err != nil || !bytes.Equal(data, []byte("dflt")) || stat.EphemeralOwner != f.SessionID() {
		t.Fatalf("Get = %q, %+v, %v", data, stat, err)
	}
	ttl, err := f.Create(ctx, p+"/ttl", []byte{}, framework.WithMode(framework.PersistentTTL), framework.WithTTL(60e9))
	if err != nil || ttl != p+"/ttl" {
		t.Fatalf("TTL create = %q, %v", ttl, err)
	}
	if _, err := f.Create(ctx, p+"/c", nil, framework.WithMode(framework.Container)); err != nil {
		t.Fatalf("container create: %v", err)
	}
}

func TestNamespace(t *testing.T) {
	ns := uniquePath(t)[1:] + "/app"
	f := newFW(t, nil, framework.WithNamespace(ns))
	raw := newFW(t, nil)
	ctx := testCtx(t)
	got, err := f.Create(ctx, "/lock", []byte("x"))
	if err != nil || got != "/lock" {
		t.Fatalf("Create in namespace = %q, %v", got, err)
	}
	if data, _, err := raw.Get(ctx, "/"+ns+"/lock"); err != nil || string(data) != "x" {
		t.Fatalf("raw Get = %q, %v", data, err)
	}
	stat, err := raw.Exists(ctx, "/"+ns)
	if err != nil || stat == nil {
		t.Fatalf("namespace node: %v, %v", stat, err)
	}
	kids, _, err := f.Children(ctx, "/")
	if err != nil || len(kids) != 1 || kids[0] != "lock" {
		t.Fatalf("Children(/) in namespace = %v, %v", kids, err)
	}
	seq, err := f.Create(ctx, "/d/e/s-", nil, framework.CreatingParents(), framework.WithMode(framework.PersistentSequential))
	if err != nil || seq[:6] != "/d/e/s" {
		t.Fatalf("sequential in namespace = %q, %v", seq, err)
	}
	res, err := f.Multi(ctx, framework.CheckOp("/lock", 0), framework.CreateOp("/m", nil, framework.Persistent))
	if err != nil || res[1].Path != "/m" {
		t.Fatalf("Multi in namespace = %+v, %v", res, err)
	}
}

func TestMulti(t *testing.T) {
	f := newFW(t, nil)
	ctx := testCtx(t)
	p := uniquePath(t)
	res, err := f.Multi(ctx,
		framework.CreateOp(p, []byte("a"), framework.Persistent),
		framework.SetOp(p, []byte("b"), 0),
		framework.CreateOp(p+"/s-", nil, framework.PersistentSequential))
	if err != nil || len(res) != 3 || res[0].Path != p || res[1].Stat == nil || res[1].Stat.Version != 1 {
		t.Fatalf("Multi = %+v, %v", res, err)
	}
	res, err = f.Multi(ctx,
		framework.SetOp(p, []byte("c"), -1),
		framework.CheckOp(p, 99),
		framework.DeleteOp(p, -1))
	if !errors.Is(err, framework.ErrBadVersion) {
		t.Fatalf("failing Multi err = %v", err)
	}
	if len(res) != 3 || !errors.Is(res[1].Err, framework.ErrBadVersion) || !errors.Is(res[2].Err, framework.ErrMultiAborted) {
		t.Fatalf("failing Multi results = %+v", res)
	}
	if data, _, _ := f.Get(ctx, p); string(data) != "b" {
		t.Fatalf("failed Multi applied: data %q", data)
	}
}

// goroutinesCreated is the process's count of goroutines ever created.
func goroutinesCreated() uint64 {
	s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// A request under a context that can never end runs on the caller's goroutine; under one that can,
// on a goroutine beside it, so that the caller returns as soon as the context ends
// (TestCancelledRequestInFlightReturnsAtOnce proves that part). That
// goroutine is one of the Framework's warm ones (Framework.Go): 100 requests one after another
// start one, not 100 as before the pool (issue 27).
func TestCallGoroutinePerRequestOnlyWhenCancellable(t *testing.T) {
	f := newFW(t, nil)
	cancellable, cancel := context.WithCancel(context.Background())
	defer cancel()
	const n = 100
	tests := []struct {
		name     string
		ctx      context.Context
		min, max uint64
	}{
		{"background", context.Background(), 0, n / 10}, // a little slack for unrelated runtime goroutines
		{"cancellable", cancellable, 0, n / 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := goroutinesCreated()
			for i := 0; i < n; i++ {
				if _, err := f.Exists(tt.ctx, "/"); err != nil {
					t.Fatal(err)
				}
			}
			if got := goroutinesCreated() - before; got < tt.min || got > tt.max {
				t.Fatalf("%d goroutines created for %d requests, want %d..%d", got, n, tt.min, tt.max)
			}
		})
	}
}
