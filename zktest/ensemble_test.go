package zktest

import (
	"context"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// leader returns the index of the member in the leader role, or -1.
func leader(t *testing.T, c *Cluster) int {
	t.Helper()
	for i := range c.Size() {
		if c.Member(i).Running() {
			if mode, err := c.Member(i).Mode(testCtx(t)); err == nil && mode == "leader" {
				return i
			}
		}
	}
	return -1
}

// waitQuorum waits until every running member leads or follows and one leads.
func waitQuorum(t *testing.T, c *Cluster) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if leader(t, c) >= 0 && allServing(t, c) {
			return
		}
		time.Sleep(100 * time.Millisecond) // polling a server's role: there is no event to await
	}
	t.Fatal("no quorum within 20s")
}

func allServing(t *testing.T, c *Cluster) bool {
	for i := range c.Size() {
		m := c.Member(i)
		if !m.Running() {
			continue
		}
		mode, err := m.Mode(testCtx(t))
		if err != nil || (mode != "leader" && mode != "follower") {
			return false
		}
	}
	return true
}

// createEventually retries a create until the ensemble accepts it.
func createEventually(t *testing.T, conn *zk.Conn, path string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for {
		_, err := conn.Create(path, nil, 0, acl)
		if err == nil || err == zk.ErrNodeExists {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("create %s: %v", path, err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func TestEnsemble(t *testing.T) {
	CheckGoroutines(t)
	c := StartEnsemble(t, 3)
	if len(c.Servers()) != 3 {
		t.Fatalf("Servers() = %v", c.Servers())
	}
	lead := leader(t, c)
	if lead < 0 {
		t.Fatal("no leader")
	}
	conn, _ := connect(t, c.Servers(), 4*time.Second, nil)
	createEventually(t, conn, "/before")

	if err := c.Member(lead).Kill(); err != nil {
		t.Fatalf("kill leader: %v", err)
	}
	waitQuorum(t, c)
	createEventually(t, conn, "/after-kill")

	if err := c.Member(lead).Restart(testCtx(t)); err != nil {
		t.Fatalf("restart: %v", err)
	}
	waitQuorum(t, c)

	follower := (leader(t, c) + 1) % 3
	f := c.Member(follower)
	if err := f.Pause(); err != nil {
		t.Fatalf("pause: %v", err)
	}
	createEventually(t, conn, "/while-paused")
	if err := f.Resume(); err != nil {
		t.Fatalf("resume: %v", err)
	}
	waitQuorum(t, c)
	for _, p := range []string{"/before", "/after-kill", "/while-paused"} {
		if ok, _, err := conn.Exists(p); err != nil || !ok {
			t.Fatalf("exists %s = %v, %v", p, ok, err)
		}
	}
}
