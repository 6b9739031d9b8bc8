package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/zktest"
)

// zklockBin is the binary under test, built once by TestMain.
var zklockBin string

// childEnv marks a run of this test binary as the command zklock runs.
const childEnv = "ZKLOCK_TEST_CHILD"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == guardianArg { // supervise's guardian, in unit tests
		os.Exit(runGuardian(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == gateArg { // supervise's gate, in unit tests
		os.Exit(runGate(os.Args[2:]))
	}
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
	build := exec.Command("go", "build", "-race", "-tags", "zklocktest", "-o", zklockBin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building zklock: %v\n%s", err, out)
		return 1
	}
	return zktest.Main(m, &shared)
}

// shared is the server most tests use.
var shared *zktest.Cluster

// proc is a running zklock.
type proc struct {
	cmd    *exec.Cmd
	lines  chan string // stdout, line by line (the child's output too)
	stderr *zktest.LogBuffer
	done   chan struct{}
	code   int
}

// startZklock runs zklock with args and the test's environment minus
// ZK_SERVERS; the children it runs are this test binary (see testChild).
func startZklock(t *testing.T, args ...string) *proc {
	t.Helper()
	return startZklockWith(t, func(*exec.Cmd) {}, args...)
}

// startZklockWith is startZklock with setup applied to the command before it starts.
func startZklockWith(t *testing.T, setup func(*exec.Cmd), args ...string) *proc {
	t.Helper()
	cmd := exec.Command(zklockBin, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ZK_SERVERS=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, childEnv+"=1")
	p := &proc{cmd: cmd, lines: make(chan string, 1000), stderr: &zktest.LogBuffer{}, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	setup(cmd)
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

// stdinProc is a zklock whose stdin is a pipe the test writes.
type stdinProc struct {
	*proc
	stdin io.WriteCloser
}

// startZklockStdin is startZklock with stdin a pipe, open until the test closes it.
func startZklockStdin(t *testing.T, args ...string) stdinProc {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	var p *proc
	func() {
		defer r.Close() // zklock has its copy once started
		p = startZklockWith(t, func(c *exec.Cmd) { c.Stdin = r }, args...)
	}()
	return stdinProc{p, w}
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

// lockPath returns a path unique to this test run.
func lockPath(t testing.TB) string { return zktest.UniquePath(t, "/zklock-tests") }

// ctxFor returns a bounded context for one test step.
func ctxFor(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
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
