package zkpeers

import (
	"context"

	"github.com/go-zookeeper/zk"
	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
)

// GoLockPeer is go-zookeeper's zk.Lock (v1.0.4) under the lock scenarios. It has no read/write
// lock, semaphore or multi-lock, so those scenarios report Unsupported.
func GoLockPeer() harness.Peer {
	return harness.GoPeer{PeerName: "go-zookeeper zk.Lock", Connect: connectGoLock}
}

type goLockSession struct{ conn *zk.Conn }

func connectGoLock(ctx context.Context, servers string) (harness.Session, error) {
	conn, err := connect(ctx, servers)
	if err != nil {
		return nil, err
	}
	return &goLockSession{conn: conn}, nil
}

func (s *goLockSession) Mutex(path string) (harness.Locker, error) {
	return &goLock{l: zk.NewLock(s.conn, path, zk.WorldACL(zk.PermAll))}, nil
}

func (s *goLockSession) Close() error {
	s.conn.Close()
	return nil
}

// goLock adapts zk.Lock; it cannot be cancelled, so ctx is ignored (closing the session unblocks).
type goLock struct{ l *zk.Lock }

func (g *goLock) Acquire(context.Context) error { return g.l.Lock() }
func (g *goLock) Release(context.Context) error { return g.l.Unlock() }
