package zktest_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// Expire works on any Framework, with no proxy in its way (Curator's KillSession): the
// framework reports Lost, gets a new session, and a lease it held ends with ErrLockLost.
func TestExpireFramework(t *testing.T) {
	zktest.CheckGoroutines(t)
	c := zktest.Start(t)
	fw := zktest.Connect(t, c)
	lost := zktest.StateSignal(t, fw, framework.Lost)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	m, err := recipes.NewMutex(fw, zktest.UniquePath(t, "/tests"))
	if err != nil {
		t.Fatal(err)
	}
	lease, err := m.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer lease.Release(context.Background())
	old := fw.SessionID()
	if id, pw := fw.SessionCredentials(); id != old || len(pw) == 0 {
		t.Fatalf("SessionCredentials() = 0x%x, %d bytes; want 0x%x and a password", id, len(pw), old)
	}
	if err := zktest.Expire(ctx, c, fw); err != nil {
		t.Fatalf("Expire: %v", err)
	}
	select {
	case <-lost:
	case <-ctx.Done():
		t.Fatal("no Lost after Expire")
	}
	select {
	case <-lease.Done():
	case <-ctx.Done():
		t.Fatal("the lease did not end after Expire")
	}
	if err := lease.Err(); !errors.Is(err, recipes.ErrLockLost) {
		t.Fatalf("lease.Err() = %v, want ErrLockLost", err)
	}
	if err := fw.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	zktest.Eventually(t, 10*time.Second, "a new session", func() bool {
		id := fw.SessionID()
		return id != 0 && id != old
	})
	if id, _ := fw.SessionCredentials(); id != fw.SessionID() {
		t.Fatalf("SessionCredentials() id 0x%x after the new session 0x%x", id, fw.SessionID())
	}
}
