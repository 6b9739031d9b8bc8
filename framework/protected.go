package framework

import (
	"context"
	"errors"
	"path"
	"strings"
	"sync/atomic"

	"github.com/go-zookeeper/zk"
	"github.com/google/uuid"
	"github.com/zkrecipes/zkrecipes/retry"
)

// protectedPrefixLen is len("_c_") + 36 (canonical UUID) + len("-"), as Curator's ProtectedUtils.
const protectedPrefixLen = 40

// ProtectedPrefix returns "_c_<id>-", the prefix a Protected create puts on the last segment.
func ProtectedPrefix(id string) string { return "_c_" + id + "-" }

// IsProtected reports whether a node name carries a Curator protection prefix.
func IsProtected(name string) bool {
	if len(name) <= protectedPrefixLen || !strings.HasPrefix(name, "_c_") || name[39] != '-' {
		return false
	}
	_, err := uuid.Parse(name[3:39])
	return err == nil
}

// StripProtected removes a protection prefix from a node name, if any.
func StripProtected(name string) string {
	if IsProtected(name) {
		return name[protectedPrefixLen:]
	}
	return name
}

// protectedCreate is the state of one Protected create across its retries.
type protectedCreate struct {
	f        *Framework
	parent   string // server path
	prefix   string
	full     string // server path with the prefix
	data     []byte
	cc       *createConfig
	sentBy   int64           // session that sent the last create
	sentIn   *Session        // epoch current when the last create was sent
	inFlight <-chan struct{} // closes when the last create request has ended
	tried    bool
	retried  bool // an attempt came after another: duplicates of our node may exist
}

// newProtectedID returns the GUID of a protected create of f; tests replace it (export_test.go).
var newProtectedID atomic.Pointer[func(f *Framework) string]

func init() {
	id := protectedID
	newProtectedID.Store(&id)
}

// newProtectedCreate prepares a protected create of p (namespace-relative).
func (f *Framework) newProtectedCreate(p string, data []byte, cc *createConfig) *protectedCreate {
	full := f.full(p)
	parent, base := splitPath(full)
	id := (*newProtectedID.Load())(f)
	sep := "/"
	if parent == "/" {
		sep = ""
	}
	// One string for the path, the prefix a slice of it: one allocation, not three (issue 27).
	pc := &protectedCreate{f: f, parent: parent, data: data, cc: cc}
	pc.full = parent + sep + "_c_" + id + "-" + base
	at := len(parent) + len(sep)
	pc.prefix = pc.full[at : at+len("_c_")+len(id)+len("-")]
	return pc
}

// splitPath is path.Dir and path.Base of a validated absolute path (no trailing or doubled
// slash, not "/"), without path.Dir's cleaning (issue 27: every protected create).
func splitPath(p string) (dir, base string) {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return "/", p[i+1:]
	}
	return p[:i], p[i+1:]
}

// run creates with the protection prefix. Before each retry it lists the parent and adopts a node
// with our prefix (for ephemerals only if its owner is the session that sent the create; otherwise
// that node is deleted in the background and a new one created). If the create finally fails, any
// node with our prefix is deleted in the background.
func (pc *protectedCreate) run(ctx context.Context) (string, *Session, error) {
	var created string
	var lastErr error
	err := pc.f.retry(ctx, func(ctx context.Context) error {
		var err error
		created, err = pc.attempt(ctx)
		lastErr = err
		return err
	})
	if err != nil {
		if pc.ambiguous(ctx, lastErr) {
			pc.cleanupInBackground()
		}
		return "", nil, err
	}
	if pc.retried {
		pc.removeDuplicates(ctx, created)
	}
	return pc.f.rel(created), pc.sentIn, nil
}

// attempt looks for our node (after a first try) and otherwise creates it.
func (pc *protectedCreate) attempt(ctx context.Context) (string, error) {
	if pc.tried {
		pc.retried = true
		found, err := pc.find(ctx)
		if err != nil || found != "" {
			return found, err
		}
	}
	pc.tried = true
	pc.sentBy = pc.f.conn.SessionID()
	created, sess, done, err := pc.f.createAttempt(ctx, pc.full, pc.data, pc.cc)
	pc.inFlight = done
	if sess != nil {
		pc.sentIn = sess
	}
	return created, err
}

// find lists the parent for children with our prefix. A persistent node is adopted. An ephemeral
// one is adopted only if it is owned by the session that sent the create and is still ours; any
// other ephemeral with our prefix (a dead session's node that a lagging server still shows) is
// deleted in the background, so that the caller creates anew.
func (pc *protectedCreate) find(ctx context.Context) (string, error) {
	children, err := pc.f.syncedChildren(ctx, pc.parent)
	if errors.Is(err, zk.ErrNoNode) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	adopted := ""
	for _, name := range children {
		if !strings.HasPrefix(name, pc.prefix) {
			continue
		}
		node := path.Join(pc.parent, name)
		if !pc.cc.mode.isEphemeral() {
			return node, nil
		}
		ours, err := pc.ownEphemeral(ctx, node)
		if err != nil {
			return "", err
		}
		if ours && adopted == "" {
			adopted = node
		}
	}
	return adopted, nil
}

