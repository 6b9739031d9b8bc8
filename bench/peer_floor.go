package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
	"github.com/zkrecipes/zkrecipes/framework"
)

// Names of the framework-floor variants in the tables (diagnostic, issue 27).
const (
	frameworkFloorName         = "framework floor"
	frameworkFloorNoCancelName = "framework floor no-cancel"
)

// frameworkFloorPeer is zk.Lock's algorithm written on the framework's exported requests: a
// protected ephemeral sequential create, a listing, a data watch on the node just ahead (GetW, as
// the recipes set it: no watch is left on a node already gone), a delete. It has none of the
// recipe's engine (drivers, the lease, the loss signal, re-queueing, fencing tokens), so the
// client CPU between it and zk.Lock is the framework's and between it and zkrecipes the
// recipe's. With noCancel every request runs under context.Background() (on the caller's
// goroutine); otherwise under the harness's cancellable context, one worker hop per request.
// Like zk.Lock it does not check that its own node still stands (after an expiry it would take
// an empty queue ahead for a grant): a reference for CPU, never run against faults. Diagnostic:
// it runs only when named.
func frameworkFloorPeer(noCancel bool) harness.Peer {
	return zkrecipesVariant(variantName(noCancel, frameworkFloorName, frameworkFloorNoCancelName), func(s *zkrSession) harness.Session {
		return floorSession{zkrSession: s, noCancel: noCancel}
	})
}

type floorSession struct {
	*zkrSession
	noCancel bool
}

func (s floorSession) Mutex(dir string) (harness.Locker, error) {
	return &floorLock{fw: s.fw, dir: dir, noCancel: s.noCancel}, nil
}

// floorLock is one lock path's floor mutex; the harness uses each from one goroutine at a time.
type floorLock struct {
	fw       *framework.Framework
	dir      string
	noCancel bool
	node     string // our node's path while held
}

// errFloorNoSequence: the create's name has no sequence suffix (never expected).
var errFloorNoSequence = errors.New("bench: framework floor: no sequence in the created name")

// floorSeq is the sequence after a name's last '-', or false when it has none.
func floorSeq(name string) (int64, bool) {
	i := strings.LastIndexByte(name, '-')
	if i < 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(name[i+1:], 10, 64)
	return n, err == nil
}

// ahead is the child with the greatest sequence below seq among children ("" when none).
func ahead(children []string, seq int64) string {
	prev, _, _ := leanScan(children, "", seq) // "" has no sequence: no child is skipped as ours
	return prev
}

func (l *floorLock) ctx(ctx context.Context) context.Context { return variantContext(l.noCancel, ctx) }

// variantContext is the context a diagnostic peer's variant runs its calls under: the
// harness's, or context.Background() for a no-cancel variant (every request on the caller's
// goroutine).
func variantContext(noCancel bool, ctx context.Context) context.Context {
	if noCancel {
		return context.Background()
	}
	return ctx
}

// variantName is a diagnostic peer's name in the tables: noCancelName for its no-cancel variant.
func variantName(noCancel bool, name, noCancelName string) string {
	if noCancel {
		return noCancelName
	}
	return name
}

func (l *floorLock) Acquire(ctx context.Context) (err error) {
	ctx = l.ctx(ctx)
	p, err := l.fw.Create(ctx, l.dir+"/lock-", nil, framework.WithMode(framework.EphemeralSequential),
		framework.Protected(), framework.CreatingParents())
	if err != nil {
		return err
	}
	defer func() {
		if err != nil { // no node left behind to block the others (zk.Lock leaves it)
			l.fw.DeleteInBackground(p)
		}
	}()
	seq, ok := floorSeq(p)
	if !ok {
		return fmt.Errorf("%w: %q", errFloorNoSequence, p)
	}
	// The loop assigns err (no :=): the deferred delete reads the named result.
	var children []string
	var w *framework.Watch
	for {
		if children, _, err = l.fw.Children(ctx, l.dir); err != nil {
			return err
		}
		prev := ahead(children, seq)
		if prev == "" {
			l.node = p
			return nil
		}
		_, _, w, err = l.fw.GetW(ctx, l.dir+"/"+prev)
		if errors.Is(err, framework.ErrNoNode) {
			continue
		}
		if err != nil {
			return err
		}
		if _, err = w.Wait(ctx); err != nil {
			return err
		}
	}
}

func (l *floorLock) Release(ctx context.Context) error {
	if l.node == "" {
		return errNotHeld
	}
	err := l.fw.Delete(l.ctx(ctx), l.node)
	l.node = ""
	return err
}
