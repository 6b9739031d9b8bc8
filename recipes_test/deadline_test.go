package recipes_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/chaos"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// pauseHolderEnv, when set, makes the test binary run pauseHolder (see TestMain).
const pauseHolderEnv = "ZKRECIPES_PAUSE_HOLDER"

// pauseSpec is what a pause holder needs, passed as JSON in pauseHolderEnv.
type pauseSpec struct {
	Servers []string
	Path    string
	T       time.Duration
}

// pauseLine is one line of a pause holder's report: "held", "write" (Err was nil at T) or
// "lost" (Err was not nil at T). T is CLOCK_MONOTONIC, comparable across processes.
type pauseLine struct {
	Kind string
	T    int64
	Err  string `json:",omitempty"`
}

// runPauseHolderIfChild runs a pause holder and exits if this process is one.
func runPauseHolderIfChild() {
	raw := os.Getenv(pauseHolderEnv)
	if raw == "" {
		return
	}
	var spec pauseSpec
	err := json.Unmarshal([]byte(raw), &spec)
	if err == nil {
		err = pauseHolder(spec, os.Stdin, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "pause holder:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// pauseHolder acquires a mutex, then, about every millisecond, checks the lease's Err right
// before a "write" (a line on out, stamped with the time read before the check) until Err
// reports the loss. It releases and returns when in closes.
func pauseHolder(spec pauseSpec, in io.Reader, out io.Writer) error {
	fw, err := framework.New(spec.Servers, framework.WithSessionTimeout(spec.T))
	if err != nil {
		return err
	}
	defer fw.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := fw.WaitConnected(ctx); err != nil {
		return err
	}
	m, err := recipes.NewMutex(fw, spec.Path)
	if err != nil {
		return err
	}
	lease, err := m.Acquire(ctx)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(out)
	if err := enc.Encode(pauseLine{Kind: "held", T: chaos.Now()}); err != nil {
		return err
	}
	for {
		t := chaos.Now() // before the check: a write stamped after a resume was checked after it
		if err := lease.Err(); err != nil {
			_ = enc.Encode(pauseLine{Kind: "lost", T: t, Err: err.Error()})
			break
		}
		if err := enc.Encode(pauseLine{Kind: "write", T: t}); err != nil {
			return err
		}
		time.Sleep(time.Millisecond) // the work between two writes
	}
	_, _ = io.Copy(io.Discard, in) // until the parent closes stdin
	rctx, rcancel := context.WithTimeout(context.Background(), 2*spec.T)
	defer rcancel()
	_ = lease.Release(rctx)
	return nil
}

// A holder paused (SIGSTOP) for 1.5 session timeouts and resumed never writes after the resume
// with Err still nil: Err reports the loss synchronously from the time since the last server
// contact, before go-zookeeper's receive loop notices the dead connection (issue 16, point 3).
func TestPausedHolderNeverWritesAfterResume(t *testing.T) {
	const T = 2 * time.Second
	raw, err := json.Marshal(pauseSpec{Servers: shared.Servers(), Path: lockPath(t), T: T})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), pauseHolderEnv+"="+string(raw))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	lines := make(chan pauseLine, 1024)
	go func() {
		defer close(lines)
		dec := json.NewDecoder(bufio.NewReader(stdout))
		for {
			var l pauseLine
			if dec.Decode(&l) != nil {
				return
			}
			lines <- l
		}
	}()
	t.Cleanup(func() {
		stdin.Close()
		_ = cmd.Process.Signal(syscall.SIGCONT)
		go func() { exited <- cmd.Wait() }()
		select {
		case <-exited:
		case <-time.After(4 * T):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	next := func(what string, d time.Duration) pauseLine {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the holder exited before %s", what)
			}
			return l
		case <-time.After(d):
			t.Fatalf("no %s within %v", what, d)
		}
		return pauseLine{}
	}
	if l := next("held", 30*time.Second); l.Kind != "held" {
		t.Fatalf("first line %+v, want held", l)
	}
	if l := next("a first write", 10*time.Second); l.Kind != "write" {
		t.Fatalf("line %+v, want a write", l)
	}
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	time.Sleep(T + T/2) // the pause itself (the fault), not a synchronisation
	resumed := chaos.Now()
	if err := cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	var late []time.Duration // writes checked after the resume
	for {
		l := next("the loss", 4*T+10*time.Second)
		if l.Kind == "lost" {
			if !strings.Contains(l.Err, recipes.ErrLockLost.Error()) {
				t.Errorf("lost with %q, want ErrLockLost", l.Err)
			}
			t.Logf("lost %v after the resume: %s", time.Duration(l.T-resumed), l.Err)
			break
		}
		if l.T > resumed {
			late = append(late, time.Duration(l.T-resumed))
		}
	}
	if len(late) > 0 {
		t.Fatalf("%d writes with Err nil after the resume, the first %v after it", len(late), late[0])
	}
}

// An idle lease on a healthy connection with a short session timeout stays held for several
// timeouts: go-zookeeper's pings (every third of the timeout) keep the last server contact
// well inside the deadline (2/3 of it), so the deadline check never fires by mistake.
func TestIdleLeaseOutlivesItsDeadline(t *testing.T) {
	const T = time.Second
	for _, policy := range []framework.ErrorPolicy{framework.StandardPolicy, framework.SessionPolicy} {
		fw := zktest.Connect(t, shared, framework.WithSessionTimeout(T), framework.WithErrorPolicy(policy))
		lease := mustAcquire(t, mustMutex(t, fw, lockPath(t)), 10*time.Second)
		epoch := fw.Session()
		quiet := time.After(5 * T) // a bounded wait that asserts nothing happened
		tick := time.NewTicker(T / 10)
		for waiting := true; waiting; {
			select {
			case <-quiet:
				waiting = false
			case <-lease.Done():
				t.Fatalf("policy %d: idle lease lost: %v", policy, lease.Err())
			case <-tick.C:
				if err := lease.Err(); err != nil {
					t.Fatalf("policy %d: idle lease Err: %v", policy, err)
				}
			}
		}
		tick.Stop()
		if fw.Session() != epoch || epoch.Err() != nil {
			t.Fatalf("policy %d: the epoch changed or ended: %v", policy, epoch.Err())
		}
		mustRelease(t, lease)
		if errors.Is(lease.Err(), recipes.ErrLockLost) {
			t.Fatalf("policy %d: released lease reports a loss", policy)
		}
	}
}
