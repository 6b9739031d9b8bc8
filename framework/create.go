package framework

import (
	"context"
	"errors"
	"fmt"
	"path"
	"time"

	"github.com/go-zookeeper/zk"
)

// Mode is a znode create mode.
type Mode int

// Create modes (Java's CreateMode).
const (
	Persistent Mode = iota
	Ephemeral
	PersistentSequential
	EphemeralSequential
	Container
	PersistentTTL
	PersistentSequentialTTL
)

// String names the mode.
func (m Mode) String() string {
	names := [...]string{"Persistent", "Ephemeral", "PersistentSequential", "EphemeralSequential",
		"Container", "PersistentTTL", "PersistentSequentialTTL"}
	if m >= 0 && int(m) < len(names) {
		return names[m]
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// flag returns go-zookeeper's create flag.
func (m Mode) flag() (int32, error) {
	switch m {
	case Persistent:
		return zk.FlagPersistent, nil
	case Ephemeral:
		return zk.FlagEphemeral, nil
	case PersistentSequential:
		return zk.FlagSequence, nil
	case EphemeralSequential:
		return zk.FlagEphemeralSequential, nil
	case Container:
		return zk.FlagContainer, nil
	case PersistentTTL:
		return zk.FlagTTL, nil
	case PersistentSequentialTTL:
		return zk.FlagPersistentSequentialWithTTL, nil
	}
	return 0, fmt.Errorf("%w: create mode %d", ErrInvalidOption, int(m))
}

func (m Mode) isTTL() bool       { return m == PersistentTTL || m == PersistentSequentialTTL }
func (m Mode) isEphemeral() bool { return m == Ephemeral || m == EphemeralSequential }

// maxTTL is ZooKeeper's largest TTL (40 bits of milliseconds).
const maxTTL = time.Duration(0xffffffffff) * time.Millisecond

// CreateOption configures Create.
type CreateOption func(*createConfig)

type createConfig struct {
	mode      Mode
	ttl       time.Duration
	acl       []ACL
	protected bool
	parents   bool
}

// WithMode sets the create mode (default Persistent).
func WithMode(m Mode) CreateOption { return func(c *createConfig) { c.mode = m } }

// WithTTL sets the TTL of a PersistentTTL / PersistentSequentialTTL node (required for them, refused
// otherwise). The server needs extendedTypesEnabled=true, else Create fails with ErrUnimplemented.
func WithTTL(d time.Duration) CreateOption { return func(c *createConfig) { c.ttl = d } }

// WithACL sets the node's ACL (default: the ACL provider's).
func WithACL(acl []ACL) CreateOption { return func(c *createConfig) { c.acl = acl } }

// Protected prefixes the last segment with "_c_<uuid>-" so that a create whose reply was lost can
// be found again (Curator's protection mode): before a retry the parent is synced and listed; after a
// create that needed a retry, every other node with the prefix is deleted.
func Protected() CreateOption { return func(c *createConfig) { c.protected = true } }

// CreatingParents creates missing parents as containers (empty data, the provider's ACL).
func CreatingParents() CreateOption { return func(c *createConfig) { c.parents = true } }

func (c *createConfig) validate() error {
	if _, err := c.mode.flag(); err != nil {
		return err
	}
	switch {
	case c.mode.isTTL() && (c.ttl <= 0 || c.ttl > maxTTL):
		return fmt.Errorf("%w: TTL %v for mode %d", ErrInvalidOption, c.ttl, c.mode)
	case !c.mode.isTTL() && c.ttl != 0:
		return fmt.Errorf("%w: TTL given for a mode without TTL", ErrInvalidOption)
	}
	return nil
}

// Create creates a node and returns its namespace-relative path (with any sequence suffix and
// protection prefix). nil data means DefaultData. On ctx end it returns ctx's error while the create
// may still happen on the server (a Protected create then deletes it in the background).
func (f *Framework) Create(ctx context.Context, p string, data []byte, opts ...CreateOption) (string, error) {
	created, _, err := f.CreateIn(ctx, p, data, opts...)
	return created, err
}

// CreateIn is Create that also returns the session epoch in which the node was created (for an
// adopted protected node: the epoch of its ephemeral owner's create). The epoch may already have
// ended; compare its ID with the session that decides, rather than trusting it to be live. On
// error it returns no epoch, like Create.
func (f *Framework) CreateIn(ctx context.Context, p string, data []byte, opts ...CreateOption) (_ string, _ *Session, err error) {
	defer f.traceOp("create", p, f.traceStart(), &err)
	cc, data, err := f.prepareCreate(ctx, p, data, opts)
	if err != nil {
		return "", nil, err
	}
	if cc.protected {
		return f.newProtectedCreate(p, data, &cc).run(ctx)
	}
	return f.createPlain(ctx, p, data, &cc)
}

// createPlain runs an unprotected create under the retry policy.
func (f *Framework) createPlain(ctx context.Context, p string, data []byte, cc *createConfig) (string, *Session, error) {
	var created string
	var sess *Session
	err := f.retry(ctx, func(ctx context.Context) error {
		var err error
		created, sess, _, err = f.createAttempt(ctx, f.full(p), data, cc)
		return err
	})
	if err != nil {
		return "", nil, err
	}
	return f.rel(created), sess, nil
}

// prepareCreate validates a create and applies its options and defaults.
func (f *Framework) prepareCreate(ctx context.Context, p string, data []byte, opts []CreateOption) (createConfig, []byte, error) {
	var cc createConfig
	for _, o := range opts {
		o(&cc)
	}
	if err := f.check(ctx, p, true); err != nil {
		return cc, nil, err
	}
	if err := cc.validate(); err != nil {
		return cc, nil, err
	}
	if data == nil {
		data = f.cfg.defaultData
	}
	if err := validateData(p, data); err != nil {
		return cc, nil, err
	}
	if cc.acl == nil {
		cc.acl = f.cfg.acl.ForPath(f.full(p))
	}
	return cc, data, nil
}

// createAttempt is one attempt: create; on NoNode create the parents (CreatingParents, or the
// namespace node alone) and try again, at most parentRounds times in all: a container parent
// can be reaped between its creation and the create that needed it. It returns the epoch current
// when the last create was sent, and a channel that closes when the last request ended.
func (f *Framework) createAttempt(ctx context.Context, full string, data []byte, cc *createConfig) (string, *Session, <-chan struct{}, error) {
	parent := path.Dir(full)
	mkdirs := cc.parents || f.ns != "" && parent == f.ns // the namespace container may have been reaped
	for round := 1; ; round++ {
		created, sess, done, err := f.createNode(ctx, full, data, cc)
		if !errors.Is(err, zk.ErrNoNode) || !mkdirs || round == parentRounds {
			return created, sess, done, err
		}
		// A parent reaped after it was made fails that create with NoNode: the next round
		// walks again.
		if err := f.makeParents(ctx, parent); err != nil && !errors.Is(err, zk.ErrNoNode) {
			return "", nil, done, err
		}
		if h := f.mkdirsHook.Load(); h != nil {
			(*h)(mkdirsMade, parent)
		}
	}
}

// createNode sends one create request in the right flavour. Its epoch is the epoch of the
// connection that carried it (replyepoch.go), settled from that connection alone: never the
// epoch current after the reply, which may belong to a later session.
func (f *Framework) createNode(ctx context.Context, full string, data []byte, cc *createConfig) (string, *Session, <-chan struct{}, error) {
	flag, _ := cc.mode.flag()
	carrier := f.sockets.carrier()
	created, err, done := callTrackedWith(f, ctx, createArgs{f.conn, full, data, flag, cc}, func(a createArgs) (string, error) {
		switch {
		case a.cc.mode == Container:
			return a.conn.CreateContainer(a.full, a.data, a.flag, a.cc.acl)
		case a.cc.mode.isTTL():
			return a.conn.CreateTTL(a.full, a.data, a.flag, a.cc.acl, a.cc.ttl)
		}
		return a.conn.Create(a.full, a.data, a.flag, a.cc.acl)
	})
	f.replyHook(err)
	return created, carrier.replyEpoch(), done, err
}

// createArgs is a create request's argument (callWith).
type createArgs struct {
	conn *zk.Conn
	full string
	data []byte
	flag int32
	cc   *createConfig
}

// mkdirs creates every missing node of dir (a server path) as a container with empty data,
// ignoring NodeExists. It walks up with exists() to the deepest existing ancestor first.
func (f *Framework) mkdirs(ctx context.Context, dir string) error {
	var missing []string
	for d := dir; d != "/"; d = path.Dir(d) {
		s, err := call(f, ctx, func() (bool, error) {
			ok, _, err := f.conn.Exists(d)
			return ok, err
		})
		if err != nil {
			return err
		}
		if s {
			break
		}
		missing = append(missing, d)
	}
	if h := f.mkdirsHook.Load(); h != nil && len(missing) > 0 {
		(*h)(mkdirsWalked, path.Dir(missing[len(missing)-1]))
	}
	for i := len(missing) - 1; i >= 0; i-- {
		d := missing[i]
		_, err := call(f, ctx, func() (string, error) {
			return f.conn.CreateContainer(d, []byte{}, zk.FlagContainer, f.cfg.acl.ForPath(d))
		})
		if err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return err
		}
	}
	return nil
}

// makeParents is mkdirs, walked again (parentRounds walks at most) while it fails with NoNode:
// an ancestor it found was reaped before the node below it was made. A parent's reaping leaves
// its own parent an empty container that had a child, which the server's next container check
// reaps too, at any point of the next walk; a create sent after a making that failed so would
// only fail again.
func (f *Framework) makeParents(ctx context.Context, dir string) error {
	var err error
	for range parentRounds {
		if err = f.mkdirs(ctx, dir); !errors.Is(err, zk.ErrNoNode) {
			return err
		}
	}
	return err
}

// mkdirsPoint names a point of the making of missing parents, for a test hook.
type mkdirsPoint int

const (
	mkdirsWalked mkdirsPoint = iota // the existing ancestors are found; the missing ones are not made yet
	mkdirsMade                      // the parents are made; the create is not sent again yet
)
