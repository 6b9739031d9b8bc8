package recipes

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/zkrecipes/zkrecipes/driver"
	"github.com/zkrecipes/zkrecipes/framework"
)

// Lock is a distributed lock whose rules come from a driver: the one acquire loop that every
// recipe of this package is built on, open to drivers of your own (Curator's
// InterProcessMutex(client, path, driver)). Acquire creates a protected ephemeral node in the
// lock directory (parents as containers), lists the directory, asks the driver, and waits on
// the single node (or the directory) it names, until the driver says we hold the lock; a
// vanished node is recreated under the framework's retry policy and the same deadline, and
// on every failure our node is deleted: before Acquire returns while ctx is live, else in the
// background (a guaranteed delete; a cleanup never outlasts ctx). The lease it returns is
// reentrant through Lease.Reenter, tells its owner when the lock may be lost (Done), and
// carries a fencing token.
//
// A Lock holds configuration and a little shared state (the watch on a driver's input node)
// and is safe for concurrent use. Each Acquire is a new contender, even in one process.
type Lock struct {
	fw    *framework.Framework
	path  string
	drv   driver.Driver
	opts  lockOptions
	input *inputWatch // the driver's input node, or nil
	held  atomic.Int64

	warnedDepth atomic.Bool            // checkDepth warned once
	warnedSelf  [selfKinds]atomic.Bool // an Acquire waited behind a lease of this process: warned once per kind
	mine        nameSet                // names of our nodes still standing (held, or lost and not yet deleted)
	kin         *Lock                  // the other half of a read-write lock, or nil (pairHalves)
	kinKind     selfKind               // what a lease of kin that we wait behind is to us
	sticky      *stickyCache           // WithSticky's cache, or nil
	ownName     string                 // drv's lock name, and
	ownPath     string                 // the path our sequential nodes are created under for it (createName)
}

// LockOption configures a Lock or a recipe built on one.
type LockOption func(*lockOptions)

type lockOptions struct {
	data    []byte
	revoke  func(*Lease)
	listing int // refuse an acquire from a listing this large (bytes); 0 = DefaultListingLimit
	grace   time.Duration
	graceOK bool // WithLossGrace was given (0 is a valid grace)
	kind    string
	sticky  time.Duration // WithSticky's idle time; 0 = not sticky
	err     error
}

// WithKind names the recipe that our nodes belong to, recorded in their Identity (Identity.Kind)
// for zklock holders and Participants; the default is CustomKind(drv.LockName()). It changes
// nothing when the node data is not an Identity (WithNodeData with other data, or the
// framework's default data). The built-in recipes set their own kind, after your options.
func WithKind(kind string) LockOption { return func(o *lockOptions) { o.kind = kind } }

// kindLast returns opts followed by WithKind(kind), in a new slice: the recipe's own kind wins.
func kindLast(opts []LockOption, kind string) []LockOption {
	return append(append(make([]LockOption, 0, len(opts)+1), opts...), WithKind(kind))
}

// WithListingLimit sets the size of the lock directory's listing, in bytes as ZooKeeper encodes
// it (4 + the name's length per contender), from which an acquire fails with ErrQueueTooDeep;
// a warning is logged from half of it. The default, DefaultListingLimit, keeps listings readable
// by Java clients (Curator) on the same path, which drop the connection on a reply of 1 MiB or
// more. go-zookeeper reads larger replies: a Go-only deployment may raise it.
func WithListingLimit(bytes int) LockOption {
	return func(o *lockOptions) {
		if bytes <= 0 {
			o.err = fmt.Errorf("%w: listing limit %d bytes, want > 0", ErrInvalidArgument, bytes)
		}
		o.listing = bytes
	}
}

