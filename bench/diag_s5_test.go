package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
)

// The setup the s5 diagnostics share (diag_s5load, diag_s5split, diag_s5timeline and
// diag_sticky's s5 rows): the two scenarios they time, a sticky session, and the helper process
// a diagnostic runs beside itself.

// s5Scenario is s5 as the diagnostics run it under root: 8 readers and a writer every 100 ms,
// warmed 300 ms, measured for d.
func s5Scenario(root string, d time.Duration) harness.Scenario {
	return harness.Scenario{Kind: harness.ReadMostly, Root: root, Sessions: 8,
		Warmup: 300 * time.Millisecond, Duration: d, Interval: 100 * time.Millisecond}
}

// s5wScenario is s5-w under root: one session's uncontended write lock, 20 warm cycles, 1.5 s.
func s5wScenario(root string) harness.Scenario {
	return harness.Scenario{Kind: harness.UncontendedWrite, Root: root,
		Sessions: 1, WarmCycles: 20, Duration: 1500 * time.Millisecond}
}

// connectSticky connects a zkrecipes session whose locks are sticky.
func connectSticky(ctx context.Context, servers string, opts ...framework.Option) (*zkrSession, error) {
	s, err := connectZkrecipes(ctx, servers, opts...)
	if err != nil {
		return nil, err
	}
	z := s.(*zkrSession)
	z.lockOpts = []recipes.LockOption{recipes.WithSticky(0)}
	return z, nil
}

// helperProcess prepares this test binary run again as the helper test named test, env added to
// its environment (its work). The caller starts it; closing stdin tells it to stop.
func helperProcess(t *testing.T, test, env string) (cmd *exec.Cmd, stdin io.WriteCloser) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command(exe, "-test.run=^"+test+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env)
	stdin, err = cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	return cmd, stdin
}

// helperContext is a helper process's life: it ends when the parent closes its stdin, or after
// a minute.
func helperContext() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	go func() { io.Copy(io.Discard, os.Stdin); cancel() }()
	return ctx, cancel
}
