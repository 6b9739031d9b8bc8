package zktest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// connect opens a go-zookeeper client and waits for its session.
// A non-nil dialer routes the client through a Proxy.
func connect(t *testing.T, servers []string, timeout time.Duration, dialer zk.Dialer) (*zk.Conn, <-chan zk.Event) {
	t.Helper()
	conn, events, err := zk.Connect(servers, timeout, zk.WithLogger(nopLogger{}), withDialer(dialer))
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(conn.Close)
	waitState(t, events, zk.StateHasSession, 10*time.Second)
	return conn, events
}

func withDialer(d zk.Dialer) func(*zk.Conn) {
	if d == nil {
		return func(*zk.Conn) {}
	}
	return zk.WithDialer(d)
}

// waitState reads events until one has state want, or fails after d.
func waitState(t *testing.T, events <-chan zk.Event, want zk.State, d time.Duration) {
	t.Helper()
	deadline := time.After(d)
	for {
		select {
		case ev := <-events:
			if ev.State == want {
				return
			}
		case <-deadline:
			t.Fatalf("no %v event within %v", want, d)
		}
	}
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestStartStop(t *testing.T) {
	c := Start(t)
	m := c.Member(0)
	conn, _ := connect(t, c.Servers(), 2*time.Second, nil)
	if _, err := conn.Create("/x", []byte("v"), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatalf("create: %v", err)
	}
	mode, err := m.Mode(testCtx(t))
	if err != nil || mode != "standalone" {
		t.Fatalf("mode = %q, %v", mode, err)
	}
	if err := m.Stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if m.Running() {
		t.Fatal("still running after Stop")
	}
	if _, err := m.FourLetter(testCtx(t), "ruok"); err == nil {
		t.Fatal("ruok answered after Stop")
	}
	if err := m.Restart(testCtx(t)); err != nil {
		t.Fatalf("restart: %v", err)
	}
	if _, _, err := conn.Get("/x"); err != nil {
		t.Fatalf("get after restart (data dir kept): %v", err)
	}
}

func TestPausedMemberStops(t *testing.T) {
	CheckGoroutines(t)
	c := Start(t, WithStopGrace(time.Second))
	m := c.Member(0)
	if err := m.Pause(); err != nil {
		t.Fatalf("pause: %v", err)
	}
	if err := m.Stop(); err != nil {
		t.Fatalf("stop paused: %v", err)
	}
	if m.Running() || m.Pid() != 0 {
		t.Fatal("still running")
	}
	if err := m.Resume(); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("resume stopped member: %v, want ErrNotRunning", err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
}

func TestStartFailureReportsLog(t *testing.T) {
	CheckGoroutines(t)
	_, err := Launch(WithJVMFlags("-XX:NoSuchOption"), WithStartTimeout(10*time.Second))
	if !errors.Is(err, ErrStart) || !strings.Contains(err.Error(), "NoSuchOption") {
		t.Fatalf("err = %v, want ErrStart with the JVM's complaint", err)
	}
}

func TestPortTakenIsDetected(t *testing.T) {
	CheckGoroutines(t)
	c := Start(t)
	inst, err := findInstallation()
	if err != nil {
		t.Fatal(err)
	}
	cfg := buildConfig([]Option{WithStartTimeout(10 * time.Second)})
	clash, err := newCluster(1, inst, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer clash.Close()
	m := clash.Member(0)
	m.clientPort = c.Member(0).clientPort
	if err := m.writeFiles(clash.members); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.startTimeout)
	defer cancel()
	if err := clash.startAll(ctx); !errors.Is(err, ErrStart) {
		t.Fatalf("start on a taken port: %v, want ErrStart", err)
	}
	if !clash.portTaken() {
		t.Fatalf("portTaken() = false; log:\n%s", logTail(m.logPath, 10))
	}
}
