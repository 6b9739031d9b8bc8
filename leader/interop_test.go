package leader_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/interop"
	"github.com/zkrecipes/zkrecipes/leader"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// javaSession is the Curator candidates' session timeout: short, so a killed JVM's session
// expires quickly.
const javaSession = 4 * time.Second

// startJava starts a JVM with one Curator 5.4 client for leader recipes, closed at cleanup.
func startJava(t *testing.T) *interop.CuratorLeaderProcess {
	t.Helper()
	j, err := interop.StartCuratorLeader(ctxFor(t, 90*time.Second), strings.Join(srv.Servers(), ","), javaSession)
	if errors.Is(err, interop.ErrCuratorMissing) || errors.Is(err, interop.ErrJavaMissing) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatalf("starting the Curator leader process: %v", err)
	}
	t.Cleanup(func() { j.Close() })
	return j
}

// javaLatchLeads starts the Java LeaderLatch "j1" (id "java-1") on p, alone there, and waits
// (20 s at most) for it to lead.
func javaLatchLeads(t *testing.T, ctx context.Context, java *interop.CuratorLeaderProcess, p string) {
	t.Helper()
	if err := java.LatchStart(ctx, "j1", p, "java-1"); err != nil {
		t.Fatal(err)
	}
	if ok, err := java.LatchAwait(ctx, "j1", 20*time.Second); err != nil || !ok {
		t.Fatalf("Java latch never led: %v %v", ok, err)
	}
}

// leaders counts who leads now: Java candidates by asking them, Go ones by HasLeadership.
type leaders struct {
	t     *testing.T
	java  func() (bool, error)
	goers map[string]interface{ HasLeadership() bool }
}

// only waits until exactly the named candidate leads ("java" or a Go name), and fails if two
// lead at once. One observation asks the candidates one after another, so a handoff between two
// answers shows the old leader and the new one both leading though they never overlapped: a
// candidate seen leading is asked again after the others, and two leaders are reported only if
// it still leads then, its leadership spanning the others' answers.
func (l leaders) only(want string) {
	l.t.Helper()
	zktest.Eventually(l.t, 30*time.Second, want+" alone to lead", func() bool {
		who := l.leading()
		if len(who) > 1 && l.leads(who[0]) {
			l.t.Fatalf("two leaders at once: %v", who)
		}
		return len(who) == 1 && who[0] == want
	})
}

// leading returns who leads now, asked in a fixed order: Java, then the Go candidates by name.
func (l leaders) leading() []string {
	names := []string{"java"}
	for name := range l.goers {
		names = append(names, name)
	}
	slices.Sort(names[1:])
	var who []string
	for _, name := range names {
		if l.leads(name) {
			who = append(who, name)
		}
	}
	return who
}

// leads asks one candidate whether it leads.
func (l leaders) leads(name string) bool {
	if name != "java" {
		return l.goers[name].HasLeadership()
	}
	ok, err := l.java()
	if err != nil {
		l.t.Fatalf("asking Java: %v", err)
	}
	return ok
}

