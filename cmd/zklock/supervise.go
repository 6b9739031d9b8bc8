package main

import (
	"context"
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
// When the lease ends first, or revoked closes (--revocable), the command's
// group gets SIGTERM, then SIGKILL after --kill-grace, and the error carries
// exitLost or exitRevoked.
//
// ctx ends on a signal that arrived before supervise listened: the command
// is then not started.
func supervise(ctx context.Context, lease recipes.Held, revoked <-chan struct{}, o execOptions, env []string, io stdio) (int, error) {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, forwarded...)
	defer signal.Stop(sigs)
	if ctx.Err() != nil {
		return 0, withCode(exitInterrupted, fmt.Errorf("interrupted before %s started", o.argv[0]))
	}
	if err := lease.Err(); err != nil {
		return 0, withCode(exitLost, fmt.Errorf("lock lost before %s started: %w", o.argv[0], err))
	}
	c, err := startChild(o.argv, env)
	if err != nil {
		return 0, err
	}
	var ended error // why the command was stopped, with the exit code to report
	var kill <-chan time.Time
	done := lease.Done()
	stop := func(why error) {
		ended, kill = why, time.After(o.killGrace)
		fmt.Fprintf(io.err, "zklock: %v; sending SIGTERM to %s\n", why, strings.Join(o.argv, " "))
		c.signal(syscall.SIGTERM)
	}
	for {
		select {
		case <-c.done:
			c.stopLeftovers(o.killGrace)
			if ended != nil {
				return 0, ended
			}
			return c.exitCode(), nil
		case s := <-sigs:
			c.signal(s.(syscall.Signal))
		case <-done:
			done, revoked = nil, nil
			lost := withCode(exitLost, fmt.Errorf("lock lost while %s ran: %w", o.argv[0], lease.Err()))
			if ended != nil { // already stopping after a revocation: report the loss
				ended = lost
				continue
			}
			stop(lost)
		case <-revoked:
			revoked = nil
			stop(withCode(exitRevoked, fmt.Errorf("revocation of %s requested while %s ran", lease.Path(), o.argv[0])))
		case <-kill:
			fmt.Fprintf(io.err, "zklock: %s still running %v after SIGTERM; sending SIGKILL\n", o.argv[0], o.killGrace)
			c.signal(syscall.SIGKILL)
		}
	}
}
