package zktest_test

import (
	"context"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// Faults on one client's connection: a Proxy in front of the server drops the connection (the
// client reconnects with the same session), and ExpireSession ends the session for real (the
// client is told, then opens a new one). In a test, zktest.Start(t) and zktest.NewProxy(t, addr)
// do the same and t.Cleanup closes them; outside a test, Launch and OpenProxy leave it to you.
func Example() {
	c, err := zktest.Launch()
	if err != nil {
		fmt.Println(err) // mentions "apt-get install -y zookeeper" if it is missing
		return
	}
	defer c.Close()
	p, err := zktest.OpenProxy(c.Member(0).Addr())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()

	conn, events, err := zk.Connect([]string{c.Member(0).Addr()}, 4*time.Second,
		zk.WithDialer(p.Dialer()), zk.WithLogger(quiet{}))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer conn.Close()
	fmt.Println("session:", awaitState(events, zk.StateHasSession))
	first := conn.SessionID()

	p.DropConnections()
	fmt.Println("dropped:", awaitState(events, zk.StateDisconnected))
	fmt.Println("back:", awaitState(events, zk.StateHasSession), "same session:", conn.SessionID() == first)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	id, passwd := p.Session()
	if err := zktest.ExpireSession(ctx, c.Member(0).Addr(), id, passwd); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("expired:", awaitState(events, zk.StateExpired))
	fmt.Println("new:", awaitState(events, zk.StateHasSession), "same session:", conn.SessionID() == first)
	// Output:
	// session: StateHasSession
	// dropped: StateDisconnected
	// back: StateHasSession same session: true
	// expired: StateExpired
	// new: StateHasSession same session: false
}

// Outside tests (demos, benchmarks), Launch returns a server the caller closes.
func ExampleLaunch() {
	c, err := zktest.Launch(zktest.WithForceSync(true))
	if err != nil {
		fmt.Println(err) // mentions "apt-get install -y zookeeper" if it is missing
		return
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	mode, err := c.Member(0).Mode(ctx) // c.ConnectString() is what clients dial
	fmt.Println("servers:", c.Size(), "mode:", mode, err)
	// Output:
	// servers: 1 mode: standalone <nil>
}

// A three-server ensemble; kill the leader and wait until the two left elect another. In a test,
// zktest.StartEnsemble(t, 3) starts it and t.Cleanup stops it.
func ExampleLaunchEnsemble() {
	c, err := zktest.LaunchEnsemble(3)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	old := leaderOf(c)
	fmt.Println("leader found:", old >= 0)
	if old < 0 {
		return
	}
	_ = c.Member(old).Kill() // SIGKILL; also Stop, Pause, Resume, Restart
	deadline := time.Now().Add(30 * time.Second)
	now := leaderOf(c)
	for now < 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond) // a server's role is polled: there is no event to await
		now = leaderOf(c)
	}
	fmt.Println("new leader:", now >= 0 && now != old)
	// Output:
	// leader found: true
	// new leader: true
}

// Expire ends a framework's session on the server for real, as Curator's KillSession: the
// framework reports Lost, then opens a new session.
func ExampleExpire() {
	c, err := zktest.Launch()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	fw, err := framework.New(c.Servers(), framework.WithSessionTimeout(4*time.Second))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer fw.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := fw.WaitConnected(ctx); err != nil {
		fmt.Println(err)
		return
	}
	lost := make(chan struct{}, 1)
	remove := fw.AddListener(func(s framework.ConnectionState) {
		if s == framework.Lost {
			select {
			case lost <- struct{}{}:
			default:
			}
		}
	})
	defer remove()
	first := fw.Session().ID()
	if err := zktest.Expire(ctx, c, fw); err != nil {
		fmt.Println(err)
		return
	}
	select {
	case <-lost:
		fmt.Println("lost")
	case <-ctx.Done():
		fmt.Println("no Lost within 20s")
		return
	}
	if err := fw.WaitConnected(ctx); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("new session:", fw.Session().ID() != first)
	// Output:
	// lost
	// new session: true
}

// awaitState returns want once events delivers it, or says what came instead within 20 s.
func awaitState(events <-chan zk.Event, want zk.State) string {
	limit := time.After(20 * time.Second)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return "events closed"
			}
			if ev.Type == zk.EventSession && ev.State == want {
				return want.String()
			}
		case <-limit:
			return "no " + want.String() + " within 20s"
		}
	}
}

// leaderOf returns the index of the running member in the leader role, or -1.
func leaderOf(c *zktest.Cluster) int {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for i := range c.Size() {
		if m := c.Member(i); m.Running() {
			if mode, err := m.Mode(ctx); err == nil && mode == "leader" {
				return i
			}
		}
	}
	return -1
}

// quiet drops go-zookeeper's log lines.
type quiet struct{}

func (quiet) Printf(string, ...any) {}
