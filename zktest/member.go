package zktest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
)

// ErrNotRunning is returned by Pause and Resume on a member that is stopped.
var ErrNotRunning = errors.New("zktest: member is not running")

// Member is one ZooKeeper server of a Cluster. Its ports and data directory
// stay the same across Stop/Restart. Safe for concurrent use.
type Member struct {
	id           int // myid, 1-based
	clientPort   int
	peerPort     int
	electionPort int
	dir          string // data dir; holds zoo.cfg and myid
	logPath      string
	inst         installation
	cfg          *config
	ensemble     bool

	mu   sync.Mutex
	proc *process // nil when stopped
}

// ID returns the member's ZooKeeper server id (myid), starting at 1.
func (m *Member) ID() int { return m.id }

// Addr returns the member's client address, "127.0.0.1:port".
func (m *Member) Addr() string { return "127.0.0.1:" + strconv.Itoa(m.clientPort) }

// LogPath returns the file the member's server writes its log to.
func (m *Member) LogPath() string { return m.logPath }

// Running reports whether the member's JVM is alive (paused counts as alive).
func (m *Member) Running() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.proc != nil && !m.proc.exited()
}

// Pid returns the JVM's process id, or 0 when the member is stopped.
func (m *Member) Pid() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.proc == nil || m.proc.exited() {
		return 0
	}
	return m.proc.cmd.Process.Pid
}

// Stop ends the server gracefully (SIGTERM, then SIGKILL after the grace
// period) and waits for it to exit. Stopping a stopped member is a no-op.
func (m *Member) Stop() error {
	p := m.take()
	if p == nil {
		return nil
	}
	return p.stop(m.cfg.stopGrace)
}

// Kill ends the server with SIGKILL (a crash) and waits for it to exit.
// Killing a stopped member is a no-op.
func (m *Member) Kill() error {
	p := m.take()
	if p == nil {
		return nil
	}
	return p.kill()
}

// Pause freezes the server with SIGSTOP: its sockets stay open but it
// answers nothing, like a long GC pause. Undo with Resume.
func (m *Member) Pause() error { return m.send(syscall.SIGSTOP) }

// Resume continues a paused server (SIGCONT).
func (m *Member) Resume() error { return m.send(syscall.SIGCONT) }

// Restart stops the server if it runs, starts it again with the same data
// directory and ports, and waits until it serves: standalone, or leader or
// follower in an ensemble (which needs a quorum of running members). ctx
// bounds the wait (the start timeout applies if ctx has no deadline); on
// cancellation the new server keeps running and the error is returned.
func (m *Member) Restart(ctx context.Context) error {
	if err := m.Stop(); err != nil {
		return err
	}
	if err := m.start(); err != nil {
		return err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, m.cfg.startTimeout)
		defer cancel()
	}
	return m.waitReady(ctx)
}

func (m *Member) send(sig syscall.Signal) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.proc == nil || m.proc.exited() {
		return ErrNotRunning
	}
	return m.proc.signal(sig)
}

// take detaches the running process, if any.
func (m *Member) take() *process {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := m.proc
	m.proc = nil
	return p
}

// start launches the JVM; it does not wait for it to serve.
func (m *Member) start() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.proc != nil && !m.proc.exited() {
		return nil
	}
	p, err := startProcess(m.argv(), m.dir, m.logPath)
	if err != nil {
		return err
	}
	m.proc = p
	return nil
}

// exitedChan returns a channel closed when the current JVM exits (nil if
// none runs, which blocks forever in a select).
func (m *Member) exitedChan() <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.proc == nil {
		return nil
	}
	return m.proc.done
}

func (m *Member) argv() []string {
	c := m.cfg
	args := []string{
		m.inst.java,
		"-Xmx" + c.maxHeap, "-Xms16m", "-Xss512k",
		"-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
		"-Djava.awt.headless=true",
		"-Dzookeeper.jmx.log4j.disable=true",
		"-Dorg.slf4j.simpleLogger.showDateTime=true",
		"-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS",
		"-Dznode.container.checkIntervalMs=" + strconv.FormatInt(c.containerCheck.Milliseconds(), 10),
		"-Dznode.container.maxPerMinute=100000",
		"-Dzookeeper.cnxTimeout=2000",
		"-Dzookeeper.extendedTypesEnabled=" + strconv.FormatBool(c.extendedTypes),
	}
	args = append(args, c.extraJVMFlags...)
	return append(args, "-cp", m.inst.classpath, quorumPeerMain, m.cfgPath())
}

func (m *Member) cfgPath() string { return filepath.Join(m.dir, "zoo.cfg") }

// writeFiles writes zoo.cfg and myid for this member of peers.
func (m *Member) writeFiles(peers []*Member) error {
	if err := os.MkdirAll(m.dir, 0o755); err != nil {
		return fmt.Errorf("zktest: data dir: %w", err)
	}
	if err := os.WriteFile(filepath.Join(m.dir, "myid"), []byte(strconv.Itoa(m.id)+"\n"), 0o644); err != nil {
		return fmt.Errorf("zktest: myid: %w", err)
	}
	if err := os.WriteFile(m.cfgPath(), []byte(renderConfig(m, peers)), 0o644); err != nil {
		return fmt.Errorf("zktest: zoo.cfg: %w", err)
	}
	return nil
}
