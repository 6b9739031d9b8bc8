package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/leader"
)

// electOptions are elect's own flags.
type electOptions struct {
	id        string
	killGrace graceFlag
	listen    bool // --listen: print the leader and its changes, take no part
	passStdin bool // --pass-stdin: the command reads zklock's stdin
	path      string
	argv      []string
}

// outcome is what a term's takeover reports: the command's exit code, or
// why it was not run or was stopped.
type outcome struct {
	code int
	err  error
}

// runElect is `zklock elect`: a LeaderSelector on PATH whose takeover runs
// the command; zklock resigns (its node is deleted) when the command exits.
func runElect(ctx context.Context, g *globals, args []string, io stdio) error {
	o, err := parseElect(g, args)
	if err != nil {
		return helpOrUsage(err, "elect", io)
	}
	if o.listen {
		return runListen(ctx, g, o, io)
	}
	g.protectedTag = electTag // holders shows our candidates as zklock (issue 26.6)
	fw, err := g.connect(ctx, "elect", io)
	if err != nil {
		return err
	}
	defer fw.Close() // after a short outage it waits (T/3 at most) for the reconnect: issue 26.3
	ran := make(chan struct{})
	result := make(chan outcome, 1)
	once := sync.OnceFunc(func() { close(ran) })
	kill := killGrace(o.killGrace, fw.SessionTimeout(), io.err)
	takeover := func(tctx context.Context, t *leader.Term) error {
		select {
		case <-ran: // a later term (the selector requeues until closed): resign at once
			return nil
		default:
		}
		once()
		result <- lead(ctx, fw, t, o, kill, g.verbose, io)
		<-tctx.Done() // keep the node until runElect closes the selector
		return nil
	}
	// WithAutoRequeue: an entry that fails during an outage is retried at the
	// next reconnect instead of leaving us waiting for ever; a later term
	// resigns at once (above) and resign closes the selector.
	// WithLossGrace: a term lost with a connection that comes back keeps its
	// node until the command has exited (see lossGrace).
	sel, err := leader.NewSelector(fw, o.path, takeover, leader.WithID(o.id), leader.WithAutoRequeue(),
		leader.WithLossGrace(lossGrace(fw.SessionTimeout(), kill)))
	if err != nil {
		return fmt.Errorf("elect %s: %w", o.path, err)
	}
	if g.verbose {
		fmt.Fprintf(io.err, "zklock: candidate %q for the leadership of %s\n", o.id, o.path)
	}
	if err := sel.Start(); err != nil {
		return fmt.Errorf("elect %s: %w", o.path, err)
	}
	r, err := awaitOutcome(ctx, ran, result, sel, io)
	if err != nil {
		return err
	}
	resign(sel, io)
	if r.err != nil {
		return r.err
	}
	return withCode(r.code, nil)
}

// awaitOutcome waits for the term's outcome once the takeover began (a
// signal is then the command's: supervise forwards it), or, interrupted
// while still a candidate, leaves the election and returns exitInterrupted.
func awaitOutcome(ctx context.Context, ran <-chan struct{}, result <-chan outcome, sel *leader.LeaderSelector, io stdio) (outcome, error) {
	select {
	case <-ran:
		return <-result, nil
	case <-ctx.Done():
	}
	select {
	case <-ran: // both were ready: the command is (or was) running
		return <-result, nil
	default:
	}
	resign(sel, io) // ends a term that begins now; supervise sees ctx ended and does not start the command
	select {
	case r := <-result:
		return r, nil
	default:
		return outcome{}, withCode(exitInterrupted, fmt.Errorf("interrupted while waiting for the leadership of %s", sel.Path()))
	}
}

// lead runs the command for term t: with the term's token in its
// environment, stopped as exec stops it when the term ends.
func lead(ctx context.Context, fw *framework.Framework, t *leader.Term, o electOptions, kill time.Duration, verbose bool, io stdio) outcome {
	tctx, cancel := context.WithTimeout(t.Context(), tokenTimeout)
	token, err := t.Token(tctx)
	cancel()
	if err != nil {
		return outcome{err: withCode(exitLost, fmt.Errorf("leadership of %s lost before the command started: %w", o.path, err))}
	}
	if verbose {
		fmt.Fprintf(io.err, "zklock: leader of %s as %s (token %d, session 0x%x)\n", o.path, t.Path(), token, fw.SessionID())
	}
	env := []string{"ZKLOCK_PATH=" + o.path, "ZKLOCK_NODE=" + t.Path(),
		"ZKLOCK_TOKEN=" + strconv.FormatInt(token, 10), "ZKLOCK_ID=" + o.id}
	code, err := supervise(ctx, t, nil, job{argv: o.argv, killGrace: kill, what: "leadership", passStdin: o.passStdin}, env, io)
	if verbose && err == nil {
		fmt.Fprintf(io.err, "zklock: resigning the leadership of %s; command exited %d\n", o.path, code)
	}
	return outcome{code: code, err: err}
}

// resign closes the selector, bounded by releaseTimeout: the term ends and
// its node is deleted. A failure is reported on stderr: the node then goes
// in the background or with the session, as exec's release.
func resign(sel *leader.LeaderSelector, io stdio) {
	ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
	defer cancel()
	if err := sel.Close(ctx); err != nil && !errors.Is(err, leader.ErrClosed) {
		fmt.Fprintf(io.err, "zklock: resign %s: %v\n", sel.Path(), err)
	}
}

// parseElect parses elect's arguments: flags and PATH, "--", the command.
func parseElect(g *globals, args []string) (electOptions, error) {
	o := electOptions{id: defaultElectID()}
	fs := electFlags(g, &o)
	if !slices.Contains(args, "--") {
		pos, err := parseInterleaved(fs, args)
		switch {
		case err != nil:
			return o, err
		case !o.listen:
			return o, errors.New("missing '--' before the command")
		case len(pos) != 1:
			return o, fmt.Errorf("want one election PATH, got %d arguments", len(pos))
		}
		o.path = pos[0]
		return o, checkPaths(o.path)
	}
	path, argv, err := parseCommandLine(fs, args, "election PATH")
	switch {
	case err != nil:
		return o, err
	case o.listen:
		return o, errors.New("--listen takes no command: it only prints the leader")
	}
	o.path, o.argv = path, argv
	return o, checkPaths(path)
}

// electFlags is elect's FlagSet, filling o.
func electFlags(g *globals, o *electOptions) *flag.FlagSet {
	fs := g.flagSet("elect")
	fs.StringVar(&o.id, "id", o.id, "")
	fs.Var(&o.killGrace, "kill-grace", "")
	fs.BoolVar(&o.listen, "listen", false, "")
	fs.BoolVar(&o.passStdin, "pass-stdin", false, "")
	return fs
}

// defaultElectID is HOST:PID, the candidate id when --id is not given.
func defaultElectID() string {
	host, _ := os.Hostname()
	return host + ":" + strconv.Itoa(os.Getpid())
}
