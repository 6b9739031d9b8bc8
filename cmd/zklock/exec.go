package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
)

// execOptions are exec's own flags.
type execOptions struct {
	read, write bool
	semaphore   int
	timeout     time.Duration
	try         bool
	killGrace   time.Duration
	name        string
	revocable   bool
	path        string
	argv        []string
}

// Defaults of exec's flags.
const (
	// defaultKillGrace: time for a command to clean up after SIGTERM, as
	// systemd's and Docker's stop timeouts give.
	defaultKillGrace = 10 * time.Second
	// tokenTimeout bounds reading the fencing token (usually known already).
	tokenTimeout = 10 * time.Second
	// releaseTimeout bounds the release after the command exited.
	releaseTimeout = 10 * time.Second
)

// runExec is `zklock exec`.
func runExec(ctx context.Context, g *globals, args []string, io stdio) error {
	o, err := parseExec(g, args)
	if err != nil {
		return helpOrUsage(err, "exec", io)
	}
	fw, err := g.connect(ctx, "exec", io)
	if err != nil {
		return err
	}
	defer fw.Close()
	start := time.Now()
	if g.verbose {
		fmt.Fprintf(io.err, "zklock: waiting for %s\n", o.path)
	}
	revoked := make(chan struct{})
	lease, err := acquireFor(ctx, fw, o, sync.OnceFunc(func() { close(revoked) }))
	if err != nil {
		return acquireErr(ctx, o, err)
	}
	token, err := leaseToken(ctx, lease)
	if err != nil {
		releaseLease(lease, io)
		return withCode(exitLost, fmt.Errorf("lock %s lost before the command started: %w", o.path, err))
	}
	if g.verbose {
		fmt.Fprintf(io.err, "zklock: acquired %s (token %d) after %v\n", lease.Path(), token, time.Since(start).Round(time.Millisecond))
	}
	env := []string{"ZKLOCK_PATH=" + o.path, "ZKLOCK_NODE=" + lease.Path(), "ZKLOCK_TOKEN=" + strconv.FormatInt(token, 10)}
	code, runErr := supervise(ctx, lease, revoked, o, env, io)
	releaseLease(lease, io)
	if g.verbose && runErr == nil {
		fmt.Fprintf(io.err, "zklock: released %s; command exited %d\n", lease.Path(), code)
	}
	if runErr != nil {
		return runErr
	}
	return withCode(code, nil)
}

// parseExec parses exec's arguments: flags and PATH, "--", the command.
func parseExec(g *globals, args []string) (execOptions, error) {
	o := execOptions{killGrace: defaultKillGrace}
	fs := execFlags(g, &o)
	dash := slices.Index(args, "--")
	if dash < 0 {
		if _, err := parseInterleaved(fs, args); err != nil {
			return o, err
		}
		return o, errors.New("missing '--' before the command")
	}
	pos, err := parseInterleaved(fs, args[:dash])
	if err != nil {
		return o, err
	}
	o.argv = args[dash+1:]
	switch {
	case len(pos) != 1:
		return o, fmt.Errorf("want one lock PATH before '--', got %d arguments", len(pos))
	case len(o.argv) == 0:
		return o, errors.New("no command after '--'")
	case btoi(o.read)+btoi(o.write)+btoi(o.semaphore != 0) > 1:
		return o, errors.New("--read, --write and --semaphore exclude each other")
	case o.revocable && o.semaphore != 0:
		return o, errors.New("--revocable applies to locks, not to --semaphore leases")
	case o.semaphore < 0:
		return o, fmt.Errorf("--semaphore %d: want at least 1", o.semaphore)
	case o.timeout < 0 || o.killGrace < 0:
		return o, errors.New("--timeout and --kill-grace must not be negative")
	}
	o.path = pos[0]
	return o, nil
}

