package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
)

// execOptions are exec's own flags.
type execOptions struct {
	read, write bool
	kazoo       bool // PATH is a kazoo (Python) lock: recipes.NewKazooMutex, NewKazooReadWriteLock
	semaphore   int
	timeout     time.Duration
	try         bool
	killGrace   graceFlag
	name        string
	revocable   bool
	passStdin   bool // --pass-stdin: the command reads zklock's stdin, else /dev/null
	path        string
	paths       []string // several: a set taken in one transaction (exec_set.go)
	argv        []string
}

// Defaults of exec's flags.
const (
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
	defer fw.Close() // after a short outage it waits (T/3 at most) for the reconnect: issue 26.3
	start := time.Now()
	if g.verbose {
		fmt.Fprintf(io.err, "zklock: waiting for %s\n", o.path)
	}
	kill := killGrace(o.killGrace, fw.SessionTimeout(), io.err)
	revoked := make(chan struct{})
	lease, err := acquireFor(ctx, fw, o, lossGrace(fw.SessionTimeout(), kill), sync.OnceFunc(func() { close(revoked) }))
	if err != nil {
		return acquireErr(ctx, fw, o, err)
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
	code, runErr := supervise(ctx, lease, revoked, job{argv: o.argv, killGrace: kill, what: "lock", passStdin: o.passStdin}, env, io)
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
	var o execOptions
	paths, argv, err := parseExecPaths(execFlags(g, &o), args)
	if err != nil {
		return o, err
	}
	o.path, o.paths, o.argv = strings.Join(paths, ","), paths, argv
	switch {
	case checkPaths(paths...) != nil:
		return o, checkPaths(paths...)
	case checkSet(o) != nil:
		return o, checkSet(o)
	case o.kazoo && (o.semaphore != 0 || len(o.paths) > 1):
		return o, errors.New("--kazoo takes one PATH, a mutex or --read/--write (kazoo's Lock, ReadLock, WriteLock)")
	case btoi(o.read)+btoi(o.write)+btoi(o.semaphore != 0) > 1:
		return o, errors.New("--read, --write and --semaphore exclude each other")
	case o.revocable && o.semaphore != 0:
		return o, errors.New("--revocable applies to locks, not to --semaphore leases")
	case o.try && o.timeout > 0:
		return o, errTryTimeout
	}
	return o, nil
}

// parseCommandLine parses "flags PATH flags -- CMD ARGS..." (exec, elect)
// with fs; what names PATH in errors.
func parseCommandLine(fs *flag.FlagSet, args []string, what string) (path string, argv []string, err error) {
	dash := slices.Index(args, "--")
	if dash < 0 {
		if _, err := parseInterleaved(fs, args); err != nil {
			return "", nil, err
		}
		return "", nil, errors.New("missing '--' before the command")
	}
	pos, err := parseInterleaved(fs, args[:dash])
	switch {
	case err != nil:
		return "", nil, err
	case len(pos) != 1:
		return "", nil, fmt.Errorf("want one %s before '--', got %d arguments", what, len(pos))
	case len(args) == dash+1:
		return "", nil, errors.New("no command after '--'")
	}
	return pos[0], args[dash+1:], nil
}

// execFlags is exec's FlagSet, filling o.
func execFlags(g *globals, o *execOptions) *flag.FlagSet {
	fs := g.flagSet("exec")
	fs.BoolVar(&o.read, "read", false, "")
	fs.BoolVar(&o.write, "write", false, "")
	fs.BoolVar(&o.kazoo, "kazoo", false, "")
	fs.Var((*countFlag)(&o.semaphore), "semaphore", "")
	fs.Var((*durationFlag)(&o.timeout), "timeout", "")
	fs.BoolVar(&o.try, "try", false, "")
	fs.Var(&o.killGrace, "kill-grace", "")
	fs.StringVar(&o.name, "name", "", "")
	fs.BoolVar(&o.revocable, "revocable", false, "")
	fs.BoolVar(&o.passStdin, "pass-stdin", false, "")
	return fs
}

// errTryTimeout refuses --try with --timeout: --try gives up at once, --timeout later.
var errTryTimeout = errors.New("--try and --timeout exclude each other (--try gives up at once if the lock is busy)")

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// acquireFor takes the lock o describes, under --timeout or --try, keeping a
// lost lease's node for grace (see lossGrace); with --revocable, onRevoke
// runs when someone asks the holder to release.
func acquireFor(ctx context.Context, fw *framework.Framework, o execOptions, grace time.Duration, onRevoke func()) (recipes.Held, error) {
	opts := []recipes.LockOption{recipes.WithNodeData(nodeData(o)), recipes.WithLossGrace(grace)}
	if o.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.timeout)
		defer cancel()
	}
	if err := checkLayout(ctx, fw, o); err != nil {
		return nil, err
	}
	if o.semaphore > 0 {
		return acquireLease(ctx, fw, o, opts)
	}
	if len(o.paths) > 1 {
		return acquireSet(ctx, fw, o, opts)
	}
	l, err := lockFor(fw, o, opts, onRevoke)
	if err != nil {
		return nil, err
	}
	if o.try {
		return held(l.TryAcquire(ctx))
	}
	return held(l.Acquire(ctx))
}

// acquireLease takes one lease of a semaphore admitting o.semaphore holders.
func acquireLease(ctx context.Context, fw *framework.Framework, o execOptions, opts []recipes.SemaphoreOption) (recipes.Held, error) {
	s, err := recipes.NewSemaphore(fw, o.path, o.semaphore, opts...)
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

func lockFor(fw *framework.Framework, o execOptions, opts []recipes.LockOption, onRevoke func()) (locker, error) {
	if o.revocable {
		opts = append(opts, recipes.WithRevocation(func(*recipes.Lease) { onRevoke() }))
	}
	newMutex, newRW := recipes.NewMutex, recipes.NewReadWriteLock
	if o.kazoo {
		newMutex, newRW = recipes.NewKazooMutex, recipes.NewKazooReadWriteLock
	}
	if !o.read && !o.write {
		return newMutex(fw, o.path, opts...)
	}
	rw, err := newRW(fw, o.path, opts...)
	if err != nil {
		return nil, err
	}
	if o.read {
		return rw.ReadLock(), nil
	}
	return rw.WriteLock(), nil
}

// acquireErr gives a failed acquire its exit code.
func acquireErr(ctx context.Context, fw *framework.Framework, o execOptions, err error) error {
	var coded *exitError
	switch {
	case errors.As(err, &coded): // already says what was wrong (checkLayout)
		return err
	case ctx.Err() != nil:
		return withCode(exitInterrupted, fmt.Errorf("interrupted while waiting for %s", o.path))
	case errors.Is(err, recipes.ErrLocked) && len(o.paths) > 1:
		busy := busyPath(err, o.paths)
		return withCode(exitBusy, fmt.Errorf("lock %s is busy%s (the set %s was not taken)", busy, heldBy(ctx, fw, busy), o.path))
	case errors.Is(err, recipes.ErrLocked):
		return withCode(exitBusy, fmt.Errorf("lock %s is busy%s", o.path, heldBy(ctx, fw, o.path)))
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
