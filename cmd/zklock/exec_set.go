package main

import (
	"context"
	"errors"
	"flag"
	"slices"
	"strings"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
)

// parseExecPaths is parseCommandLine for exec, which takes one PATH or several (a set taken in
// one transaction).
func parseExecPaths(fs *flag.FlagSet, args []string) ([]string, []string, error) {
	dash := slices.Index(args, "--")
	if dash < 0 {
		_, _, err := parseCommandLine(fs, args, "lock PATH")
		return nil, nil, err
	}
	pos, err := parseInterleaved(fs, args[:dash])
	switch {
	case err != nil:
		return nil, nil, err
	case len(pos) == 0:
		return nil, nil, errors.New("want a lock PATH before '--'")
	case len(args) == dash+1:
		return nil, nil, errors.New("no command after '--'")
	}
	return pos, args[dash+1:], nil
}

// checkSet refuses what a set of paths cannot do: a semaphore takes two nodes per lease, which
// one transaction of the set cannot queue, and a set has no revocation.
func checkSet(o execOptions) error {
	switch {
	case len(o.paths) < 2:
		return nil
	case o.semaphore != 0:
		return errors.New("several PATHs take mutexes or --read/--write locks: --semaphore takes one PATH")
	case o.revocable:
		return errors.New("several PATHs cannot be revoked: --revocable takes one PATH")
	}
	return nil
}

// acquireSet takes every path of o (mutexes, or --read/--write locks) in one transaction
// (recipes.NewTxMultiLock); with --try, only if every lock is granted at once, else it returns
// ErrLocked naming the first busy lock, the set's nodes deleted (see busyPath).
func acquireSet(ctx context.Context, fw *framework.Framework, o execOptions, opts []recipes.LockOption) (recipes.Held, error) {
	locks := make([]recipes.Locker, 0, len(o.paths))
	for _, p := range o.paths {
		one := o
		one.path = p
		l, err := lockFor(fw, one, opts, nil)
		if err != nil {
			return nil, err
		}
		locks = append(locks, l.(recipes.Locker))
	}
	m, err := recipes.NewTxMultiLock(locks...)
	if err != nil {
		return nil, err
	}
	acquire := m.Acquire
	if o.try {
		acquire = m.TryAcquire
	}
	ml, err := acquire(ctx)
	if err != nil {
		return nil, err
	}
	return setHeld{ml}, nil
}

// busyPath returns the path that err, TryAcquire's ErrLocked, names as busy (its
// recipes.LockedError), or the whole set when it names none.
func busyPath(err error, paths []string) string {
	if le, ok := errors.AsType[*recipes.LockedError](err); ok {
		return le.Path
	}
	return strings.Join(paths, ",")
}

// setHeld is a held set seen as one lease: Path lists the nodes (comma-separated), Token is
// the set's one fencing token (every node of the set has the transaction's zxid as czxid).
type setHeld struct{ *recipes.MultiLease }

func (s setHeld) Path() string {
	var nodes []string
	for _, l := range s.Leases() {
		nodes = append(nodes, l.Path())
	}
	return strings.Join(nodes, ",")
}

func (s setHeld) Token(ctx context.Context) (int64, error) { return s.Leases()[0].Token(ctx) }

func (s setHeld) Guard() framework.Op { return s.Leases()[0].Guard() }
