package main

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
	"github.com/zkrecipes/zkrecipes/bench/internal/zkpeers"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
)

// zkrecipesName is the peer's name in the tables.
const zkrecipesName = "zkrecipes"

// errNotHeld: Release without a successful Acquire (a harness bug, never expected).
var errNotHeld = errors.New("bench: release of a lock not held")

// zkrecipesPeer is this library under the harness: one framework.Framework per session, with the
// session timeout every peer uses, and the library's defaults otherwise.
func zkrecipesPeer() harness.Peer {
	return harness.GoPeer{PeerName: zkrecipesName, Connect: func(ctx context.Context, servers string) (harness.Session, error) {
		return connectZkrecipes(ctx, servers)
	}}
}

// zkrecipesVariant is this library configured otherwise: each session, once connected, is
// given to adjust, which returns the session the harness uses.
func zkrecipesVariant(name string, adjust func(*zkrSession) harness.Session) harness.Peer {
	return harness.GoPeer{PeerName: name, Connect: func(ctx context.Context, servers string) (harness.Session, error) {
		s, err := connectZkrecipes(ctx, servers)
		if err != nil {
			return nil, err
		}
		return adjust(s.(*zkrSession)), nil
	}}
}

type zkrSession struct {
	fw  *framework.Framework
	mu  sync.Mutex
	rws map[string]*recipes.InterProcessReadWriteLock // one rw lock per path, shared by its read and write sides
	// lockOpts are given to every mutex and read/write lock (the sticky peer: WithSticky).
	lockOpts []recipes.LockOption
}

func connectZkrecipes(ctx context.Context, servers string, opts ...framework.Option) (harness.Session, error) {
	fw, err := framework.New([]string{servers}, append([]framework.Option{framework.WithSessionTimeout(zkpeers.SessionTimeout)}, opts...)...)
	if err != nil {
		return nil, err
	}
	if err := fw.WaitConnected(ctx); err != nil {
		_ = fw.Close()
		return nil, err
	}
	return &zkrSession{fw: fw, rws: map[string]*recipes.InterProcessReadWriteLock{}}, nil
}

func (s *zkrSession) Close() error { return s.fw.Close() }

func (s *zkrSession) Mutex(path string) (harness.Locker, error) {
	m, err := recipes.NewMutex(s.fw, path, s.lockOpts...)
	if err != nil {
		return nil, err
	}
	return &leaseLocker{acquire: m.Hold}, nil
}

func (s *zkrSession) rw(path string) (*recipes.InterProcessReadWriteLock, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if l, ok := s.rws[path]; ok {
		return l, nil
	}
	l, err := recipes.NewReadWriteLock(s.fw, path, s.lockOpts...)
	if err != nil {
		return nil, err
	}
	s.rws[path] = l
	return l, nil
}

// ReadLock implements harness.RWSession.
func (s *zkrSession) ReadLock(path string) (harness.Locker, error) {
	l, err := s.rw(path)
	if err != nil {
		return nil, err
	}
	return &leaseLocker{acquire: l.ReadLock().Hold}, nil
}

// WriteLock implements harness.RWSession.
func (s *zkrSession) WriteLock(path string) (harness.Locker, error) {
	l, err := s.rw(path)
	if err != nil {
		return nil, err
	}
	return &leaseLocker{acquire: l.WriteLock().Hold}, nil
}

// Semaphore implements harness.SemaphoreSession: each Acquire takes one lease.
func (s *zkrSession) Semaphore(path string, leases int) (harness.Locker, error) {
	sem, err := recipes.NewSemaphore(s.fw, path, leases)
	if err != nil {
		return nil, err
	}
	return &leaseLocker{acquire: func(ctx context.Context) (recipes.Held, error) {
		ls, err := sem.Acquire(ctx, 1)
		if err != nil {
			return nil, err
		}
		return ls[0], nil
	}}, nil
}

// MultiLock implements harness.MultiSession.
func (s *zkrSession) MultiLock(paths []string) (harness.Locker, error) {
	m, err := recipes.NewMultiMutex(s.fw, paths...)
	if err != nil {
		return nil, err
	}
	return &multiLocker{m: m}, nil
}

// MultiLockMode implements harness.MultiModeSession: harness.MultiTx is NewTxMultiMutex over
// the paths in the order given, harness.MultiSeq NewMultiMutex (which sorts them).
func (s *zkrSession) MultiLockMode(paths []string, mode string) (harness.Locker, error) {
	var m *recipes.InterProcessMultiLock
	var err error
	switch mode {
	case harness.MultiTx:
		m, err = recipes.NewTxMultiMutex(s.fw, paths...)
	case harness.MultiSeq:
		m, err = recipes.NewMultiMutex(s.fw, paths...)
	default:
		return nil, fmt.Errorf("%w: multi-lock mode %q", harness.ErrUnsupported, mode)
	}
	if err != nil {
		return nil, err
	}
	return &multiLocker{m: m}, nil
}

// leaseLocker adapts any Acquire that returns a lease. Used by one goroutine at a time.
type leaseLocker struct {
	acquire func(ctx context.Context) (recipes.Held, error)
	held    recipes.Held
	// background: Release under context.Background() (the no-cancel variant), not the harness's.
	background bool
}

func (l *leaseLocker) Acquire(ctx context.Context) error {
	lease, err := l.acquire(ctx)
	if err != nil {
		return err
	}
	l.held = lease
	return nil
}

func (l *leaseLocker) Release(ctx context.Context) error {
	if l.held == nil {
		return errNotHeld
	}
	lease := l.held
	l.held = nil
	if l.background {
		ctx = context.Background()
	}
	return lease.Release(ctx)
}

type multiLocker struct {
	m    *recipes.InterProcessMultiLock
	held *recipes.MultiLease
}

func (l *multiLocker) Acquire(ctx context.Context) error {
	ml, err := l.m.Acquire(ctx)
	if err != nil {
		return err
	}
	l.held = ml
	return nil
}

func (l *multiLocker) Release(ctx context.Context) error {
	if l.held == nil {
		return errNotHeld
	}
	ml := l.held
	l.held = nil
	return ml.Release(ctx)
}
