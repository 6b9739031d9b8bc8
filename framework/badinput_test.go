package framework_test

import (
	"context"
	"errors"
	"testing"

	"github.com/zkrecipes/zkrecipes/framework"
)

func TestBadInputSendsNoRequest(t *testing.T) {
	f := newFW(t, nil)
	ctx := context.Background()
	var nilCtx context.Context
	big := make([]byte, framework.MaxDataSize+1)
	tests := []struct {
		name string
		op   func() error
		want error
	}{
		{"create root", func() error { _, err := f.Create(ctx, "/", nil); return err }, framework.ErrInvalidPath},
		{"create relative", func() error { _, err := f.Create(ctx, "a", nil); return err }, framework.ErrInvalidPath},
		{"create zookeeper", func() error { _, err := f.Create(ctx, "/zookeeper/x", nil); return err }, framework.ErrInvalidPath},
		{"create big", func() error { _, err := f.Create(ctx, "/big", big); return err }, framework.ErrDataTooLarge},
		{"create nil ctx", func() error { _, err := f.Create(nilCtx, "/a", nil); return err }, framework.ErrNilContext},
		{"create TTL without TTL", func() error {
			_, err := f.Create(ctx, "/a", nil, framework.WithMode(framework.PersistentTTL))
			return err
		}, framework.ErrInvalidOption},
		{"create bad mode", func() error { _, err := f.Create(ctx, "/a", nil, framework.WithMode(42)); return err }, framework.ErrInvalidOption},
		{"delete root", func() error { return f.Delete(ctx, "/") }, framework.ErrInvalidPath},
		{"delete dotdot", func() error { return f.Delete(ctx, "/a/..") }, framework.ErrInvalidPath},
		{"delete nil ctx", func() error { return f.Delete(nilCtx, "/a") }, framework.ErrNilContext},
		{"set trailing", func() error { _, err := f.Set(ctx, "/a/", nil, -1); return err }, framework.ErrInvalidPath},
		{"set big", func() error { _, err := f.Set(ctx, "/a", big, -1); return err }, framework.ErrDataTooLarge},
		{"get empty", func() error { _, _, err := f.Get(ctx, ""); return err }, framework.ErrInvalidPath},
		{"exists ctrl", func() error { _, err := f.Exists(ctx, "/a\x01"); return err }, framework.ErrInvalidPath},
		{"children nil ctx", func() error { _, _, err := f.Children(nilCtx, "/"); return err }, framework.ErrNilContext},
		{"getw double slash", func() error { _, _, _, err := f.GetW(ctx, "//"); return err }, framework.ErrInvalidPath},
		{"existsw dot", func() error { _, _, err := f.ExistsW(ctx, "/."); return err }, framework.ErrInvalidPath},
		{"childrenw nil ctx", func() error { _, _, _, err := f.ChildrenW(nilCtx, "/a"); return err }, framework.ErrNilContext},
		{"sync relative", func() error { return f.Sync(ctx, "x") }, framework.ErrInvalidPath},
		{"multi empty", func() error { _, err := f.Multi(ctx); return err }, framework.ErrInvalidOption},
		{"multi bad path", func() error {
			_, err := f.Multi(ctx, framework.CheckOp("/ok", -1), framework.DeleteOp("/", -1))
			return err
		}, framework.ErrInvalidPath},
		{"multi container", func() error {
			_, err := f.Multi(ctx, framework.CreateOp("/c", nil, framework.Container))
			return err
		}, framework.ErrInvalidOption},
		{"multi zero op", func() error { _, err := f.Multi(ctx, framework.Op{}); return err }, framework.ErrInvalidPath},
		{"multi nil ctx", func() error { _, err := f.Multi(nilCtx, framework.CheckOp("/a", -1)); return err }, framework.ErrNilContext},
		{"wait nil ctx", func() error { return f.WaitConnected(nilCtx) }, framework.ErrNilContext},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := f.RequestsStarted()
			err := tt.op()
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if after := f.RequestsStarted(); after != before {
				t.Fatalf("%d requests sent for bad input", after-before)
			}
		})
	}
}

func TestClosedRefusesEverything(t *testing.T) {
	f := newFW(t, nil)
	ctx := testCtx(t)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatalf("second Close = %v", err)
	}
	before := f.RequestsStarted()
	if _, err := f.Create(ctx, "/a", nil); !errors.Is(err, framework.ErrClosed) {
		t.Fatalf("Create after Close = %v", err)
	}
	if _, _, err := f.Get(ctx, "/"); !errors.Is(err, framework.ErrClosed) {
		t.Fatalf("Get after Close = %v", err)
	}
	if err := f.WaitConnected(ctx); !errors.Is(err, framework.ErrClosed) {
		t.Fatalf("WaitConnected after Close = %v", err)
	}
	if f.RequestsStarted() != before {
		t.Fatal("requests sent after Close")
	}
	select {
	case <-f.Session().Done():
	default:
		t.Fatal("session epoch still open after Close")
	}
	if !errors.Is(f.Session().Err(), framework.ErrClosed) {
		t.Fatalf("epoch Err after Close = %v", f.Session().Err())
	}
}

func TestCloseWhileOperationBlocked(t *testing.T) {
	f, p, _ := proxied(t)
	p.Blackhole(true)
	done := make(chan error, 1)
	go func() {
		_, err := f.Exists(context.Background(), "/x")
		done <- err
	}()
	f.Close()
	select {
	case err := <-done:
		if !errors.Is(err, framework.ErrClosed) {
			t.Fatalf("blocked Exists after Close = %v, want ErrClosed", err)
		}
	case <-testCtx(t).Done():
		t.Fatal("blocked operation did not return after Close")
	}
	p.Blackhole(false)
}
