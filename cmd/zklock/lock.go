package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"sync"

	"github.com/zkrecipes/zkrecipes/recipes"
)

// runLock is `zklock lock PATH`: acquire, print the node and the fencing token, hold until
// SIGINT, SIGTERM or SIGHUP (ctx ends), release, exit 0; exit 76 when the lock is lost
// meanwhile, 77 when revoked under --revocable.
func runLock(ctx context.Context, g *globals, args []string, io stdio) error {
	o, err := parseLock(g, args)
	if err != nil {
		return helpOrUsage(err, "lock", io)
	}
	fw, err := g.connect(ctx, "lock", io)
	if err != nil {
		return err
	}
	defer fw.Close() // after a short outage it waits (T/3 at most) for the reconnect: issue 26.3
	revoked := make(chan struct{})
	// No command to stop: a lost lease is released at once, so the default grace (the session
	// timeout) only covers zklock being killed.
	lease, err := acquireFor(ctx, fw, o, lossGrace(fw.SessionTimeout(), 0), sync.OnceFunc(func() { close(revoked) }))
	if err != nil {
		return acquireErr(ctx, fw, o, err)
	}
	defer releaseLease(lease, io)
	token, err := leaseToken(ctx, lease)
	if err != nil && ctx.Err() != nil {
		return withCode(exitInterrupted, fmt.Errorf("interrupted after acquiring %s; released", o.path))
	}
	if err != nil {
		return withCode(exitLost, fmt.Errorf("lock %s lost before it was reported: %w", o.path, err))
	}
	fmt.Fprintf(io.out, "ZKLOCK_PATH=%s\nZKLOCK_NODE=%s\nZKLOCK_TOKEN=%d\n", o.path, lease.Path(), token)
	if g.verbose {
		fmt.Fprintf(io.err, "zklock: holding %s until SIGINT or SIGTERM\n", lease.Path())
	}
	return hold(ctx, lease, revoked)
}

// hold waits until ctx ends (a signal: nil), the lease ends (exitLost) or revoked closes
// (exitRevoked); the caller releases.
func hold(ctx context.Context, lease recipes.Held, revoked <-chan struct{}) error {
	select {
	case <-lease.Done():
		return withCode(exitLost, fmt.Errorf("lock %s lost while held: %w", lease.Path(), lease.Err()))
	case <-revoked:
		return withCode(exitRevoked, fmt.Errorf("revocation of %s requested; released", lease.Path()))
	case <-ctx.Done():
		return nil
	}
}

// parseLock parses lock's arguments: flags and PATH, no command.
func parseLock(g *globals, args []string) (execOptions, error) {
	var o execOptions
	if slices.Contains(args, "--") {
		return o, errors.New("lock takes no command: to run one under the lock, use zklock exec PATH -- CMD")
	}
	paths, err := parseInterleaved(lockFlags(g, &o), args)
	switch {
	case err != nil:
		return o, err
	case len(paths) == 0:
		return o, errors.New("want a lock PATH")
	}
	o.path, o.paths = paths[0], paths
	switch {
	case checkPaths(paths...) != nil:
		return o, checkPaths(paths...)
	case len(paths) > 1:
		return o, fmt.Errorf("want one lock PATH, got %d", len(paths))
	case o.kazoo && o.semaphore != 0:
		return o, errors.New("--kazoo takes a mutex or --read/--write (kazoo's Lock, ReadLock, WriteLock)")
	case btoi(o.read)+btoi(o.write)+btoi(o.semaphore != 0) > 1:
		return o, errors.New("--read, --write and --semaphore exclude each other")
	case o.revocable && o.semaphore != 0:
		return o, errors.New("--revocable applies to locks, not to --semaphore leases")
	case o.try && o.timeout > 0:
		return o, errTryTimeout
	}
	return o, nil
}

// lockFlags is lock's FlagSet, filling o: exec's, without --kill-grace (there is no command).
func lockFlags(g *globals, o *execOptions) *flag.FlagSet {
	fs := g.flagSet("lock")
	fs.BoolVar(&o.read, "read", false, "")
	fs.BoolVar(&o.write, "write", false, "")
	fs.BoolVar(&o.kazoo, "kazoo", false, "")
	fs.Var((*countFlag)(&o.semaphore), "semaphore", "")
	fs.Var((*durationFlag)(&o.timeout), "timeout", "")
	fs.BoolVar(&o.try, "try", false, "")
	fs.StringVar(&o.name, "name", "", "")
	fs.BoolVar(&o.revocable, "revocable", false, "")
	return fs
}
