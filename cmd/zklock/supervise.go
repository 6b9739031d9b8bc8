package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// forwarded are the signals zklock passes on to the command's process group.
var forwarded = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

// tenure is what a command runs under: a lock's lease (exec) or a leader's
// term (elect). Done closes when it ends (Suspended or Lost, per the error
// policy); Err then says why.
type tenure interface {
	Path() string
	Done() <-chan struct{}
	Err() error
}

// job is the command supervise runs and how its messages name the tenure.
type job struct {
	argv      []string
	killGrace time.Duration
	what      string // "lock" or "leadership", as in "lock lost while CMD ran"
	passStdin bool   // the command reads zklock's stdin (--pass-stdin); else /dev/null
}

// supervise runs the command while lease lasts and returns its exit code,
// once the command and its whole process group have exited: only then may
// the caller release the lease. When the lease ends first, or revoked closes
// (--revocable), the command's group gets SIGTERM, then SIGKILL after
// --kill-grace (one deadline for the group, leftovers included), and the
// error carries exitLost or exitRevoked.
//
// SIGINT, SIGTERM and SIGHUP of zklock are passed on to the group, which then has the same
// --kill-grace before SIGKILL; a second such signal sends SIGKILL at once.
//
// ctx ends on a signal that arrived before supervise listened: the command
// is then not started.
func supervise(ctx context.Context, lease tenure, revoked <-chan struct{}, o job, env []string, io stdio) (int, error) {
	sigs, jobSigs := make(chan os.Signal, 4), make(chan os.Signal, 4)
	signal.Notify(sigs, forwarded...)
	defer signal.Stop(sigs)
	signal.Notify(jobSigs, jobSignals...)
	defer signal.Stop(jobSigs)
	if ctx.Err() != nil {
		return 0, withCode(exitInterrupted, fmt.Errorf("interrupted before %s started", o.argv[0]))
	}
	if err := lease.Err(); err != nil {
		return 0, withCode(exitLost, fmt.Errorf("%s lost before %s started: %w", o.what, o.argv[0], err))
	}
	c, err := startChild(o.argv, env, o.passStdin)
	if err != nil {
		return 0, err
	}
	var ended error // why the command was stopped, with the exit code to report
	var kill <-chan time.Time
	var killAt time.Time // when the whole group is killed, once stopping
	done := lease.Done()
	jc := &jobControl{c: c, lease: lease, what: o.what, argv: o.argv, w: io}
	stop := func(why error) {
		ended = why
		if kill == nil { // a signal started the grace already: it keeps its deadline
			kill, killAt = time.After(o.killGrace), time.Now().Add(o.killGrace)
		}
		fmt.Fprintf(io.err, "zklock: %v; sending SIGTERM to %s\n", why, strings.Join(o.argv, " "))
		c.signal(syscall.SIGTERM)
	}
	for {
		select {
		case <-c.done:
			if ended != nil { // what is left of the group has until the same SIGKILL
				c.stopLeftovers(killAt)
				return 0, ended
			}
			if kill == nil {
				killAt = time.Now().Add(o.killGrace)
			}
			c.stopLeftovers(killAt)
			return c.exitCode(), nil
		case s := <-sigs:
			if kill == nil { // the first stop: the same grace as a lost lock's
				c.signal(s.(syscall.Signal))
				kill, killAt = time.After(o.killGrace), time.Now().Add(o.killGrace)
				continue
			}
			fmt.Fprintf(io.err, "zklock: %v again; sending SIGKILL to %s\n", s, strings.Join(o.argv, " "))
			c.signal(syscall.SIGKILL)
		case s := <-jobSigs:
			if err := jc.handle(s); err != nil && ended == nil { // the group was killed
				ended, kill, killAt = err, nil, time.Now()
			}
		case <-done:
			done, revoked = nil, nil
			lost := withCode(exitLost, fmt.Errorf("%s lost while %s ran: %w", o.what, o.argv[0], lease.Err()))
			if ended != nil { // already stopping after a revocation: report the loss
				ended = lost
				continue
			}
			stop(lost)
		case <-revoked:
			revoked = nil
			stop(withCode(exitRevoked, fmt.Errorf("revocation of %s requested while %s ran", lease.Path(), o.argv[0])))
		case <-kill:
			fmt.Fprintf(io.err, "zklock: %s still running %v after it was told to stop; sending SIGKILL\n", o.argv[0], o.killGrace)
			c.signal(syscall.SIGKILL)
		}
	}
}