// execFlags is exec's FlagSet, filling o.
func execFlags(g *globals, o *execOptions) *flag.FlagSet {
	fs := g.flagSet("exec")
	fs.BoolVar(&o.read, "read", false, "")
	fs.BoolVar(&o.write, "write", false, "")
	fs.IntVar(&o.semaphore, "semaphore", 0, "")
	fs.DurationVar(&o.timeout, "timeout", 0, "")
	fs.BoolVar(&o.try, "try", false, "")
	fs.DurationVar(&o.killGrace, "kill-grace", o.killGrace, "")
	fs.StringVar(&o.name, "name", "", "")
	fs.BoolVar(&o.revocable, "revocable", false, "")
	return fs
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// acquireFor takes the lock o describes, under --timeout or --try; with
// --revocable, onRevoke runs when someone asks the holder to release.
func acquireFor(ctx context.Context, fw *framework.Framework, o execOptions, onRevoke func()) (recipes.Held, error) {
	data := recipes.NewIdentity(o.name).Encode()
	if o.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.timeout)
		defer cancel()
	}
	if o.semaphore > 0 {
		return acquireLease(ctx, fw, o, data)
	}
	l, err := lockFor(fw, o, data, onRevoke)
	if err != nil {
		return nil, err
	}
	if o.try {
		return held(l.TryAcquire(ctx))
	}
	return held(l.Acquire(ctx))
}

// acquireLease takes one lease of a semaphore admitting o.semaphore holders.
func acquireLease(ctx context.Context, fw *framework.Framework, o execOptions, data []byte) (recipes.Held, error) {
	s, err := recipes.NewSemaphore(fw, o.path, o.semaphore, recipes.WithLeaseData(data))
	if err != nil {
		return nil, err
	}
	acquire := s.Acquire
	if o.try {
		acquire = s.TryAcquire
	}
	leases, err := acquire(ctx, 1)
	if err != nil {
		return nil, err
	}
	return leases[0], nil
}

// held turns a lease and its error into a Held, nil on error (never a
// typed nil in an interface).
func held(l *recipes.Lease, err error) (recipes.Held, error) {
	if err != nil {
		return nil, err
	}
	return l, nil
}

// locker is what the mutex and both sides of a read-write lock share.
type locker interface {
	Acquire(ctx context.Context) (*recipes.Lease, error)
	TryAcquire(ctx context.Context) (*recipes.Lease, error)
}

func lockFor(fw *framework.Framework, o execOptions, data []byte, onRevoke func()) (locker, error) {
	opts := []recipes.LockOption{recipes.WithNodeData(data)}
	if o.revocable {
		opts = append(opts, recipes.WithRevocation(func(*recipes.Lease) { onRevoke() }))
	}
	if !o.read && !o.write {
		return recipes.NewMutex(fw, o.path, opts...)
	}
	rw, err := recipes.NewReadWriteLock(fw, o.path, opts...)
	if err != nil {
		return nil, err
	}
	if o.read {
		return rw.ReadLock(), nil
	}
	return rw.WriteLock(), nil
}

// acquireErr gives a failed acquire its exit code.
func acquireErr(ctx context.Context, o execOptions, err error) error {
	switch {
	case ctx.Err() != nil:
		return withCode(exitInterrupted, fmt.Errorf("interrupted while waiting for %s", o.path))
	case errors.Is(err, recipes.ErrLocked):
		return withCode(exitBusy, fmt.Errorf("lock %s is busy", o.path))
	case errors.Is(err, context.DeadlineExceeded):
		return withCode(exitTimeout, fmt.Errorf("lock %s not acquired within --timeout %v", o.path, o.timeout))
	}
	return fmt.Errorf("acquiring %s: %w", o.path, err)
}

// leaseToken returns the lease's fencing token, bounded by tokenTimeout.
func leaseToken(ctx context.Context, l recipes.Held) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, tokenTimeout)
	defer cancel()
	return l.Token(ctx)
}

// releaseLease releases the lease, bounded, and reports a failure on stderr:
// the node is then deleted in the background or with the session.
func releaseLease(l recipes.Held, io stdio) {
	ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
	defer cancel()
	if err := l.Release(ctx); err != nil {
		fmt.Fprintf(io.err, "zklock: release %s: %v\n", l.Path(), err)
	}
}
