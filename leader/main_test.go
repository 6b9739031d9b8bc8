package leader_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/leader"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// srv is the one server the tests share; it starts before the leak check's snapshot.
var srv *zktest.Cluster

func TestMain(m *testing.M) {
	os.Exit(zktest.Main(m, &srv, zktest.WithContainerCheckInterval(200*time.Millisecond)))
}

// electionPath returns a path unique to this test run.
func electionPath(t testing.TB) string { return zktest.UniquePath(t, "/elections") }

// ctxFor returns a bounded context for one test step.
func ctxFor(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// mustLatch returns a started latch on p, closed (silently) at cleanup.
func mustLatch(t testing.TB, fw *framework.Framework, p string, opts ...leader.Option) *leader.LeaderLatch {
	t.Helper()
	l, err := leader.NewLatch(fw, p, opts...)
	if err != nil {
		t.Fatalf("NewLatch: %v", err)
	}
	if err := l.Start(); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { l.Close(context.Background()) })
	return l
}

// await waits for l's term, failing the test after d.
func await(t testing.TB, l *leader.LeaderLatch, d time.Duration) *leader.Term {
	t.Helper()
	term, err := l.Await(ctxFor(t, d))
	if err != nil {
		t.Fatalf("Await(%s): %v", l.ID(), err)
	}
	return term
}

// token reads a term's fencing token.
func token(t testing.TB, term *leader.Term) int64 {
	t.Helper()
	n, err := term.Token(ctxFor(t, 10*time.Second))
	if err != nil {
		t.Fatalf("Token: %v", err)
	}
	return n
}

// receive returns the next value on ch, or fails the test after 20 s, the package's bound for an
// event (zktest.Receive with a bound of the test's own where the bound matters).
func receive[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	return zktest.Receive(t, ch, 20*time.Second, what)
}

// expireSession expires session id (password pw) for real on the shared server, or fails the
// test.
func expireSession(t testing.TB, id int64, pw []byte) {
	t.Helper()
	if err := zktest.ExpireSession(ctxFor(t, 10*time.Second), srv.Servers()[0], id, pw); err != nil {
		t.Fatal(err)
	}
}
