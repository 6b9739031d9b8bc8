package leader_test

import (
	"context"
	"fmt"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/leader"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// Two latches on one path: the first started leads; when it closes, the other takes over.
func ExampleLeaderLatch() {
	zk, err := zktest.Launch() // a real ZooKeeper on 127.0.0.1
	if err != nil {
		fmt.Println(err)
		return
	}
	defer zk.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	var latches []*leader.LeaderLatch
	for _, id := range []string{"node-a", "node-b"} {
		fw, err := framework.New(zk.Servers()) // one session per candidate
		if err != nil {
			fmt.Println(err)
			return
		}
		defer fw.Close()
		l, err := leader.NewLatch(fw, "/services/billing/leader", leader.WithID(id))
		if err != nil {
			fmt.Println(err)
			return
		}
		if err := l.Start(); err != nil {
			fmt.Println(err)
			return
		}
		latches = append(latches, l)
		if id == "node-a" {
			l.Await(ctx) // let node-a lead first
		}
	}
	a, b := latches[0], latches[1]
	term, _ := a.Await(ctx)
	lead, _ := b.Leader(ctx)
	fmt.Println("leader:", lead.ID, "a leads:", a.HasLeadership(), "b leads:", b.HasLeadership())
	a.Close(ctx)
	<-term.Done() // the term of a ends with Close (or when a's session is suspended or lost)
	if _, err := b.Await(ctx); err != nil {
		fmt.Println(err)
		return
	}
	lead, _ = b.Leader(ctx)
	fmt.Println("leader:", lead.ID, "b leads:", b.HasLeadership())
	b.Close(ctx)
	// Output:
	// leader: node-a a leads: true b leads: false
	// leader: node-b b leads: true
}

// A selector runs its takeover while it leads; the takeover's context ends when leadership
// may be lost (session suspended or lost) or the selector closes.
func ExampleLeaderSelector() {
	zk, err := zktest.Launch()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer zk.Close()
	fw, err := framework.New(zk.Servers())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer fw.Close()

	done := make(chan struct{})
	s, err := leader.NewSelector(fw, "/services/billing/scheduler", func(ctx context.Context, term *leader.Term) error {
		defer close(done)
		token, err := term.Token(ctx) // send it with every write the leader makes
		if err != nil {
			return err
		}
		fmt.Println("leading with a fencing token:", token > 0)
		return nil // returning gives leadership up
	}, leader.WithID("scheduler-1"))
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := s.Start(); err != nil {
		fmt.Println(err)
		return
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		fmt.Println("never led")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	fmt.Println("close:", s.Close(ctx))
	// Output:
	// leading with a fencing token: true
	// close: <nil>
}
