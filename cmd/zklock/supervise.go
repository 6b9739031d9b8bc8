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
// When the lease ends first, or revoked closes (--revocable), the command's
// group gets SIGTERM, then SIGKILL after --kill-grace, and the error carries
// exitLost or exitRevoked.
func supervise(lease *recipes.Lease, revoked <-chan struct{}, o execOptions, env []string, io stdio) (int, error) {
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
			stop(withCode(exitLost, fmt.Errorf("lock lost while %s ran: %w", o.argv[0], lease.Err())))
		case <-revoked:
			revoked = nil
			stop(withCode(exitRevoked, fmt.Errorf("revocation of %s requested while %s ran", lease.Path(), o.argv[0])))
		case <-kill:
			fmt.Fprintf(io.err, "zklock: %s still running %v after SIGTERM; sending SIGKILL\n", o.argv[0], o.killGrace)
			c.signal(syscall.SIGKILL)
		}
	}
}
