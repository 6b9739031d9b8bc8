package recipes

import "strings"

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
