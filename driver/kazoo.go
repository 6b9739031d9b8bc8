package driver

import "strings"

// Lock names of kazoo's lock recipes (kazoo.recipe.lock), which the Kazoo drivers take too.
const (
	KazooLockName     = "__lock__"  // kazoo's Lock and WriteLock: <uuid hex>__lock__<seq>
	KazooReadLockName = "__rlock__" // kazoo's ReadLock: <uuid hex>__rlock__<seq>
)

// kazooDriver contends on a path locked with kazoo (Python): our nodes take kazoo's own names
// after the protected prefix, so kazoo sees them as its contenders without any
// extra_lock_patterns, and every node sorts by its sequence, as kazoo 2.7.1+ sorts.
type kazooDriver struct {
	read bool
}

// KazooLock is the driver of a mutex, and of a read-write lock's write side, on a kazoo lock
// path: our node is "_c_<uuid>-__lock__<seq>", which kazoo's Lock, WriteLock and ReadLock take
// for one of their own "__lock__" nodes. Children sort by SequenceKey; we hold when no node
// sorts before ours, and otherwise watch the node just before ours, whatever it is. That is
// kazoo's WriteLock predicate (it waits for every earlier "__lock__" and "__rlock__" node), and
// stricter than kazoo's Lock, which ignores readers. Unlike kazoo, which skips the children its
// patterns do not match, every sequential child counts, as in Curator: a foreign node blocks.
func KazooLock() Driver { return kazooDriver{} }

// KazooRead is the read side of a read-write lock on a kazoo lock path: our node is
// "_c_<uuid>-__rlock__<seq>", a reader to kazoo. We hold when every node that sorts before
// ours is a reader ("__rlock__" before its sequence); otherwise we watch the nearest earlier
// non-reader, as kazoo 2.9's ReadLock does. A foreign node counts as a writer. There is no
// downgrade: kazoo has none.
func KazooRead() Driver { return kazooDriver{read: true} }

// LockName returns "__lock__", or "__rlock__" for KazooRead.
func (d kazooDriver) LockName() string {
	if d.read {
		return KazooReadLockName
	}
	return KazooLockName
}

// SortKey is SequenceKey: kazoo sorts its contenders by the 10 digits at the end of the name.
func (kazooDriver) SortKey(child string) string { return SequenceKey(child) }

// Node is the zero Node: ephemeral sequential, as kazoo's are.
func (kazooDriver) Node() Node { return Node{} }

// Decide holds when no blocking node sorts before ours (for a writer every node, for a reader
// every non-reader); otherwise it watches the nearest one. Its deletion proves that we hold
// when it is the only blocking node ahead and it is sequential (no node created later can sort
// before ours).
func (d kazooDriver) Decide(v View) Decision {
	if !inRange(v) {
		return Decision{}
	}
	watch, blockers := -1, 0
	for i := v.Index - 1; i >= 0; i-- {
		if d.read && IsKazooReader(v.Sorted[i]) {
			continue
		}
		if watch < 0 {
			watch = i
		}
		blockers++
		if blockers > 1 {
			break
		}
	}
	if watch < 0 {
		return Decision{Holds: true}
	}
	_, sequential := sequenceOf(v.Sorted[watch])
	return Decision{WatchNode: v.Sorted[watch], GoneHolds: blockers == 1 && sequential}
}

// IsKazooReader reports whether name is a read node of a kazoo lock path, kazoo's or ours:
// "__rlock__" just before its 10-digit sequence, as kazoo's pattern matches it.
func IsKazooReader(name string) bool {
	if _, ok := sequenceOf(name); !ok {
		return false
	}
	return strings.HasSuffix(name[:len(name)-sequenceDigits], KazooReadLockName)
}

// IsKazooNode reports whether name is a node that kazoo itself created: a 32-digit lowercase
// hex uuid, "__lock__" or "__rlock__", and a sequence (kazoo's Lock, WriteLock and ReadLock).
// Our own nodes on a kazoo path carry the protected prefix "_c_<uuid>-" instead. Any name is
// accepted: one too short to hold the uuid and the sequence apart is no kazoo node.
func IsKazooNode(name string) bool {
	if _, ok := sequenceOf(name); !ok || len(name) < 32+sequenceDigits {
		return false
	}
	for i := 0; i < 32; i++ {
		if c := name[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	kind := name[32 : len(name)-sequenceDigits]
	return kind == KazooLockName || kind == KazooReadLockName
}
