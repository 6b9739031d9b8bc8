package interop

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/zkrecipes/zkrecipes/zktest"
)

var (
	servers  string
	pathSeq  atomic.Int64
	lockNode = regexp.MustCompile(`^_c_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-lock-[0-9]{10}$`)
)

func TestMain(m *testing.M) {
	cluster, err := zktest.Launch()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	servers = cluster.ConnectString()
	base := runtime.NumGoroutine()
	code := m.Run()
	if code == 0 && !goroutinesSettle(base) {
		fmt.Fprintf(os.Stderr, "leaked goroutines: %d > %d\n", runtime.NumGoroutine(), base)
		code = 1
	}
	cluster.Close()
	os.Exit(code)
}

// goroutinesSettle waits (bounded) for the goroutine count to fall back to base.
func goroutinesSettle(base int) bool {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if runtime.NumGoroutine() <= base {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// uniquePath returns a fresh lock path for one test.
func uniquePath(t *testing.T) string {
	return fmt.Sprintf("/interop/%s-%d", strings.ReplaceAll(t.Name(), "/", "_"), pathSeq.Add(1))
}

func startCurator(t *testing.T) *CuratorProcess {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	c, err := StartCurator(ctx, servers)
	if errors.Is(err, ErrCuratorMissing) || errors.Is(err, ErrJavaMissing) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func connectGo(t *testing.T) *zk.Conn {
	t.Helper()
	conn, ev, err := zk.Connect([]string{servers}, 30*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	deadline := time.After(20 * time.Second)
	for conn.State() != zk.StateHasSession {
		select {
		case <-ev:
		case <-deadline:
			t.Fatal("go-zookeeper did not connect")
		}
	}
	go func() { // drain session events until Close closes the channel
		for range ev {
		}
	}()
	return conn
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// createContender creates a protected ephemeral-sequential node name under dir, first
// recreating dir as a container if the server has reaped it meanwhile (a lock directory
// emptied by a release is a container the server may delete at any moment).
func createContender(t *testing.T, conn *zk.Conn, dir, name string, data []byte) string {
	t.Helper()
	for range 3 {
		node, err := conn.CreateProtectedEphemeralSequential(dir+"/"+name, data, zk.WorldACL(zk.PermAll))
		if !errors.Is(err, zk.ErrNoNode) {
			if err != nil {
				t.Fatal(err)
			}
			return node
		}
		if _, err := conn.CreateContainer(dir, nil, zk.FlagContainer, zk.WorldACL(zk.PermAll)); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			t.Fatal(err)
		}
	}
	t.Fatalf("could not create a contender under %s", dir)
	return ""
}
