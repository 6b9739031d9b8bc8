package interop

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

//go:embed kazoo/kazoo_contender.py
var kazooSource []byte

// KazooPython is the interpreter that has Debian's python3-kazoo (a pyenv python3 on PATH has not).
const KazooPython = "/usr/bin/python3"

// ErrKazooMissing means KazooPython cannot import kazoo.
var ErrKazooMissing = errors.New("interop: kazoo not found for " + KazooPython + " (apt-get install -y python3-kazoo)")

// KazooAvailable returns nil when KazooPython can import kazoo, else an error wrapping
// ErrKazooMissing.
func KazooAvailable() error {
	if err := exec.Command(KazooPython, "-c", "import kazoo.recipe.lock").Run(); err != nil {
		return fmt.Errorf("%w: %v", ErrKazooMissing, err)
	}
	return nil
}

// KazooOptions configure a kazoo process.
type KazooOptions struct {
	// Identifier is the kazoo identifier of every lock the process takes: its node data.
	Identifier string
	// Fix649 replaces kazoo 2.8's Lock._get_predecessor by kazoo 2.9's: a 2.8 ReadLock also
	// waits for write nodes queued after it, which deadlocks with them (kazoo#649).
	Fix649 bool
	// Session is the session timeout; 0 means 30 s.
	Session time.Duration
}

// KazooProcess is one python3 running kazoo_contender.py (kazoo/, embedded in this package):
// one KazooClient, one ZooKeeper session. Safe for concurrent use, but commands run one at a
// time, so a blocked acquire delays every later command; use several processes for several
// contenders. Every method takes a ctx: if it ends before the reply, the process is killed (its
// session then expires after its timeout) and later calls fail with ErrClosed.
type KazooProcess struct {
	p         *lineProcess
	dir       string
	sessionID int64
}

// StartKazoo starts a kazoo contender against servers (a ZooKeeper connect string) and returns
// once its session is established. It wraps ErrKazooMissing when kazoo is not installed; ctx
// bounds the start.
func StartKazoo(ctx context.Context, servers string, o KazooOptions) (*KazooProcess, error) {
	if err := KazooAvailable(); err != nil {
		return nil, err
	}
	if o.Session == 0 {
		o.Session = 30 * time.Second
	}
	dir, err := os.MkdirTemp("", "zkrecipes-kazoo-")
	if err != nil {
		return nil, err
	}
	script := filepath.Join(dir, "kazoo_contender.py")
	if err := os.WriteFile(script, kazooSource, 0o644); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	args := []string{script, servers, strconv.FormatInt(o.Session.Milliseconds(), 10), o.Identifier}
	if o.Fix649 {
		args = append(args, "--fix-649")
	}
	cmd := exec.Command(KazooPython, args...)
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	p, first, err := startLineProcess(ctx, cmd)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	h, ok := strings.CutPrefix(first, "ready ")
	id, perr := strconv.ParseUint(h, 16, 64)
	if !ok || perr != nil {
		p.kill()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("%w: bad greeting %q; stderr: %s", ErrRemote, first, p.stderr.String())
	}
	return &KazooProcess{p: p, dir: dir, sessionID: int64(id)}, nil
}

// SessionID is the ZooKeeper session id of the kazoo client.
func (k *KazooProcess) SessionID() int64 { return k.sessionID }

// Acquire takes kazoo's Lock on path, waiting at most timeout, and returns the full path of its
// node (<uuid hex>__lock__<seq>). ErrTimeout when the lock stayed busy.
func (k *KazooProcess) Acquire(ctx context.Context, path string, timeout time.Duration) (string, error) {
	return k.p.call(ctx, fmt.Sprintf("acquire %s %d", path, timeout.Milliseconds()))
}

// TryAcquire takes kazoo's Lock only if it is free (blocking=False); ErrRemote ("busy") if not.
func (k *KazooProcess) TryAcquire(ctx context.Context, path string) (string, error) {
	return k.p.call(ctx, "try-acquire "+path)
}

// Release releases kazoo's Lock on path.
func (k *KazooProcess) Release(ctx context.Context, path string) error {
	_, err := k.p.call(ctx, "release "+path)
	return err
}

// ReadAcquire takes kazoo's ReadLock on path (<uuid hex>__rlock__<seq>); returns its node.
func (k *KazooProcess) ReadAcquire(ctx context.Context, path string, timeout time.Duration) (string, error) {
	return k.p.call(ctx, fmt.Sprintf("read-acquire %s %d", path, timeout.Milliseconds()))
}

// ReadRelease releases kazoo's ReadLock on path.
func (k *KazooProcess) ReadRelease(ctx context.Context, path string) error {
	_, err := k.p.call(ctx, "read-release "+path)
	return err
}

// WriteAcquire takes kazoo's WriteLock on path (<uuid hex>__lock__<seq>); returns its node.
func (k *KazooProcess) WriteAcquire(ctx context.Context, path string, timeout time.Duration) (string, error) {
	return k.p.call(ctx, fmt.Sprintf("write-acquire %s %d", path, timeout.Milliseconds()))
}

// WriteRelease releases kazoo's WriteLock on path.
func (k *KazooProcess) WriteRelease(ctx context.Context, path string) error {
	_, err := k.p.call(ctx, "write-release "+path)
	return err
}

// Contenders is kazoo's Lock(path).contenders(): the node data (identifiers) of the contenders
// kazoo sees, in its queue order.
func (k *KazooProcess) Contenders(ctx context.Context, path string) ([]string, error) {
	r, err := k.p.call(ctx, "contenders "+path)
	if err != nil {
		return nil, err
	}
	var ids []string
	if err := json.Unmarshal([]byte(r), &ids); err != nil {
		return nil, fmt.Errorf("%w: contenders %q: %v", ErrRemote, r, err)
	}
	return ids, nil
}

// Version is the kazoo version the process runs.
func (k *KazooProcess) Version(ctx context.Context) (string, error) {
	return k.p.call(ctx, "version")
}

// Close asks the process to stop its client (deleting its ephemeral nodes) and exit; after 10 s
// it is killed. Idempotent.
func (k *KazooProcess) Close() error {
	err := k.p.close(10 * time.Second)
	os.RemoveAll(k.dir)
	return err
}
