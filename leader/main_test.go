package leader_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/leader"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// srv is the one server the tests share; it starts before the leak check's snapshot.
var srv *zktest.Cluster

func TestMain(m *testing.M) {
	c, err := zktest.Launch(zktest.WithContainerCheckInterval(200 * time.Millisecond))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	srv = c
	code := zktest.VerifyNoLeaks(m)
	c.Close()
	os.Exit(code)
}

// connect returns a connected framework on the shared server, closed at cleanup.
func connect(t testing.TB, opts ...framework.Option) *framework.Framework {
	t.Helper()
	opts = append([]framework.Option{framework.WithSessionTimeout(4 * time.Second)}, opts...)
	fw, err := framework.New(srv.Servers(), opts...)
	if err != nil {
		t.Fatalf("framework.New: %v", err)
	}
	t.Cleanup(func() { fw.Close() })
	if err := fw.WaitConnected(ctxFor(t, 20*time.Second)); err != nil {
		t.Fatalf("WaitConnected: %v", err)
	}
	return fw
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// electionPath returns a path unique to this test run.
func electionPath(t testing.TB) string {
	b := make([]byte, 4)
	rand.Read(b)
	return "/elections/" + unsafeChars.ReplaceAllString(strings.ToLower(t.Name()), "-") + "-" + hex.EncodeToString(b)
}

// ctxFor returns a bounded context for one test step.
func ctxFor(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// children lists p's children (none when p is missing).
func children(t testing.TB, fw *framework.Framework, p string) []string {
	t.Helper()
	kids, _, err := fw.Children(ctxFor(t, 10*time.Second), p)
	if err != nil && err != framework.ErrNoNode {
		t.Fatalf("Children(%s): %v", p, err)
	}
	return kids
}

// eventually polls cond until it holds or the bound passes.
func eventually(t testing.TB, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", limit, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// noWatches checks that no watch is left, on the clients and on the server.
func noWatches(t testing.TB, fws ...*framework.Framework) {
	t.Helper()
	eventually(t, 10*time.Second, "no client watches", func() bool {
		for _, fw := range fws {
			if fw.Watches() != 0 {
				return false
			}
		}
		return true
	})
	eventually(t, 10*time.Second, "no server watches", func() bool {
		n, err := srv.Member(0).WatchCount(ctxFor(t, 5*time.Second))
		return err == nil && n == 0
	})
}

// gauge counts leaders at once and remembers the most seen.
type gauge struct{ cur, most atomic.Int32 }

func (g *gauge) enter() {
	now := g.cur.Add(1)
	for old := g.most.Load(); now > old && !g.most.CompareAndSwap(old, now); old = g.most.Load() {
	}
}

func (g *gauge) leave() { g.cur.Add(-1) }

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
