package interop

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Errors of a line-protocol child process.
var (
	// ErrClosed means the process was closed (or killed after a cancelled command).
	ErrClosed = errors.New("interop: process closed")
	// ErrExited means the child exited unexpectedly; the error text carries its stderr tail.
	ErrExited = errors.New("interop: process exited")
	// ErrTimeout means the recipe's own timeout passed without acquiring ("err timeout").
	ErrTimeout = errors.New("interop: acquire timed out")
	// ErrRemote wraps any other "err ..." reply of the child.
	ErrRemote = errors.New("interop: remote error")
)

// lineProcess is a child speaking "one command line in, one reply line out". Safe for concurrent
// use; commands are serialised.
type lineProcess struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	exited chan struct{} // closed after the child was reaped
	quit   chan struct{} // closed by kill/close; stops the reader
	stderr *tailBuffer
	waitEr error

	mu     sync.Mutex // serialises commands and guards closed
	closed bool
	once   sync.Once
}

// startLineProcess starts cmd and returns once it printed its first line (returned), or fails
// when ctx ends first (the child is killed) or the child exits.
func startLineProcess(ctx context.Context, cmd *exec.Cmd) (*lineProcess, string, error) {
	p := &lineProcess{cmd: cmd, lines: make(chan string), exited: make(chan struct{}),
		quit: make(chan struct{}), stderr: &tailBuffer{max: 8 << 10}}
	cmd.Stderr = p.stderr
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, "", fmt.Errorf("interop: stdin: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", fmt.Errorf("interop: stdout: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, "", fmt.Errorf("interop: start %s: %w", cmd.Path, err)
	}
	go p.read(stdout)
	first, err := p.next(ctx)
	if err != nil {
		p.kill()
		return nil, "", err
	}
	return p, first, nil
}

// read forwards stdout lines until EOF, then reaps the child.
func (p *lineProcess) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		select {
		case p.lines <- sc.Text():
		case <-p.quit:
		}
	}
	p.waitEr = p.cmd.Wait()
	close(p.exited)
}

// next waits for the next stdout line.
func (p *lineProcess) next(ctx context.Context) (string, error) {
	select {
	case l := <-p.lines:
		return l, nil
	case <-p.exited:
		return "", fmt.Errorf("%w: %v; stderr: %s", ErrExited, p.waitEr, p.stderr.String())
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// call sends one command line and returns the text after "ok" in the reply. If ctx ends first the
// child is killed (its state is unknown) and later calls fail with ErrClosed.
func (p *lineProcess) call(ctx context.Context, line string) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return "", ErrClosed
	}
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		return "", fmt.Errorf("%w: write: %v; stderr: %s", ErrExited, err, p.stderr.String())
	}
	reply, err := p.next(ctx)
	if err != nil {
		p.closed = true
		p.kill()
		return "", err
	}
	return parseReply(reply)
}

// parseReply maps "ok X" to X and "err ..." to an error.
func parseReply(reply string) (string, error) {
	switch {
	case reply == "ok":
		return "", nil
	case strings.HasPrefix(reply, "ok "):
		return reply[3:], nil
	case reply == "err timeout":
		return "", ErrTimeout
	case strings.HasPrefix(reply, "err "):
		return "", fmt.Errorf("%w: %s", ErrRemote, reply[4:])
	}
	return "", fmt.Errorf("%w: unexpected reply %q", ErrRemote, reply)
}

// close asks the child to quit, waits up to grace for it to exit, then kills it. Idempotent.
func (p *lineProcess) close(grace time.Duration) error {
	p.mu.Lock()
	wasClosed := p.closed
	p.closed = true
	p.mu.Unlock()
	if !wasClosed {
		_, _ = io.WriteString(p.stdin, "quit\n")
		_ = p.stdin.Close()
	}
	p.drainUntilExit(grace)
	p.kill()
	return nil
}

// drainUntilExit waits up to grace for the child to exit, reading (and dropping) what it still
// prints meanwhile, such as its reply to "quit": the reader would otherwise block on it, and the
// child would only be reaped when killed after the grace.
func (p *lineProcess) drainUntilExit(grace time.Duration) {
	timeout := time.After(grace)
	for {
		select {
		case <-p.lines:
		case <-p.exited:
			return
		case <-timeout:
			return
		}
	}
}

// kill stops the child and waits until it is reaped.
func (p *lineProcess) kill() {
	p.once.Do(func() {
		close(p.quit)
		_ = p.stdin.Close()
	})
	select {
	case <-p.exited:
		return
	default:
	}
	if p.cmd.Process != nil {
		_ = p.cmd.Process.Kill()
	}
	<-p.exited
}

// tailBuffer keeps the last max bytes written. Safe for concurrent use.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) > b.max {
		b.buf = append([]byte(nil), b.buf[len(b.buf)-b.max:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.TrimSpace(string(b.buf))
}
