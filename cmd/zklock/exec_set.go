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

// checkSet refuses what a set of paths cannot do.
func checkSet(o execOptions) error {
	if len(o.paths) > 1 && (o.semaphore != 0 || o.try || o.revocable) {
		return errors.New("several PATHs take mutexes or --read/--write locks, without --semaphore, --try or --revocable")
	}
	return nil
}

// acquireSet takes every path of o (mutexes, or --read/--write locks) in one transaction
// (recipes.NewTxMultiLock).
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
	ml, err := m.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	return setHeld{ml}, nil
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
