package recipes

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/zkrecipes/zkrecipes/driver"
)

// Recipe kinds, as RecipeOf names them from a contender node's name, and as each recipe of
// ours records itself in its nodes' Identity (Identity.Kind).
const (
	KindMutex     = "mutex"           // "lock-": InterProcessMutex, LeaderSelector, a semaphore's internal mutex
	KindLatch     = "leader latch"    // "latch-": LeaderLatch
	KindWrite     = "write lock"      // "__WRIT__": InterProcessReadWriteLock's write side
	KindRead      = "read lock"       // "__READ__": InterProcessReadWriteLock's read side
	KindLease     = "semaphore"       // "lease-": InterProcessSemaphoreV2's leases
	KindKazooLock = "kazoo lock"      // "__lock__": kazoo's Lock
	KindKazooRead = "kazoo read lock" // "__rlock__": kazoo's ReadLock
	KindUnknown   = "unknown"

	// Recorded in Identity.Kind only: their names are those of a mutex.
	KindSelector      = "leader selector"         // "lock-": LeaderSelector
	KindSemaphoreLock = "semaphore internal lock" // "lock-" under P/locks: the semaphore's internal mutex
)

// CustomKind is the kind a Lock records when no recipe named it (NewLock with a driver of your
// own and no WithKind): "custom:" and the driver's lock name.
func CustomKind(lockName string) string { return kindCustomPrefix + lockName }

// IsCustomKind reports whether kind was made by CustomKind.
func IsCustomKind(kind string) bool { return strings.HasPrefix(kind, kindCustomPrefix) }

const kindCustomPrefix = "custom:"

// RecipeOf tells which recipe created a contender node, from its name alone (Curator's and
// kazoo's layouts, which are ours too), or KindUnknown.
func RecipeOf(name string) string {
	switch {
	case strings.Contains(name, "__WRIT__"):
		return KindWrite
	case strings.Contains(name, "__READ__"):
		return KindRead
	case strings.Contains(name, "__rlock__"):
		return KindKazooRead
	case strings.Contains(name, "__lock__"):
		return KindKazooLock
	case strings.Contains(name, "latch-"):
		return KindLatch
	case strings.Contains(name, "lease-"):
		return KindLease
	case strings.Contains(name, "lock-"):
		return KindMutex
	}
	return KindUnknown
}

// contenderLockNames are the lock names of the contender nodes Revoke accepts: Curator's
// recipes, and ours, kazoo's names included (zklock exec --kazoo --revocable). Nodes kazoo made
// (<uuid hex>__lock__<seq>, without "_c_") are refused: kazoo never reads a revocation.
var contenderLockNames = []string{driver.MutexLockName, "latch-", driver.WriteLockName, driver.ReadLockName,
	driver.LeaseLockName, driver.KazooLockName, driver.KazooReadLockName}

// CheckContender reports whether nodePath names a contender node of a lock, from the path
// alone (it does no I/O): its name must be [_c_<uuid>-]<lock name><10-digit sequence> with a
// lock name RecipeOf knows, and its parent a lock directory (not the root, not a contender).
// The error wraps ErrNotContender and says why.
func CheckContender(nodePath string) error {
	if !strings.HasPrefix(nodePath, "/") {
		return fmt.Errorf("%w: %s: not an absolute path", ErrNotContender, nodePath)
	}
	parent, name := path.Split(nodePath)
	if why := contenderName(name); why != "" {
		return fmt.Errorf("%w: %s: %s", ErrNotContender, nodePath, why)
	}
	switch parent = path.Clean(parent); {
	case parent == "/":
		return fmt.Errorf("%w: %s: the root is not a lock directory", ErrNotContender, nodePath)
	case contenderName(path.Base(parent)) == "":
		return fmt.Errorf("%w: %s: its parent is a contender node, not a lock directory", ErrNotContender, nodePath)
	}
	return nil
}

// contenderName returns why name is not a contender node's name, or "".
func contenderName(name string) string {
	rest := name
	if strings.HasPrefix(rest, "_c_") {
		if len(rest) < len("_c_")+36+1 || !isGUID(rest[3:39]) || rest[39] != '-' {
			return "a protected name is _c_<uuid>-<lock name><sequence>"
		}
		rest = rest[40:]
	}
	if len(rest) <= 10 || !isDigits(rest[len(rest)-10:]) {
		return "a contender's name ends in a 10-digit sequence"
	}
	lockName := rest[:len(rest)-10]
	if !slices.Contains(contenderLockNames, lockName) || RecipeOf(lockName) == KindUnknown {
		return fmt.Sprintf("%q is no known lock name (%s)", lockName, strings.Join(contenderLockNames, ", "))
	}
	return ""
}

// isGUID reports whether s has the form of a UUID's text (8-4-4-4-12 hexadecimal digits).
func isGUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
				return false
			}
		}
	}
	return true
}

// isDigits reports whether s is all ASCII digits.
func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
