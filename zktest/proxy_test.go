package zktest

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

var acl = zk.WorldACL(zk.PermAll)

func TestProxyConnectAndCounts(t *testing.T) {
	CheckGoroutines(t)
	c := Start(t)
	p := NewProxy(t, c.Member(0).Addr())
	// The dialer ignores the address: port 1 has no server.
	conn, _ := connect(t, []string{"127.0.0.1:1"}, 2*time.Second, p.Dialer())
	id, passwd := p.Session()
	if id == 0 || id != conn.SessionID() || len(passwd) == 0 {
		t.Fatalf("proxy session 0x%x (%d-byte passwd), client 0x%x", id, len(passwd), conn.SessionID())
	}
	p.ResetCounts()
	if _, err := conn.Create("/counted", nil, 0, acl); err != nil {
		t.Fatalf("create: %v", err)
	}
	if _, _, err := conn.Children("/"); err != nil {
		t.Fatalf("children: %v", err)
	}
	if err := conn.Delete("/counted", -1); err != nil {
		t.Fatalf("delete: %v", err)
	}
	want := map[int32]int64{OpCreate: 1, OpGetChildren2: 1, OpDelete: 1}
	if got := p.Requests(); !maps.Equal(got, want) {
		t.Fatalf("Requests() = %v, want %v", got, want)
	}
}

func TestProxyDrop(t *testing.T) {
	CheckGoroutines(t)
	c := Start(t)
	p := NewProxy(t, c.Member(0).Addr())
	conn, events := connect(t, []string{p.Addr()}, 2*time.Second, p.Dialer())
	id := conn.SessionID()
	p.DropConnections()
	waitState(t, events, zk.StateDisconnected, 5*time.Second)
	waitState(t, events, zk.StateHasSession, 10*time.Second)
	if conn.SessionID() != id {
		t.Fatalf("session changed after drop: 0x%x -> 0x%x", id, conn.SessionID())
	}
	if _, _, err := conn.Exists("/"); err != nil {
		t.Fatalf("exists after reconnect: %v", err)
	}
}

