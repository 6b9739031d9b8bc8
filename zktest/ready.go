package zktest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
)

const readyPoll = 50 * time.Millisecond

// waitReady waits until the member's server reports a serving mode on
// "srvr" and a real client opens a session on it. If the JVM exits or ctx
// ends first it returns an error wrapping ErrStart with the log's tail.
func (m *Member) waitReady(ctx context.Context) error {
	exited := m.exitedChan()
	if exited == nil {
		return m.startErr(ErrNotRunning)
	}
	if err := m.waitMode(ctx, exited); err != nil {
		return m.startErr(err)
	}
	if err := waitSession(ctx, m.ClientAddr(), m.tls, exited); err != nil {
		return m.startErr(err)
	}
	return nil
}

func (m *Member) startErr(cause error) error {
	return fmt.Errorf("%w: server %d (%s): %w\n--- tail of %s ---\n%s",
		ErrStart, m.id, m.Addr(), cause, m.logPath, logTail(m.logPath, 30))
}

var errExited = errors.New("the server process exited")

// waitMode polls "srvr" until the member is standalone (single server) or
// leader/follower (ensemble).
func (m *Member) waitMode(ctx context.Context, exited <-chan struct{}) error {
	t := time.NewTicker(readyPoll)
	defer t.Stop()
	var last error
	for {
		qctx, cancel := context.WithTimeout(ctx, time.Second)
		err := m.checkServing(qctx)
		cancel()
		if err == nil {
			return nil
		}
		last = err
		select {
		case <-exited:
			return errExited
		case <-ctx.Done():
			return fmt.Errorf("%w (last: %w)", ctx.Err(), last)
		case <-t.C:
		}
	}
}

// checkServing returns nil if the server on the member's port is this
// member (its "conf" shows our data dir: a port picked free may have been
// taken by another server meanwhile) and it is in a serving mode.
func (m *Member) checkServing(ctx context.Context) error {
	conf, err := m.FourLetter(ctx, "conf")
	if err != nil {
		return err
	}
	if !strings.Contains(conf, "dataDir="+filepath.Join(m.dir, "version-2")+"\n") {
		return errors.New("another server answers on the port")
	}
	mode, err := m.Mode(ctx)
	if err != nil {
		return err
	}
	if !m.servingMode(mode) {
		return fmt.Errorf("mode %q", mode)
	}
	return nil
}

func (m *Member) servingMode(mode string) bool {
	if m.ensemble {
		return mode == "leader" || mode == "follower"
	}
	return mode == "standalone"
}

// waitSession connects a real go-zookeeper client to addr, over TLS when t is set, and waits
// for StateHasSession.
func waitSession(ctx context.Context, addr string, t *TLSMaterial, exited <-chan struct{}) error {
	opts := []func(*zk.Conn){zk.WithLogger(nopLogger{})}
	if t != nil {
		opts = append(opts, zk.WithDialer(t.dialer))
	}
	conn, events, err := zk.Connect([]string{addr}, 4*time.Second, func(c *zk.Conn) {
		for _, o := range opts {
			o(c)
		}
	})
	if err != nil {
		return err
	}
	defer conn.Close()
	for {
		select {
		case ev := <-events:
			if ev.State == zk.StateHasSession {
				return nil
			}
		case <-exited:
			return errExited
		case <-ctx.Done():
			return fmt.Errorf("no client session: %w", ctx.Err())
		}
	}
}

// nopLogger silences go-zookeeper.
type nopLogger struct{}

func (nopLogger) Printf(string, ...any) {}

// logTail returns the last n lines of the file at path.
func logTail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
