package recipes_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// leader returns the ensemble member that leads now.
func leader(t *testing.T, zk *zktest.Cluster) *zktest.Member {
	t.Helper()
	for i := 0; i < zk.Size(); i++ {
		if mode, err := zk.Member(i).Mode(ctxFor(t, 5*time.Second)); err == nil && mode == "leader" {
			return zk.Member(i)
		}
	}
	t.Fatal("no leader in the ensemble")
	return nil
}

// Four sessions hammer one mutex on a three-server ensemble while its leader
// is killed and restarted: never two holders whose leases are still valid,
// acquisitions go on after the failover, and no node is left behind.
func TestMutexEnsembleLeaderFailover(t *testing.T) {
	zk := zktest.StartEnsemble(t, 3)
	p := lockPath(t)
	var holders zktest.Gauge
	var acquired, afterFailover atomic.Int64
	var failedOver atomic.Bool
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		m := mustMutex(t, zktest.Connect(t, zk, framework.WithSessionTimeout(6*time.Second)), p)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				l, err := m.Acquire(ctx)
				cancel()
				if err != nil {
					continue // the ensemble is electing: try again
				}
				if l.Err() == nil { // a lease already told of a suspension is not a holder
					holders.Enter()
					time.Sleep(time.Millisecond) // a short critical section
					holders.Leave()
					acquired.Add(1)
					if failedOver.Load() {
						afterFailover.Add(1)
					}
				}
				if err := l.Release(context.Background()); err != nil && !errors.Is(err, recipes.ErrNotHeld) {
					t.Logf("release during failover: %v", err)
				}
			}
		}()
	}
	zktest.Eventually(t, 20*time.Second, "acquisitions before the failover", func() bool { return acquired.Load() > 20 })
	lead := leader(t, zk)
	if err := lead.Kill(); err != nil {
		t.Fatal(err)
	}
	failedOver.Store(true)
	zktest.Eventually(t, 60*time.Second, "acquisitions after the leader died", func() bool { return afterFailover.Load() > 20 })
	if err := lead.Restart(ctxFor(t, 60*time.Second)); err != nil {
		t.Fatal(err)
	}
	before := afterFailover.Load()
	zktest.Eventually(t, 60*time.Second, "acquisitions after the old leader returned", func() bool { return afterFailover.Load() > before+20 })
	close(stop)
	wg.Wait()
	if n := holders.Max(); n != 1 {
		t.Fatalf("%d valid holders at once across a leader failover", n)
	}
	fw := zktest.Connect(t, zk)
	zktest.Eventually(t, 30*time.Second, "no nodes left", func() bool { return len(zktest.Children(t, fw, p)) == 0 })
}
