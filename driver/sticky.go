package driver

import "strings"

// StickyDriver is a Driver whose lock may be cached: a released node kept, idle, by its
// process and re-granted there without a request for as long as no conflicting contender
// queues behind it (recipes.WithSticky). A driver that does not implement it, or whose Sticky
// reports false, refuses that option. Like Decide, its methods decide from names only.
type StickyDriver interface {
	Driver
	// Sticky reports whether a held node of this driver may be kept idle at all: only a
	// driver whose grant is one node at the head of its kind's queue can say so (a semaphore
	// with more than one lease cannot).
	Sticky() bool
	// Conflicts reports whether child, a contender listed in the lock directory beside our
	// held node ours, wants the lock in a mode that ours excludes: it queues behind us, so an
	// idle node of ours must go. It is also asked with child == ours: whether two grants of
	// this driver exclude each other (a mutex: true; a read lock: false), which decides
	// whether goroutines of one process share the cached node one at a time or take their
	// own nodes beside it.
	Conflicts(ours, child string) bool
}

// Sticky reports whether the standard driver may be cached: only with one lease (Exclusive,
// Write, Standard(name, 1)).
func (d standardDriver) Sticky() bool { return d.maxLeases == 1 }

// Conflicts is true for every contender: an exclusive lock (a mutex, a write lock) excludes
// readers and writers alike.
func (standardDriver) Conflicts(_, _ string) bool { return true }

// Sticky reports whether the read driver may be cached: a plain read may, a downgrade (whose
// node carries its writer's sequence) may not.
func (d readDriver) Sticky() bool { return d.writer == "" }

// Conflicts is true for a writer only: readers share the lock.
func (readDriver) Conflicts(_, child string) bool { return strings.Contains(child, WriteLockName) }

// Sticky reports that both kazoo drivers may be cached.
func (kazooDriver) Sticky() bool { return true }

// Conflicts is true for every contender of a writer, and for every non-reader of a reader
// (a foreign node counts as a writer, as in Decide).
func (d kazooDriver) Conflicts(_, child string) bool { return !d.read || !IsKazooReader(child) }