// Java and Go LeaderLatch candidates on one path elect one leader at a time, in FIFO order;
// leadership moves when the leader closes, when its session expires (Go, for real), and when
// its process is killed (Java).
func TestInteropLatch(t *testing.T) {
	p := electionPath(t)
	java := startJava(t)
	jctx := ctxFor(t, 120*time.Second)
	javaLatchLeads(t, jctx, java, p)
	proxy := zktest.NewProxy(t, srv.Servers()[0])
	f1 := zktest.Connect(t, srv, framework.WithDialer(proxy.Dialer()))
	f2 := zktest.Connect(t, srv)
	g1 := mustLatch(t, f1, p, leader.WithID("go-1"))
	zktest.Eventually(t, 10*time.Second, "g1 to queue", func() bool { return len(zktest.Children(t, f2, p)) == 2 })
	g2 := mustLatch(t, f2, p, leader.WithID("go-2"))
	zktest.Eventually(t, 10*time.Second, "g2 to queue", func() bool { return len(zktest.Children(t, f2, p)) == 3 })
	javaName := "j1"
	ls := leaders{t: t, java: func() (bool, error) { return java.LatchHasLeadership(jctx, javaName) },
		goers: map[string]interface{ HasLeadership() bool }{"g1": g1, "g2": g2}}
	ls.only("java")
	if lead, err := g2.Leader(ctxFor(t, 5*time.Second)); err != nil || lead.ID != "java-1" {
		t.Fatalf("Go sees leader %+v (%v), want java-1", lead, err)
	}
	if ps, err := g2.Participants(ctxFor(t, 5*time.Second)); err != nil || len(ps) != 3 || ps[1].ID != "go-1" || ps[2].ID != "go-2" {
		t.Fatalf("Go sees participants %+v (%v), want java-1, go-1, go-2", ps, err)
	}

	// The Java leader closes: the first Go candidate leads; a new Java latch queues last.
	if err := java.LatchClose(jctx, "j1"); err != nil {
		t.Fatal(err)
	}
	await(t, g1, 20*time.Second)
	javaName = "j2"
	if err := java.LatchStart(jctx, "j2", p, "java-2"); err != nil {
		t.Fatal(err)
	}
	ls.only("g1")
	if id, err := java.LatchLeader(jctx, "j2"); err != nil || id != "go-1" {
		t.Fatalf("Java sees leader %q (%v), want go-1", id, err)
	}

	// The Go leader's session expires: the next Go candidate leads; g1 re-enters behind Java.
	id, pw := proxy.Session()
	expireSession(t, id, pw)
	// A forced expiry: g1 hears of it at its next contact (see TestInteropSelector).
	zktest.Eventually(t, 20*time.Second, "g1 to hear of its expiry", func() bool { return !g1.HasLeadership() })
	ls.only("g2")
	zktest.Eventually(t, 20*time.Second, "g1 to re-enter", func() bool {
		ps, err := g2.Participants(ctxFor(t, 5*time.Second))
		return err == nil && len(ps) == 3 && ps[2].ID == "go-1"
	})

	// The Go leader closes: Java leads.
	if err := g2.Close(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	ls.only("java")

	// The Java process is killed: after its session expires, g1 leads.
	java.Kill()
	javaName = ""
	ls.java = func() (bool, error) { return false, nil }
	await(t, g1, 30*time.Second)
	ls.only("g1")
	if err := g1.Close(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	zktest.Eventually(t, 10*time.Second, "no nodes", func() bool { return len(zktest.Children(t, f2, p)) == 0 })
}

// Java and Go LeaderSelector candidates share one election (an InterProcessMutex at the path):
// one leader at a time, FIFO with auto-requeue; leadership moves when the leader returns from
// its takeover, when its session expires (Java, for real), when it closes (Go), and when its
// process is killed (Java).
func TestInteropSelector(t *testing.T) {
	p := electionPath(t)
	java := startJava(t)
	jctx := ctxFor(t, 120*time.Second)
	if err := java.SelectorStart(jctx, "j", p, "java", true); err != nil {
		t.Fatal(err)
	}
	if ok, err := java.SelectorAwait(jctx, "j", 20*time.Second); err != nil || !ok {
		t.Fatalf("Java selector never led: %v %v", ok, err)
	}
	f1, f2 := zktest.Connect(t, srv), zktest.Connect(t, srv)
	yield1, yield2 := make(chan struct{}, 4), make(chan struct{}, 4)
	hold := func(yield chan struct{}) leader.TakeoverFunc {
		return func(ctx context.Context, _ *leader.Term) error {
			select {
			case <-yield:
			case <-ctx.Done():
			}
			return nil
		}
	}
	g1 := mustSelector(t, f1, p, hold(yield1), leader.WithID("go-1"), leader.WithAutoRequeue())
	zktest.Eventually(t, 10*time.Second, "g1 to queue", func() bool { return len(zktest.Children(t, f2, p)) == 2 })
	g2 := mustSelector(t, f2, p, hold(yield2), leader.WithID("go-2"), leader.WithAutoRequeue())
	zktest.Eventually(t, 10*time.Second, "g2 to queue", func() bool { return len(zktest.Children(t, f2, p)) == 3 })
	javaLeads := func() (bool, error) { return java.SelectorLeading(jctx, "j") }
	ls := leaders{t: t, java: javaLeads, goers: map[string]interface{ HasLeadership() bool }{"g1": g1, "g2": g2}}
	ls.only("java")
	if lead, err := g1.Leader(ctxFor(t, 5*time.Second)); err != nil || lead.ID != "java" {
		t.Fatalf("Go sees leader %+v (%v), want java", lead, err)
	}

	// Each leader returns in turn: g1, g2, then Java again (it re-queued behind them).
	if err := java.SelectorYield(jctx, "j"); err != nil {
		t.Fatal(err)
	}
	ls.only("g1")
	yield1 <- struct{}{}
	ls.only("g2")
	yield2 <- struct{}{}
	ls.only("java")
	if n, err := java.SelectorTerms(jctx, "j"); err != nil || n != 2 {
		t.Fatalf("Java led %d times (%v), want 2", n, err)
	}

	// The Java leader's session expires: Curator cancels its takeLeadership, g1 leads.
	id, pw, err := java.Session(jctx)
	if err != nil {
		t.Fatal(err)
	}
	expireSession(t, id, pw)
	// A forced expiry ends the session on the server before its client can know: the client
	// hears of it at its next contact, moments later. Wait for that before counting leaders.
	zktest.Eventually(t, 20*time.Second, "Java to hear of its expiry", func() bool {
		ok, err := javaLeads()
		return err == nil && !ok
	})
	ls.only("g1")

	// The Go leader closes: g2 leads.
	if err := g1.Close(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	delete(ls.goers, "g1")
	ls.only("g2")
	zktest.Eventually(t, 20*time.Second, "Java to queue again", func() bool { return len(zktest.Children(t, f2, p)) == 2 })

	// g2 returns, Java leads; then the JVM is killed: g2 leads once its session expires.
	yield2 <- struct{}{}
	ls.only("java")
	java.Kill()
	ls.java = func() (bool, error) { return false, nil }
	ls.only("g2")
	if err := g2.Close(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	zktest.Eventually(t, 10*time.Second, "no nodes", func() bool { return len(zktest.Children(t, f2, p)) == 0 })
}