func TestProxyBlackholeExpires(t *testing.T) {
	CheckGoroutines(t)
	c := Start(t)
	p := NewProxy(t, c.Member(0).Addr())
	conn, events := connect(t, []string{p.Addr()}, time.Second, p.Dialer())
	observer, _ := connect(t, c.Servers(), 5*time.Second, nil)
	if _, err := conn.Create("/eph", nil, zk.FlagEphemeral, acl); err != nil {
		t.Fatalf("create: %v", err)
	}
	_, _, gone, err := observer.ExistsW("/eph")
	if err != nil {
		t.Fatalf("exists: %v", err)
	}
	p.Blackhole(true)
	waitState(t, events, zk.StateDisconnected, 5*time.Second)
	select { // the server expires the session and deletes its ephemeral
	case ev := <-gone:
		if ev.Type != zk.EventNodeDeleted {
			t.Fatalf("observer event %+v", ev)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ephemeral not deleted while blackholed")
	}
	p.Blackhole(false)
	waitState(t, events, zk.StateExpired, 10*time.Second)
}

func TestProxyCutReplyAfter(t *testing.T) {
	CheckGoroutines(t)
	c := Start(t)
	p := NewProxy(t, c.Member(0).Addr())
	conn, events := connect(t, []string{p.Addr()}, 2*time.Second, p.Dialer())
	p.CutReplyAfter(OpCreate)
	if _, err := conn.Create("/cut", []byte("v"), 0, acl); err == nil {
		t.Fatal("create succeeded although its reply was cut")
	}
	waitState(t, events, zk.StateHasSession, 10*time.Second)
	data, _, err := conn.Get("/cut")
	if err != nil || !bytes.Equal(data, []byte("v")) {
		t.Fatalf("get /cut = %q, %v; want the create applied", data, err)
	}
	if _, err := conn.Create("/after", nil, 0, acl); err != nil {
		t.Fatalf("the cut must be one-shot: %v", err)
	}
}

// CutReplyAfterMulti(OpCreate) spares a transaction that begins with a check (a guarded write)
// and a plain create, and cuts the next transaction that creates: applied, its reply lost.
func TestProxyCutReplyAfterMulti(t *testing.T) {
	CheckGoroutines(t)
	c := Start(t)
	p := NewProxy(t, c.Member(0).Addr())
	conn, events := connect(t, []string{p.Addr()}, 2*time.Second, p.Dialer())
	if _, err := conn.Create("/m", nil, 0, acl); err != nil {
		t.Fatalf("create /m: %v", err)
	}
	p.CutReplyAfterMulti(OpCreate)
	if _, err := conn.Multi(&zk.CheckVersionRequest{Path: "/m", Version: -1},
		&zk.SetDataRequest{Path: "/m", Data: []byte("w"), Version: -1}); err != nil {
		t.Fatalf("a guarded write must not be cut: %v", err)
	}
	if _, err := conn.Create("/plain", nil, 0, acl); err != nil {
		t.Fatalf("a plain create must not be cut: %v", err)
	}
	if n := p.Cuts(); n != 0 {
		t.Fatalf("Cuts() = %d before the transaction that creates", n)
	}
	if _, err := conn.Multi(&zk.CreateRequest{Path: "/m/a", Acl: acl}, &zk.CreateRequest{Path: "/m/b", Acl: acl}); err == nil {
		t.Fatal("the transaction succeeded although its reply was cut")
	}
	waitState(t, events, zk.StateHasSession, 10*time.Second)
	for _, n := range []string{"/m/a", "/m/b"} {
		if ok, _, err := conn.Exists(n); err != nil || !ok {
			t.Fatalf("exists %s = %v, %v; want the transaction applied", n, ok, err)
		}
	}
	if n := p.Cuts(); n != 1 {
		t.Fatalf("Cuts() = %d, want 1", n)
	}
	if _, err := conn.Multi(&zk.CreateRequest{Path: "/m/c", Acl: acl}); err != nil {
		t.Fatalf("the cut must be one-shot: %v", err)
	}
}

func TestProxyDelayAndNotifications(t *testing.T) {
	CheckGoroutines(t)
	c := Start(t)
	p := NewProxy(t, c.Member(0).Addr())
	conn, _ := connect(t, []string{p.Addr()}, 5*time.Second, p.Dialer())
	_, _, watch, err := conn.ExistsW("/n")
	if err != nil {
		t.Fatalf("exists: %v", err)
	}
	n, err := c.Member(0).WatchCount(testCtx(t))
	if err != nil || n != 1 {
		t.Fatalf("WatchCount = %d, %v; want 1", n, err)
	}
	const d = 100 * time.Millisecond
	p.Delay(d)
	start := time.Now()
	if _, err := conn.Create("/n", nil, 0, acl); err != nil {
		t.Fatalf("create: %v", err)
	}
	if took := time.Since(start); took < 2*d {
		t.Fatalf("round trip took %v, want at least %v with Delay(%v)", took, 2*d, d)
	}
	select {
	case <-watch:
	case <-time.After(5 * time.Second):
		t.Fatal("no watch event")
	}
	if got := p.Notifications(); got != 1 {
		t.Fatalf("Notifications() = %d, want 1", got)
	}
	mntr, err := c.Member(0).Mntr(testCtx(t))
	if err != nil || mntr["zk_watch_count"] != "0" {
		t.Fatalf("mntr zk_watch_count = %q, %v", mntr["zk_watch_count"], err)
	}
}

// A client that has received a notification must see it counted: the count
// moves before the frame is written, never after.
func TestProxyCountsNotificationBeforeDelivery(t *testing.T) {
	c := Start(t)
	p := NewProxy(t, c.Member(0).Addr())
	watcher, _ := connect(t, []string{p.Addr()}, 5*time.Second, p.Dialer())
	writer, _ := connect(t, c.Servers(), 5*time.Second, nil)
	for i := 1; i <= 200; i++ {
		path := fmt.Sprintf("/count-%d", i)
		_, _, watch, err := watcher.ExistsW(path)
		if err != nil {
			t.Fatalf("exists %s: %v", path, err)
		}
		if _, err := writer.Create(path, nil, 0, acl); err != nil {
			t.Fatalf("create %s: %v", path, err)
		}
		select {
		case <-watch:
		case <-time.After(5 * time.Second):
			t.Fatalf("no watch event for %s", path)
		}
		if got := p.Notifications(); got != int64(i) {
			t.Fatalf("after notification %d was received, Notifications() = %d", i, got)
		}
	}
}

func TestExpireSession(t *testing.T) {
	CheckGoroutines(t)
	c := Start(t)
	p := NewProxy(t, c.Member(0).Addr())
	conn, events := connect(t, []string{p.Addr()}, 10*time.Second, p.Dialer())
	id, passwd := p.Session()
	if err := ExpireSession(testCtx(t), c.Member(0).Addr(), id, passwd); err != nil {
		t.Fatalf("ExpireSession: %v", err)
	}
	waitState(t, events, zk.StateExpired, 10*time.Second)
	waitState(t, events, zk.StateHasSession, 10*time.Second)
	if conn.SessionID() == id {
		t.Fatal("client kept the expired session id")
	}
	err := ExpireSession(testCtx(t), c.Member(0).Addr(), id, passwd)
	if !errors.Is(err, ErrNoSession) {
		t.Fatalf("second ExpireSession err = %v, want ErrNoSession", err)
	}
}