// WithLossGrace sets how long the node of a lost lease is kept, while its session lives, for its
// owner to stop and Release (default: the framework's session timeout). Done closes at the loss
// either way; the grace only delays the handover. A holder then has at least the margin a
// session expiry would give it, and a connection blip, after which the session survives, never
// hands the lock to the next contender while the told holder is still stopping (Curator keeps
// the node until release). The trade-off: a holder that never releases a lost lease blocks the
// lock for the grace. 0 deletes the node as soon as the holder has been told; a negative grace
// is ErrInvalidArgument.
func WithLossGrace(d time.Duration) LockOption {
	return func(o *lockOptions) {
		if d < 0 {
			o.err = fmt.Errorf("%w: loss grace %v, want >= 0", ErrInvalidArgument, d)
		}
		o.grace, o.graceOK = d, true
	}
}

// lossGrace is the grace of a lost lease of l: WithLossGrace's, else the session timeout.
func (l *Lock) lossGrace() time.Duration {
	if l.opts.graceOK {
		return l.opts.grace
	}
	return l.fw.SessionTimeout()
}

// WithNodeData sets the data stored in our lock nodes (default: the framework's default data
// when it has some, else an Identity of this process). Participants and zklock holders show it.
func WithNodeData(data []byte) LockOption {
	return func(o *lockOptions) {
		if data == nil {
			o.err = fmt.Errorf("%w: nil node data", ErrInvalidArgument)
		}
		o.data = append([]byte{}, data...)
	}
}

// WithRevocation makes held leases revocable, as Curator's makeRevocable: when someone writes
// "__REVOKE__" to our node (see Revoke), fn is called with the lease. Revocation is
// cooperative: fn should arrange for the holder to Release. fn runs on the lease's own
// goroutine and should not block for long.
func WithRevocation(fn func(*Lease)) LockOption {
	return func(o *lockOptions) {
		if fn == nil {
			o.err = fmt.Errorf("%w: nil revocation listener", ErrInvalidArgument)
		}
		o.revoke = fn
	}
}

// NewLock returns a lock on the directory path whose contenders follow drv. It does no I/O;
// the path's nodes are created on first Acquire, as containers. A nil framework, driver or
// option, or an invalid path, is an error naming it.
func NewLock(fw *framework.Framework, path string, drv driver.Driver, opts ...LockOption) (*Lock, error) {
	if fw == nil {
		return nil, fmt.Errorf("%w: nil framework", ErrInvalidArgument)
	}
	if drv == nil {
		return nil, fmt.Errorf("%w: nil driver", ErrInvalidArgument)
	}
	if err := validateLockPath(path); err != nil {
		return nil, err
	}
	l := &Lock{fw: fw, path: path, drv: drv, ownName: drv.LockName()}
	l.ownPath = childPath(path, l.ownName)
	for _, o := range opts {
		if o == nil {
			return nil, fmt.Errorf("%w: nil option", ErrInvalidArgument)
		}
		o(&l.opts)
	}
	if l.opts.err != nil {
		return nil, l.opts.err
	}
	if l.opts.sticky > 0 {
		c, err := newStickyCache(l, l.opts.sticky)
		if err != nil {
			return nil, err
		}
		l.sticky = c
	}
	if l.opts.data == nil && len(fw.DefaultData()) == 0 {
		l.opts.data = processIdentity()
	}
	if l.opts.kind == "" {
		l.opts.kind = CustomKind(drv.LockName())
	}
	l.opts.data = withKind(l.opts.data, l.opts.kind)
	if l.opts.revoke != nil {
		l.opts.data = withRevocable(l.opts.data)
	}
	if in, ok := drv.(driver.InputDriver); ok && in.Input() != "" {
		if err := framework.ValidatePath(in.Input()); err != nil {
			return nil, err
		}
		l.input = &inputWatch{fw: fw, path: in.Input()}
	}
	return l, nil
}

// Path returns the lock directory.
func (l *Lock) Path() string { return l.path }

// Driver returns the lock's driver.
func (l *Lock) Driver() driver.Driver { return l.drv }

