package recipes

import "strings"

// Recipe kinds, as RecipeOf names them from a contender node's name.
const (
	KindMutex     = "mutex"           // "lock-": InterProcessMutex, LeaderSelector, a semaphore's internal mutex
	KindLatch     = "leader latch"    // "latch-": LeaderLatch
	KindWrite     = "write lock"      // "__WRIT__": InterProcessReadWriteLock's write side
	KindRead      = "read lock"       // "__READ__": InterProcessReadWriteLock's read side
	KindLease     = "semaphore"       // "lease-": InterProcessSemaphoreV2's leases
	KindKazooLock = "kazoo lock"      // "__lock__": kazoo's Lock
	KindKazooRead = "kazoo read lock" // "__rlock__": kazoo's ReadLock
	KindUnknown   = "unknown"
)

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
