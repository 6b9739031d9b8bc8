package interop

import (
	"context"
	_ "embed"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"
)

//go:embed java/CuratorLeader.java
var leaderSource []byte

const leaderClass = "CuratorLeader"

// CuratorLeaderProcess is one JVM running CuratorLeader: one CuratorFramework (one ZooKeeper
// session) driving Curator's LeaderLatch and LeaderSelector candidates, each named by the
// test. Commands run one at a time; every method takes a ctx, and if it ends before the reply
// the JVM is killed (its session then expires after its timeout).
type CuratorLeaderProcess struct {
	p         *lineProcess
	sessionID int64
}

// StartCuratorLeader compiles CuratorLeader if needed and starts it against servers with the
// given session timeout, returning once its session is established. It wraps
// ErrCuratorMissing or ErrJavaMissing when the tool chain is missing.
func StartCuratorLeader(ctx context.Context, servers string, sessionTimeout time.Duration) (*CuratorLeaderProcess, error) {
	p, id, err := startLineServer(ctx, leaderClass, leaderSource, servers, sessionTimeout)
	if err != nil {
		return nil, err
	}
	return &CuratorLeaderProcess{p: p, sessionID: id}, nil
}

// SessionID is the ZooKeeper session id the Curator client started with.
func (c *CuratorLeaderProcess) SessionID() int64 { return c.sessionID }

// Session returns the Curator client's current session id and password (for
// zktest.ExpireSession).
func (c *CuratorLeaderProcess) Session(ctx context.Context) (int64, []byte, error) {
	r, err := c.p.call(ctx, "session")
	if err != nil {
		return 0, nil, err
	}
	idHex, pwHex, _ := strings.Cut(r, " ")
	id, err := strconv.ParseUint(idHex, 16, 64)
	if err != nil {
		return 0, nil, fmt.Errorf("%w: session id %q", ErrRemote, idHex)
	}
	pw, err := hex.DecodeString(pwHex)
	if err != nil {
		return 0, nil, fmt.Errorf("%w: session password %q", ErrRemote, pwHex)
	}
	return int64(id), pw, nil
}

// LatchStart starts Curator's LeaderLatch (CloseMode NOTIFY_LEADER) named name on path with id
// ("" for none; ids must not contain spaces).
func (c *CuratorLeaderProcess) LatchStart(ctx context.Context, name, path, id string) error {
	_, err := c.p.call(ctx, fmt.Sprintf("latch-start %s %s %s", name, path, wireID(id)))
	return err
}

// LatchAwait waits at most timeout for the latch to lead (LeaderLatch.await).
func (c *CuratorLeaderProcess) LatchAwait(ctx context.Context, name string, timeout time.Duration) (bool, error) {
	return c.boolCall(ctx, fmt.Sprintf("latch-await %s %d", name, timeout.Milliseconds()))
}

// LatchHasLeadership is LeaderLatch.hasLeadership.
func (c *CuratorLeaderProcess) LatchHasLeadership(ctx context.Context, name string) (bool, error) {
	return c.boolCall(ctx, "latch-has "+name)
}

// LatchLeader is the id of LeaderLatch.getLeader.
func (c *CuratorLeaderProcess) LatchLeader(ctx context.Context, name string) (string, error) {
	return c.p.call(ctx, "latch-leader "+name)
}

// LatchPath is LeaderLatch.getOurPath.
func (c *CuratorLeaderProcess) LatchPath(ctx context.Context, name string) (string, error) {
	return c.p.call(ctx, "latch-path "+name)
}

// LatchClose closes the latch.
func (c *CuratorLeaderProcess) LatchClose(ctx context.Context, name string) error {
	_, err := c.p.call(ctx, "latch-close "+name)
	return err
}

// SelectorStart starts Curator's LeaderSelector named name on path with id, whose
// takeLeadership holds until SelectorYield (SUSPENDED and LOST cancel it, as
// LeaderSelectorListenerAdapter does); autoRequeue sets autoRequeue.
func (c *CuratorLeaderProcess) SelectorStart(ctx context.Context, name, path, id string, autoRequeue bool) error {
	_, err := c.p.call(ctx, fmt.Sprintf("selector-start %s %s %s %t", name, path, wireID(id), autoRequeue))
	return err
}

// SelectorAwait waits at most timeout until the selector's takeLeadership runs.
func (c *CuratorLeaderProcess) SelectorAwait(ctx context.Context, name string, timeout time.Duration) (bool, error) {
	return c.boolCall(ctx, fmt.Sprintf("selector-await %s %d", name, timeout.Milliseconds()))
}

// SelectorLeading reports whether the selector's takeLeadership is running.
func (c *CuratorLeaderProcess) SelectorLeading(ctx context.Context, name string) (bool, error) {
	return c.boolCall(ctx, "selector-has "+name)
}

// SelectorTerms returns how many times the selector's takeLeadership has started.
func (c *CuratorLeaderProcess) SelectorTerms(ctx context.Context, name string) (int, error) {
	r, err := c.p.call(ctx, "selector-terms "+name)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(r)
}

// SelectorYield makes the running takeLeadership return, giving leadership up.
func (c *CuratorLeaderProcess) SelectorYield(ctx context.Context, name string) error {
	_, err := c.p.call(ctx, "selector-yield "+name)
	return err
}

// SelectorClose closes the selector.
func (c *CuratorLeaderProcess) SelectorClose(ctx context.Context, name string) error {
	_, err := c.p.call(ctx, "selector-close "+name)
	return err
}

// Kill kills the JVM at once (SIGKILL): its session stays on the server until it expires.
func (c *CuratorLeaderProcess) Kill() {
	c.p.mu.Lock()
	c.p.closed = true
	c.p.mu.Unlock()
	c.p.kill()
}

// Close asks the JVM to close its Curator client (deleting its nodes) and exit; after 10 s it
// is killed. Idempotent.
func (c *CuratorLeaderProcess) Close() error { return c.p.close(10 * time.Second) }

// boolCall runs a command whose reply is "ok true" or "ok false".
func (c *CuratorLeaderProcess) boolCall(ctx context.Context, line string) (bool, error) {
	r, err := c.p.call(ctx, line)
	if err != nil {
		return false, err
	}
	return strconv.ParseBool(r)
}

// wireID encodes an id for the line protocol: "-" stands for the empty id.
func wireID(id string) string {
	if id == "" {
		return "-"
	}
	return id
}
