package interop

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"time"
)

//go:embed java/CuratorContender.java
var contenderSource []byte

const contenderClass = "CuratorContender"

// CuratorProcess is one JVM running CuratorContender: one CuratorFramework, one ZooKeeper
// session. Safe for concurrent use, but commands run one at a time, so a blocked acquire delays
// every later command on the same process; use several processes for several contenders.
//
// Every method takes a ctx: if it ends before the reply, the JVM is killed (its session then
// expires on the server after its timeout) and later calls fail with ErrClosed.
type CuratorProcess struct {
	p         *lineProcess
	sessionID int64
}

// StartCurator compiles CuratorContender if needed, starts it against servers (a ZooKeeper
// connect string) and returns once its session is established. It wraps ErrCuratorMissing or
// ErrJavaMissing when the tool chain is missing; ctx bounds compilation and connection.
func StartCurator(ctx context.Context, servers string) (*CuratorProcess, error) {
	p, id, err := startLineServer(ctx, contenderClass, contenderSource, servers, 30*time.Second)
	if err != nil {
		return nil, err
	}
	return &CuratorProcess{p: p, sessionID: id}, nil
}

// SessionID is the ZooKeeper session id of the Curator client.
func (c *CuratorProcess) SessionID() int64 { return c.sessionID }

// Acquire takes Curator's InterProcessMutex on path, waiting at most timeout, and returns the
// full path of the lock node it holds (Curator names it _c_<uuid>-lock-<seq>). It returns
// ErrTimeout when the lock stayed busy. Reentrant, as in Curator.
func (c *CuratorProcess) Acquire(ctx context.Context, path string, timeout time.Duration) (string, error) {
	return c.p.call(ctx, fmt.Sprintf("acquire %s %d", path, timeout.Milliseconds()))
}

// Release releases one hold of the mutex on path.
func (c *CuratorProcess) Release(ctx context.Context, path string) error {
	_, err := c.p.call(ctx, "release "+path)
	return err
}

// ReadAcquire takes the read side of InterProcessReadWriteLock on path; returns its node.
func (c *CuratorProcess) ReadAcquire(ctx context.Context, path string, timeout time.Duration) (string, error) {
	return c.p.call(ctx, fmt.Sprintf("rw-read-acquire %s %d", path, timeout.Milliseconds()))
}

// ReadRelease releases one hold of the read side on path.
func (c *CuratorProcess) ReadRelease(ctx context.Context, path string) error {
	_, err := c.p.call(ctx, "rw-read-release "+path)
	return err
}

// WriteAcquire takes the write side of InterProcessReadWriteLock on path; returns its node.
func (c *CuratorProcess) WriteAcquire(ctx context.Context, path string, timeout time.Duration) (string, error) {
	return c.p.call(ctx, fmt.Sprintf("rw-write-acquire %s %d", path, timeout.Milliseconds()))
}

// WriteRelease releases one hold of the write side on path.
func (c *CuratorProcess) WriteRelease(ctx context.Context, path string) error {
	_, err := c.p.call(ctx, "rw-write-release "+path)
	return err
}

// SemaphoreAcquire takes n leases of an InterProcessSemaphoreV2 with max leases on path and
// returns the lease node paths.
func (c *CuratorProcess) SemaphoreAcquire(ctx context.Context, path string, max, n int, timeout time.Duration) ([]string, error) {
	r, err := c.p.call(ctx, fmt.Sprintf("semaphore-acquire %s %d %d %d", path, max, n, timeout.Milliseconds()))
	if err != nil {
		return nil, err
	}
	return strings.Split(r, ","), nil
}

// SemaphoreRelease returns every lease this process holds on path.
func (c *CuratorProcess) SemaphoreRelease(ctx context.Context, path string) error {
	_, err := c.p.call(ctx, "semaphore-release "+path)
	return err
}

// MultiAcquire takes an InterProcessMultiLock over mutexes on paths (all or none).
func (c *CuratorProcess) MultiAcquire(ctx context.Context, timeout time.Duration, paths ...string) error {
	_, err := c.p.call(ctx, fmt.Sprintf("multilock-acquire %d %s", timeout.Milliseconds(), strings.Join(paths, " ")))
	return err
}

// MultiRelease releases the multi-lock taken by MultiAcquire.
func (c *CuratorProcess) MultiRelease(ctx context.Context) error {
	_, err := c.p.call(ctx, "multilock-release")
	return err
}

// Participants lists the full paths of the mutex's lock nodes on path in queue order, as
// Curator's getParticipantNodes sees them.
func (c *CuratorProcess) Participants(ctx context.Context, path string) ([]string, error) {
	r, err := c.p.call(ctx, "participants "+path)
	if err != nil || r == "" {
		return nil, err
	}
	return strings.Fields(r), nil
}

// Ping checks that the JVM still answers.
func (c *CuratorProcess) Ping(ctx context.Context) error {
	_, err := c.p.call(ctx, "ping")
	return err
}

// Close asks the JVM to close its Curator client (deleting its ephemeral nodes) and exit; after
// 10 s it is killed. Idempotent.
func (c *CuratorProcess) Close() error {
	return c.p.close(10 * time.Second)
}
