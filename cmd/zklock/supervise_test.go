package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/zktest"
)

// fakeTenure is a lease whose end the test decides.
type fakeTenure struct{ done chan struct{} }

func (f fakeTenure) Path() string          { return "/fake" }
func (f fakeTenure) Done() <-chan struct{} { return f.done }
func (f fakeTenure) Err() error {
	select {
	case <-f.done:
		return errors.New("fake: lost")
	default:
		return nil
	}
}

// Once the lease ends, the whole process group has --kill-grace to stop, leftovers included:
// the command takes most of the grace to exit and leaves a job that ignores SIGTERM, and that
// job is killed at the same deadline, not a whole grace after the command exited (which would
// run past the margin a partition leaves).
func TestSuperviseOneDeadlineForTheGroup(t *testing.T) {
	const grace = time.Second
	pidFile := filepath.Join(t.TempDir(), "pid")
	script := fmt.Sprintf(`(trap "" TERM; exec sleep 60) & echo $! > %s.tmp; mv %s.tmp %s
trap 'sleep 0.8; exit 0' TERM
wait`, pidFile, pidFile, pidFile)
	lease := fakeTenure{done: make(chan struct{})}
	type result struct {
		code int
		err  error
	}
	got := make(chan result, 1)
	go func() {
		code, err := supervise(context.Background(), lease, nil, job{argv: []string{"sh", "-c", script}, killGrace: grace, what: "lock"},
			nil, stdio{out: io.Discard, err: io.Discard})
		got <- result{code, err}
	}()
	var pid int
	zktest.Eventually(t, 10*time.Second, "the background job's pid", func() bool {
		data, err := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		return err == nil && pid > 0
	})
	lost := time.Now()
	close(lease.done)
	select {
	case r := <-got:
		if exitCode(r.err) != exitLost {
			t.Fatalf("supervise: %d, %v; want exitLost", r.code, r.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("supervise did not return")
	}
	if d := time.Since(lost); d > grace+500*time.Millisecond {
		t.Errorf("the group stopped %v after the loss, want within the %v kill grace", d.Round(time.Millisecond), grace)
	}
	zktest.Eventually(t, 5*time.Second, "the background job to be killed", func() bool { return gone(pid) })
}