// ownEphemeral reports whether node is owned by the session that sent the create, which must
// still be the current session. A node owned by any other session is deleted in the background.
func (pc *protectedCreate) ownEphemeral(ctx context.Context, node string) (bool, error) {
	stat, err := call(pc.f, ctx, func() (*Stat, error) {
		ok, s, err := pc.f.conn.Exists(node)
		if !ok {
			s = nil
		}
		return s, err
	})
	if err != nil || stat == nil { // nil: deleted since the listing
		return false, err
	}
	if stat.EphemeralOwner != 0 && stat.EphemeralOwner == pc.sentBy && pc.sentBy == pc.f.conn.SessionID() {
		return true, nil
	}
	if stat.EphemeralOwner != 0 {
		pc.f.log.Info("framework: protected node of another session, deleting", "path", node,
			"owner", stat.EphemeralOwner)
		pc.f.deleteInBackground(node, -1)
	}
	return false, nil
}

// syncedChildren lists a parent (a server path) after a Sync, so that a server that lags behind
// the leader (one we reconnected to after a lost reply) cannot hide a node that was created.
func (f *Framework) syncedChildren(ctx context.Context, parent string) ([]string, error) {
	if _, err := call(f, ctx, func() (string, error) { return f.conn.Sync(parent) }); err != nil {
		return nil, err
	}
	return call(f, ctx, func() ([]string, error) {
		c, _, err := f.conn.Children(parent)
		return c, err
	})
}

// removeDuplicates deletes every child with our prefix other than keep (a server path): after a
// retried create, an earlier attempt may have created a node that the retry did not find. Such a
// node would sort ahead of ours for as long as our session lives. A delete that fails goes on in
// the background.
func (pc *protectedCreate) removeDuplicates(ctx context.Context, keep string) {
	children, err := pc.f.syncedChildren(ctx, pc.parent)
	if err != nil {
		pc.f.log.Debug("framework: protected create: duplicate check failed", "parent", pc.parent, "err", err)
		pc.cleanupDuplicatesInBackground(keep)
		return
	}
	for _, name := range children {
		node := path.Join(pc.parent, name)
		if !strings.HasPrefix(name, pc.prefix) || node == keep {
			continue
		}
		pc.f.log.Info("framework: protected create: deleting a duplicate of our node", "path", node, "kept", keep)
		if err := pc.f.deleteOnce(ctx, node, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
			pc.f.deleteInBackground(node, -1)
		}
	}
}

// cleanupDuplicatesInBackground is removeDuplicates on a background goroutine, until it succeeds
// or the Framework closes.
func (pc *protectedCreate) cleanupDuplicatesInBackground(keep string) {
	pc.f.goBackground(func(ctx context.Context) {
		for ctx.Err() == nil {
			children, err := pc.f.listForCleanup(ctx, pc.parent)
			if err != nil {
				continue
			}
			for _, name := range children {
				if node := path.Join(pc.parent, name); strings.HasPrefix(name, pc.prefix) && node != keep {
					pc.f.deleteGuaranteed(ctx, node, -1)
				}
			}
			return
		}
	})
}

// ambiguous reports whether the final failure leaves the create's outcome unknown.
func (pc *protectedCreate) ambiguous(ctx context.Context, err error) bool {
	if !pc.tried {
		return false
	}
	return ctx.Err() != nil || errors.Is(err, ErrClosed) || Classify(err) != retry.Permanent
}

// cleanupInBackground waits for the last create to end, then deletes any child with our prefix.
func (pc *protectedCreate) cleanupInBackground() {
	f := pc.f
	inFlight := pc.inFlight
	f.goBackground(func(ctx context.Context) {
		if inFlight != nil {
			select {
			case <-inFlight:
			case <-ctx.Done():
				return
			}
		}
		for ctx.Err() == nil {
			children, err := f.listForCleanup(ctx, pc.parent)
			if err == nil {
				for _, name := range children {
					if strings.HasPrefix(name, pc.prefix) {
						f.deleteGuaranteed(ctx, path.Join(pc.parent, name), -1)
					}
				}
				return
			}
			f.log.Debug("framework: protected cleanup: listing failed", "parent", pc.parent, "err", err)
		}
	})
}

// listForCleanup lists a parent for background cleanup, after a Sync (a lagging server must not
// hide a node of ours); NoNode means nothing to clean.
func (f *Framework) listForCleanup(ctx context.Context, parent string) ([]string, error) {
	var children []string
	err := f.retry(ctx, func(ctx context.Context) error {
		var err error
		children, err = f.syncedChildren(ctx, parent)
		return err
	})
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil
	}
	if err != nil && f.classify(err) == retry.Permanent && ctx.Err() == nil {
		f.log.Warn("framework: protected cleanup gave up", "parent", parent, "err", err)
		return nil, nil
	}
	if err != nil {
		pause(ctx, f.cfg.connTimeout/5)
	}
	return children, err
}
