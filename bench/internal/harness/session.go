package harness

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Locker is one acquirer's handle on a lock. Used by one goroutine at a time: Acquire, then
// Release. Acquire may ignore ctx (go-zookeeper's zk.Lock cannot be cancelled); closing the
// Session must then make a blocked Acquire return an error.
type Locker interface {
	Acquire(ctx context.Context) error
	Release(ctx context.Context) error
}

// Session is one ZooKeeper session of a Go peer. Mutex must be supported; the other recipes are
// optional interfaces (RWSession, SemaphoreSession, MultiSession).
type Session interface {
	Mutex(path string) (Locker, error)
	Close() error
}

// RWSession is a Session with a read/write lock recipe.
type RWSession interface {
	ReadLock(path string) (Locker, error)
	WriteLock(path string) (Locker, error)
}

// SemaphoreSession is a Session with a counting semaphore; each Acquire takes one lease.
type SemaphoreSession interface {
	Semaphore(path string, leases int) (Locker, error)
}

// MultiSession is a Session with an all-or-nothing lock over several paths.
type MultiSession interface {
	MultiLock(paths []string) (Locker, error)
}

// MultiModeSession is a Session whose multi-lock has acquire modes (MultiTx, MultiSeq). The
// paths come in a random order; a mode that needs them sorted sorts them itself.
type MultiModeSession interface {
	MultiLockMode(paths []string, mode string) (Locker, error)
}

// Connector opens one session to servers and waits until it is connected.
type Connector func(ctx context.Context, servers string) (Session, error)

// GoPeer runs the scenarios in this process over sessions made by connect.
type GoPeer struct {
	PeerName string
	Connect  Connector
}

// Name implements Peer.
func (p GoPeer) Name() string { return p.PeerName }

// Run implements Peer.
func (p GoPeer) Run(ctx context.Context, servers string, scenarios ...Scenario) ([]Result, error) {
	out := make([]Result, 0, len(scenarios))
	for _, sc := range scenarios {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		res, err := RunScenario(ctx, p.Connect, servers, sc)
		res.Peer, res.Kind = p.PeerName, sc.Kind
		switch {
		case errors.Is(err, ErrUnsupported):
			res.Unsupported = true
		case err != nil:
			res.Error = err.Error()
		}
		out = append(out, res)
	}
	return out, nil
}

// RunScenario runs one lock scenario over sessions made by connect.
func RunScenario(ctx context.Context, connect Connector, servers string, sc Scenario) (Result, error) {
	if err := sc.Validate(); err != nil {
		return Result{}, err
	}
	sc = sc.withDefaults()
	switch sc.Kind {
	case Uncontended, UncontendedWrite:
		return runUncontended(ctx, connect, servers, sc)
	case Affinity:
		return runAffinity(ctx, connect, servers, sc)
	case Alternate:
		return runAlternate(ctx, connect, servers, sc)
	case ReadMostly:
		return runReadMostly(ctx, connect, servers, sc)
	case Contended, ManyLocks, RW, Semaphore, MultiLock:
		return runLoops(ctx, connect, servers, sc)
	case Herd:
		return runHerd(ctx, connect, servers, sc)
	case Depth:
		return runDepth(ctx, connect, servers, sc)
	case DepthLimit:
		return runDepthLimit(ctx, connect, servers, sc)
	case MultiUncontended:
		return runMultiUncontended(ctx, connect, servers, sc)
	case MultiContended:
		return runMultiContended(ctx, connect, servers, sc)
	}
	return Result{}, fmt.Errorf("%w: %s", ErrUnsupported, sc.Kind)
}

// connectAll opens n sessions; on failure it closes those already open.
func connectAll(ctx context.Context, connect Connector, servers string, n int) ([]Session, error) {
	ss := make([]Session, 0, n)
	for i := 0; i < n; i++ {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second) // a server that stopped answering
		s, err := connect(cctx, servers)
		cancel()
		if err != nil {
			closeAll(ss)
			return nil, fmt.Errorf("harness: session %d: %w", i, err)
		}
		ss = append(ss, s)
	}
	return ss, nil
}

func closeAll(ss []Session) {
	for _, s := range ss {
		_ = s.Close()
	}
}
