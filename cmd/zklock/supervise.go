package main

import (
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/zkrecipes/zkrecipes/recipes"
)

// forwarded are the signals zklock passes on to the command's process group.
var forwarded = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

// supervise runs the command while lease is held and returns its exit code.
// When the lease ends first, the command's group gets SIGTERM, then SIGKILL
// after --kill-grace, and the error carries exitLost.
func supervise(lease *recipes.Lease, o execOptions, env []string, io stdio) (int, error) {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, forwarded...)
	defer signal.Stop(sigs)
	if err := lease.Err(); err != nil {
		return 0, withCode(exitLost, fmt.Errorf("lock lost before %s started: %w", o.argv[0], err))
	}
	c, err := startChild(o.argv, env)
	if err != nil {
		return 0, err
	}
	var lost error
	var kill <-chan time.Time
	done := lease.Done()
	for {
		select {
		case <-c.done:
			c.stopLeftovers(o.killGrace)
			if lost != nil {
				return 0, withCode(exitLost, fmt.Errorf("lock lost while %s ran; it was stopped: %w", o.argv[0], lost))
			}
			return c.exitCode(), nil
		case s := <-sigs:
			c.signal(s.(syscall.Signal))
		case <-done:
			done, lost = nil, lease.Err()
			fmt.Fprintf(io.err, "zklock: %v; sending SIGTERM to %s\n", lost, strings.Join(o.argv, " "))
			c.signal(syscall.SIGTERM)
			kill = time.After(o.killGrace)
		case <-kill:
			fmt.Fprintf(io.err, "zklock: %s still running %v after SIGTERM; sending SIGKILL\n", o.argv[0], o.killGrace)
			c.signal(syscall.SIGKILL)
		}
	}
}
