package leader_test

import (
	"context"
	"errors"
	"fmt"
	"path"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/leader"
	"github.com/zkrecipes/zkrecipes/zktest"
)

var latchNode = regexp.MustCompile(`^_c_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-latch-[0-9]{10}$`)

// Curator's layout: one protected ephemeral-sequential latch- node whose data is the id (empty
// for ""), owned by the latch's session; Participants and Leader read the ids back.
func TestLatchLayoutAndParticipants(t *testing.T) {
	p := electionPath(t)
	fa, fb := zktest.Connect(t, srv), zktest.Connect(t, srv, framework.WithDefaultData([]byte("10.0.0.7")))
	if lead, err := leader.NewLatch(fa, p); err != nil {
		t.Fatal(err)
	} else if none, err := lead.Leader(ctxFor(t, 5*time.Second)); err != nil || none != (leader.Participant{}) {
		t.Fatalf("Leader of a missing path = %+v, %v; want the zero Participant", none, err)
	}
	a := mustLatch(t, fa, p, leader.WithID("alpha"))
	term := await(t, a, 10*time.Second)
	b := mustLatch(t, fb, p)
	zktest.Eventually(t, 10*time.Second, "b to queue", func() bool { return len(zktest.Children(t, fa, p)) == 2 })

	if !latchNode.MatchString(path.Base(term.Path())) || path.Dir(term.Path()) != p {
		t.Fatalf("leader node %q, want %s/_c_<uuid>-latch-<seq>", term.Path(), p)
	}
	data, st, err := fa.Get(ctxFor(t, 5*time.Second), term.Path())
	if err != nil || string(data) != "alpha" || st.EphemeralOwner != fa.SessionID() || term.SessionID() != st.EphemeralOwner {
		t.Fatalf("leader node data %q owner %x (%v), want \"alpha\" owned by %x; the term names session %x",
			data, st.EphemeralOwner, err, fa.SessionID(), term.SessionID())
	}
	parts, err := b.Participants(ctxFor(t, 5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 2 || parts[0] != (leader.Participant{ID: "alpha", Path: term.Path(), IsLeader: true}) ||
		parts[1].ID != "" || parts[1].IsLeader {
		t.Fatalf("participants %+v, want alpha leading, then an empty id (not the default data)", parts)
	}
	lead, err := b.Leader(ctxFor(t, 5*time.Second))
	if err != nil || lead != parts[0] {
		t.Fatalf("Leader = %+v, %v; want %+v", lead, err, parts[0])
	}
	if !a.HasLeadership() || b.HasLeadership() {
		t.Fatalf("HasLeadership a=%v b=%v, want true false", a.HasLeadership(), b.HasLeadership())
	}
	if tok := token(t, term); tok != st.Czxid {
		t.Fatalf("token %d, want the node's czxid %d", tok, st.Czxid)
	}
}

// Curator's testWaiting and testBasic: candidates started one after another lead in start
// order, one at a time, each after its predecessor closed; every node is gone at the end and
// no watch is left.
func TestLatchExclusionAndFairness(t *testing.T) {
	p := electionPath(t)
	const n = 5
	var (
		fws     []*framework.Framework
		latches []*leader.LeaderLatch
	)
	for i := 0; i < n; i++ {
		fw := zktest.Connect(t, srv)
		fws = append(fws, fw)
		latches = append(latches, mustLatch(t, fw, p, leader.WithID(fmt.Sprint(i))))
		zktest.Eventually(t, 10*time.Second, "the candidate to queue", func() bool { return len(zktest.Children(t, fw, p)) == i+1 })
	}
	var leaders zktest.Gauge
	order := make(chan string, n)
	var wg sync.WaitGroup
	var last sync.Mutex
	var lastToken int64
	for _, l := range latches {
		wg.Add(1)
		go func() {
			defer wg.Done()
			term, err := l.Await(ctxFor(t, 60*time.Second))
			if err != nil {
				t.Errorf("Await(%s): %v", l.ID(), err)
				return
			}
			leaders.Enter()
			order <- l.ID()
			tok, err := term.Token(ctxFor(t, 10*time.Second))
			last.Lock()
			if err != nil || tok <= lastToken {
				t.Errorf("token %d (%v) not above the previous leader's %d", tok, err, lastToken)
			}
			lastToken = tok
			last.Unlock()
			leaders.Leave()
			if err := l.Close(ctxFor(t, 10*time.Second)); err != nil {
				t.Errorf("Close(%s): %v", l.ID(), err)
			}
		}()
	}
	wg.Wait()
	close(order)
	i := 0
	for id := range order {
		if id != fmt.Sprint(i) {
			t.Fatalf("leader #%d was %s, want %d (start order)", i, id, i)
		}
		i++
	}
	if i != n || leaders.Max() != 1 {
		t.Fatalf("%d leaders, at most %d at once; want %d, 1", i, leaders.Max(), n)
	}
	zktest.Eventually(t, 10*time.Second, "no nodes", func() bool { return len(zktest.Children(t, fws[0], p)) == 0 })
	zktest.CheckNoWatches(t, srv, fws...)
}

// Curator's testCorrectWatching: closing a waiting candidate does not elect the one behind it.
func TestLatchClosingWaiterElectsNobody(t *testing.T) {
	p := electionPath(t)
	fw := zktest.Connect(t, srv)
	a := mustLatch(t, fw, p, leader.WithID("a"))
	await(t, a, 10*time.Second)
	b := mustLatch(t, zktest.Connect(t, srv), p, leader.WithID("b"))
	zktest.Eventually(t, 10*time.Second, "b to queue", func() bool { return len(zktest.Children(t, fw, p)) == 2 })
	c := mustLatch(t, zktest.Connect(t, srv), p, leader.WithID("c"))
	zktest.Eventually(t, 10*time.Second, "c to queue", func() bool { return len(zktest.Children(t, fw, p)) == 3 })
	if err := b.Close(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	zktest.Eventually(t, 10*time.Second, "b's node to go", func() bool { return len(zktest.Children(t, fw, p)) == 2 })
	if _, err := c.Await(ctxFor(t, 300*time.Millisecond)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("c's Await while a leads: %v, want a timeout", err)
	}
	if !a.HasLeadership() || c.HasLeadership() {
		t.Fatal("closing a waiter moved leadership")
	}
	if err := a.Close(ctxFor(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	await(t, c, 10*time.Second)
}

// Curator's testCallbackNotifyLeader/DontNotify: listeners hear each flip once; CloseSilent
// says nothing, CloseNotifyLeader says NotLeader; a listener may close its own latch.
func TestLatchListeners(t *testing.T) {
	for _, tc := range []struct {
		name string
		mode leader.CloseMode
		want []string
	}{
		{"silent", leader.CloseSilent, []string{"leader"}},
		{"notify", leader.CloseNotifyLeader, []string{"leader", "not"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := electionPath(t)
			l, err := leader.NewLatch(zktest.Connect(t, srv), p, leader.WithCloseMode(tc.mode))
			if err != nil {
				t.Fatal(err)
			}
			events := make(chan string, 4)
			l.AddListener(leader.Listener{
				IsLeader: func() {
					events <- "leader"
					go l.Close(context.Background()) // closing from a listener must not deadlock
				},
				NotLeader: func() { events <- "not" },
			})
			if err := l.Start(); err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.want {
				got := zktest.Receive(t, events, 10*time.Second, fmt.Sprintf("a %q event", want))
				if got != want {
					t.Fatalf("event %q, want %q", got, want)
				}
			}
			zktest.Eventually(t, 10*time.Second, "closed", func() bool { return l.State() == leader.Closed })
			select {
			case got := <-events:
				t.Fatalf("extra event %q", got)
			case <-time.After(200 * time.Millisecond):
			}
		})
	}
}

// A listener that calls Close synchronously (on the listener goroutine) does not deadlock, and
// Await, Start and Close report the life cycle.
func TestLatchCloseFromListenerAndLifeCycle(t *testing.T) {
	p := electionPath(t)
	fw := zktest.Connect(t, srv)
	l, err := leader.NewLatch(fw, p, leader.WithCloseMode(leader.CloseNotifyLeader))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Await(ctxFor(t, time.Second)); !errors.Is(err, leader.ErrNotStarted) {
		t.Fatalf("Await before Start: %v, want ErrNotStarted", err)
	}
	closed := make(chan error, 1)
	l.AddListener(leader.Listener{IsLeader: func() { closed <- l.Close(ctxFor(t, 10*time.Second)) }})
	if err := l.Start(); err != nil {
		t.Fatal(err)
	}
	if err := l.Start(); !errors.Is(err, leader.ErrAlreadyStarted) {
		t.Fatalf("second Start: %v, want ErrAlreadyStarted", err)
	}
	if err := zktest.Receive(t, closed, 15*time.Second, "Close from a listener to return"); err != nil {
		t.Fatalf("Close from a listener: %v", err)
	}
	if _, err := l.Await(ctxFor(t, time.Second)); !errors.Is(err, leader.ErrClosed) {
		t.Fatalf("Await after Close: %v, want ErrClosed", err)
	}
	if err := l.Close(ctxFor(t, time.Second)); !errors.Is(err, leader.ErrClosed) {
		t.Fatalf("second Close: %v, want ErrClosed", err)
	}
	if err := l.Start(); !errors.Is(err, leader.ErrClosed) {
		t.Fatalf("Start after Close: %v, want ErrClosed", err)
	}
	zktest.Eventually(t, 10*time.Second, "no nodes", func() bool { return len(zktest.Children(t, fw, p)) == 0 })
	zktest.CheckNoWatches(t, srv, fw)
}

// Bad arguments are errors that name them, never panics.
func TestLatchBadArguments(t *testing.T) {
	fw := zktest.Connect(t, srv)
	for _, tc := range []struct {
		name string
		fw   *framework.Framework
		path string
		opts []leader.Option
		want error
	}{
		{"nil framework", nil, "/x", nil, leader.ErrInvalidArgument},
		{"relative path", fw, "x", nil, framework.ErrInvalidPath},
		{"root", fw, "/", nil, framework.ErrInvalidPath},
		{"nil option", fw, "/x", []leader.Option{nil}, leader.ErrInvalidArgument},
		{"bad close mode", fw, "/x", []leader.Option{leader.WithCloseMode(7)}, leader.ErrInvalidArgument},
		{"auto requeue", fw, "/x", []leader.Option{leader.WithAutoRequeue()}, leader.ErrInvalidArgument},
		{"loss grace", fw, "/x", []leader.Option{leader.WithLossGrace(time.Second)}, leader.ErrInvalidArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := leader.NewLatch(tc.fw, tc.path, tc.opts...); !errors.Is(err, tc.want) {
				t.Fatalf("NewLatch: %v, want %v", err, tc.want)
			}
		})
	}
}
