// Package recipes implements Apache Curator's lock recipes on ZooKeeper, with
// Curator 5's znode layout so that Go and Java processes can contend for the
// same lock paths.
//
// # One acquire loop
//
// Every recipe is a configuration of Lock, the one acquire loop, and a driver
// (package driver) that decides from data alone: NewLock(fw, path, drv). The
// loop creates a protected ephemeral node (parents as containers), lists the
// directory, asks the driver, watches the one node (or the directory) the
// driver names, and re-decides on every wake; it grants only on a listing of a
// live session epoch whose session created our node, deletes our node on every
// failure, and re-queues under the same deadline when our node vanishes. Write a
// driver of your own and you get all of that (docs/custom-recipes.md).
//
// # Znode layout
//
// A lock is a directory of ephemeral sequential contender nodes whose names
// carry a protected-mode GUID:
//
//	InterProcessMutex          P/_c_<uuid>-lock-<seq>
//	InterProcessReadWriteLock  P/_c_<uuid>-__READ__<seq>, P/_c_<uuid>-__WRIT__<seq>
//	InterProcessSemaphoreV2    P/locks/_c_<uuid>-lock-<seq>, P/leases/_c_<uuid>-lease-<seq>
//
// Missing parents are created as container nodes, which the server deletes
// once they are empty. Contenders sort by the 10-digit sequence after the
// lock name; each waiter watches (getData with a watch) only the node it must
// wait for, so a release wakes one waiter, not the herd.
//
// # Curator interoperability
//
// Node names, modes, sort order and predicates match Curator 5, so a Java
// InterProcessMutex and a Go InterProcessMutex on the same path exclude each
// other, and each lists the other's nodes in Participants. Keep foreign nodes
// out of lock directories: like Curator, we do not filter them, and one that
// sorts first blocks the lock.
//
// # Leases, Suspended and Lost
//
// Acquire returns a *Lease, owned by the caller. Reentrancy is counted on the
// lease (Reenter), never on goroutine identity or on a context. Semaphore leases
// (*SemaphoreLease) cannot be re-entered. A lease's Done channel closes when its session may be
// gone: under the framework's Standard error policy on Suspended (the
// connection dropped; the session may expire without us hearing of it) and
// on Lost (the session expired); under the Session policy on Lost only.
// Once Done is closed another process may hold the lock. Stop acting on it, then
// Release. Told is not stopped: while the session lives, the node of a lost lease
// stays until Release or until the loss grace (WithLossGrace, default the session
// timeout) has passed, so a connection blip never hands the lock over while the
// told holder is still stopping. Release of a lost lease returns nil at once.
//
// # Multi-locks
//
// InterProcessMultiLock takes a set of locks, all or nothing, under one deadline.
// NewMultiLock and NewMultiMutex (the default) take them one after another in
// path order, as Curator does in list order: an acquirer holds the early locks
// while it waits for a later one, and sorting keeps such acquirers from a cycle.
// NewTxMultiLock and NewTxMultiMutex create our node in every lock directory in
// one ZooKeeper transaction: the commit order puts any two such acquirers in
// the same order in every directory they share, so they cannot deadlock, in any
// caller order, and the set costs one write. Do not mix the two disciplines on
// the same paths: a sequential acquirer (ours or Curator's InterProcessMultiLock)
// and a transactional one can each wait for the other for ever. Single-lock
// contenders, Go or Java, are safe beside either. See docs/multilock.md.
//
// # Fencing tokens
//
// A lock that lives in ZooKeeper cannot stop a holder that is paused (GC, a
// stopped VM) past its session timeout from acting after another process has
// acquired the lock. Lease.Token(ctx) returns the czxid of the holder's node, a
// number that grows with every new holder across the ensemble, even when the
// lock directory is reaped and recreated. Send it with every write to the
// protected resource and have the resource reject tokens lower than the
// highest it has seen. When the resource is ZooKeeper itself, put
// Lease.Guard first in a Multi instead.
package recipes