// Acquire blocks until the driver says we hold the lock, and returns the lease. ctx bounds the
// whole wait, re-queueing after a session expiry included; an already ended ctx fails before
// any request. When ctx ends first, ctx's error is returned at once and our node is deleted in
// the background, by a guaranteed delete that goes on while the framework is open.
func (l *Lock) Acquire(ctx context.Context) (*Lease, error) {
	return l.acquireLease(ctx, l.drv, false)
}

// TryAcquire takes the lock only if the driver grants it at once; otherwise it returns
// ErrLocked, having created and deleted a node as Curator's acquire(0) does.
func (l *Lock) TryAcquire(ctx context.Context) (*Lease, error) {
	return l.acquireLease(ctx, l.drv, true)
}

// Hold is Acquire for InterProcessMultiLock (Locker).
func (l *Lock) Hold(ctx context.Context) (Held, error) { return held(l.Acquire(ctx)) }

// IsAcquiredInThisProcess reports whether a lease taken through this Lock is held (it may
// have been lost: see the lease's Done), as Curator's isAcquiredInThisProcess.
func (l *Lock) IsAcquiredInThisProcess() bool { return l.held.Load() > 0 }

// Participants lists the contenders in the driver's order (the holder first for a mutex),
// with their node data.
func (l *Lock) Participants(ctx context.Context) ([]Participant, error) {
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	return participants(ctx, l.fw, l.path, l.drv, "")
}

// acquireLease runs the loop with drv (the lock's own, or a per-call one such as a
// downgrade's) and wraps the grant in a lease owned by l.
func (l *Lock) acquireLease(ctx context.Context, drv driver.Driver, try bool) (*Lease, error) {
	return l.acquireLeaseIf(ctx, drv, try, nil)
}

// acquireLeaseIf is acquireLease with a last check at the grant: when valid (if not nil)
// refuses the grant, our node is deleted (a cleanup, as on any failure) and its error returned.
// A downgrade checks there that the write lease it derives from is still held.
func (l *Lock) acquireLeaseIf(ctx context.Context, drv driver.Driver, try bool, valid func() error) (*Lease, error) {
	if err := checkContext(ctx); err != nil {
		return nil, err
	}
	start := time.Now()
	if lease, ok, err := l.sticky.local(ctx, drv, try); ok {
		return l.stickyGranted(lease, err, start)
	}
	l.sticky.flushStale(ctx)
	l.yieldKin(ctx)
	g, err := l.acquire(ctx, drv, try)
	if err != nil {
		return nil, fmt.Errorf("recipes: acquire %s: %w", l.path, err)
	}
	if valid != nil {
		if err := valid(); err != nil {
			l.abandon(ctx, g.path)
			return nil, fmt.Errorf("recipes: acquire %s: %w", l.path, err)
		}
	}
	l.event(eventAcquired, g.path, time.Since(start), nil)
	l.sticky.adopt(&g, drv)
	lease := newLease(l, g)
	l.sticky.attach(lease.node, g.own == nil)
	if l.opts.revoke != nil {
		fn := l.opts.revoke
		go watchRevocation(lease, fn)
	}
	return lease, nil
}

// held converts a lease result to a Held without a typed nil.
func held[T Held](v T, err error) (Held, error) {
	if err != nil {
		return nil, err
	}
	return v, nil
}

// validateLockPath refuses what the framework refuses, and the root: a lock
// directory must be a node of its own.
func validateLockPath(p string) error {
	if p == "/" {
		return fmt.Errorf("%w: %q: a lock cannot live at the root", framework.ErrInvalidPath, p)
	}
	return framework.ValidatePath(p)
}

// checkContext refuses a nil or already finished context before any request.
func checkContext(ctx context.Context) error {
	if ctx == nil {
		return framework.ErrNilContext
	}
	return ctx.Err()
}

// isMissing reports whether err says our own node is gone.
func isMissing(err error) bool { return errors.Is(err, driver.ErrOwnNodeMissing) }
