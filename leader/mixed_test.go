package leader_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/leader"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// startSelector starts a selector on p whose takeover holds until its ctx ends; its
// framework logs to the returned buffer.
func startSelector(t *testing.T, p string) (*leader.LeaderSelector, *zktest.LogBuffer) {
	t.Helper()
	logs := &zktest.LogBuffer{}
	fw := zktest.Connect(t, srv, framework.WithLogger(slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))))
	s, err := leader.NewSelector(fw, p, func(ctx context.Context, _ *leader.Term) error {
		<-ctx.Done()
		return nil
	}, leader.WithID("go-selector"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	return s, logs
}

// refused waits until the selector logged that another recipe owns its path, and checks that
// it leaves no node of its own there.
func refused(t *testing.T, s *leader.LeaderSelector, logs *zktest.LogBuffer, owner string) {
	t.Helper()
	zktest.Eventually(t, 20*time.Second, "the selector to refuse the path", func() bool {
		return logs.Contains(recipes.ErrMixedRecipes.Error()) && logs.Contains(owner)
	})
	if s.HasLeadership() {
		t.Fatal("the selector leads beside another recipe")
	}
	zktest.Eventually(t, 10*time.Second, "the selector's node to go", func() bool {
		ps, err := s.Participants(ctxFor(t, 10*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			if p.ID == "go-selector" {
				return false
			}
		}
		return true
	})
}

// Issue 17.9: a LeaderLatch and a LeaderSelector on one path do not see each other's order
// ("latch-" against "lock-" nodes): on the old code both led, silently. Whichever comes second
// must fail with ErrMixedRecipes naming the recipe that owns the path, and never lead.
func TestLatchAndSelectorOnOnePathRefuseToBothLead(t *testing.T) {
	t.Run("latch first", func(t *testing.T) {
		p := electionPath(t)
		l := mustLatch(t, zktest.Connect(t, srv), p, leader.WithID("go-latch"))
		await(t, l, 20*time.Second)
		s, logs := startSelector(t, p)
		refused(t, s, logs, recipes.KindLatch)
		if !l.HasLeadership() {
			t.Fatal("the latch lost its leadership")
		}
	})
	t.Run("selector first", func(t *testing.T) {
		p := electionPath(t)
		s, _ := startSelector(t, p)
		zktest.Eventually(t, 20*time.Second, "the selector to lead", s.HasLeadership)
		l := mustLatch(t, zktest.Connect(t, srv), p, leader.WithID("go-latch"))
		_, err := l.Await(ctxFor(t, 20*time.Second))
		if !errors.Is(err, recipes.ErrMixedRecipes) || !errors.Is(err, leader.ErrStopped) || !strings.Contains(err.Error(), recipes.KindMutex) {
			t.Fatalf("latch Await beside a selector: %v, want ErrStopped and ErrMixedRecipes naming %q", err, recipes.KindMutex)
		}
		if l.HasLeadership() || !s.HasLeadership() {
			t.Fatalf("latch leads: %v, selector leads: %v", l.HasLeadership(), s.HasLeadership())
		}
	})
}

// The same against Curator 5.4: a Java LeaderLatch leads; a Go selector on its path refuses
// to lead, and the Java latch keeps its leadership.
func TestInteropCuratorLatchBesideGoSelector(t *testing.T) {
	p := electionPath(t)
	java := startJava(t)
	jctx := ctxFor(t, 120*time.Second)
	javaLatchLeads(t, jctx, java, p)
	s, logs := startSelector(t, p)
	refused(t, s, logs, recipes.KindLatch)
	if ok, err := java.LatchAwait(jctx, "j1", time.Second); err != nil || !ok {
		t.Fatalf("the Java latch lost its leadership: %v %v", ok, err)
	}
}
