package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// zklockBin is the binary under test, built once by TestMain.
var zklockBin string

// childEnv marks a run of this test binary as the command zklock runs.
const childEnv = "ZKLOCK_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(testChild(os.Args[1:]))
	}
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "zklock-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	zklockBin = filepath.Join(dir, "zklock")
	build := exec.Command("go", "build", "-race", "-o", zklockBin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building zklock: %v\n%s", err, out)
		return 1
	}
	before := runtime.NumGoroutine()
	code := m.Run()
	if shared != nil {
		shared.Close()
	}
	if code == 0 {
		if err := waitGoroutines(before, 10*time.Second); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	return code
}

// waitGoroutines waits, bounded, until no more goroutines run than before.
func waitGoroutines(before int, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			return fmt.Errorf("goroutine leak: %d running, %d before\n%s", runtime.NumGoroutine(), before, buf)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

// shared is the server most tests use, started on first use.
var (
	sharedOnce sync.Once
	shared     *zktest.Cluster
	sharedErr  error
)

func server(t testing.TB) *zktest.Cluster {
	t.Helper()
	sharedOnce.Do(func() { shared, sharedErr = zktest.Launch() })
	if sharedErr != nil {
		t.Fatalf("zktest: %v", sharedErr)
	}
	return shared
}

// proc is a running zklock.
type proc struct {
	cmd    *exec.Cmd
	lines  chan string // stdout, line by line (the child's output too)
	stderr *syncBuffer
	done   chan struct{}
	code   int
}

// startZklock runs zklock with args and the test's environment minus
// ZK_SERVERS; the children it runs are this test binary (see testChild).
func startZklock(t *testing.T, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(zklockBin, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ZK_SERVERS=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, childEnv+"=1")
	p := &proc{cmd: cmd, lines: make(chan string, 1000), stderr: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		cmd.Wait()
		p.code = cmd.ProcessState.ExitCode()
		close(p.lines)
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// wait waits, at most d, for zklock to exit and returns its exit code.
func (p *proc) wait(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
		return p.code
	case <-time.After(d):
		t.Fatalf("zklock %v did not exit within %v; stderr:\n%s", p.cmd.Args[1:], d, p.stderr)
		return -1
	}
}

// expect waits, at most d, for a stdout line containing want, and returns it.
func (p *proc) expect(t *testing.T, want string, d time.Duration) string {
	t.Helper()
	timeout := time.After(d)
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				t.Fatalf("zklock exited (%d) before printing %q; stderr:\n%s", p.code, want, p.stderr)
			}
			if strings.Contains(l, want) {
				return l
			}
		case <-timeout:
			t.Fatalf("no line with %q within %v; stderr:\n%s", want, d, p.stderr)
		}
	}
}

// output waits for zklock to exit and returns its stdout and exit code.
func (p *proc) output(t *testing.T, d time.Duration) (string, int) {
	t.Helper()
	code := p.wait(t, d)
	var b strings.Builder
	for l := range p.lines {
		b.WriteString(l + "\n")
	}
	return b.String(), code
}

// runZklock runs zklock to completion (bounded) and returns stdout, stderr and
// the exit code.
func runZklock(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	p := startZklock(t, args...)
	out, code := p.output(t, 60*time.Second)
	return out, p.stderr.String(), code
}

// childArgs is the command line zklock should run: this binary as a child.
func childArgs(t *testing.T, mode ...string) []string {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{self}, mode...)
}

// execArgs builds "--servers S exec FLAGS PATH -- child MODE...".
func execArgs(t *testing.T, servers string, flags []string, path string, mode ...string) []string {
	args := append([]string{"--servers", servers, "exec"}, flags...)
	args = append(args, path, "--")
	return append(args, childArgs(t, mode...)...)
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// lockPath returns a path unique to this test run.
func lockPath(t testing.TB) string {
	b := make([]byte, 4)
	rand.Read(b)
	name := unsafeChars.ReplaceAllString(strings.ToLower(t.Name()), "-")
	return "/zklock-tests/" + name + "-" + hex.EncodeToString(b)
}

// connect returns a connected framework, closed at cleanup.
func connect(t *testing.T, servers []string) *framework.Framework {
	t.Helper()
	fw, err := framework.New(servers, framework.WithSessionTimeout(4*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fw.Close() })
	if err := fw.WaitConnected(ctxFor(t, 20*time.Second)); err != nil {
		t.Fatal(err)
	}
	return fw
}

func ctxFor(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// eventually polls cond until it holds, failing the test after limit.
func eventually(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", limit, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// gone reports whether process pid no longer runs: it does not exist, or
// it is a zombie waiting for a parent (init in a container) to reap it.
func gone(pid int) bool {
	if syscall.Kill(pid, 0) == syscall.ESRCH {
		return true
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	_, rest, _ := strings.Cut(string(stat), ") ")
	return strings.HasPrefix(rest, "Z")
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
