// Package driver is the predecessor-selection engine of the zkrecipes locks: given the
// children of a lock directory and the name of our own contender node, it says whether we
// hold the lock and, if not, what to wait for.
//
// A lock is a directory of ephemeral-sequential contender nodes such as
// "_c_<uuid>-lock-0000000007". Evaluate sorts the children by each driver's sort key, finds
// our node by its exact name, and asks the driver's predicate (Decide):
//
//   - Exclusive ("lock-", InterProcessMutex) and Write ("__WRIT__"): we hold the lock at index
//     0; otherwise we watch the node just before ours. Standard generalises this to
//     maxLeases n: hold below index n, else watch the node n places ahead.
//   - Read ("__READ__"): a downgrade holds while its own write node is listed; a plain read holds when
//     no "__WRIT__" node sorts before ours; otherwise we watch the first writer in sort
//     order (writers queued after us are ignored).
//   - Semaphore ("lease-", InterProcessSemaphoreV2's leases directory): we hold a lease when
//     the directory has at most max children, counting ours and every other child;
//     otherwise we watch the directory's children.
//   - KazooLock ("__lock__") and KazooRead ("__rlock__") contend on a path locked with kazoo
//     (Python): our nodes take kazoo's names, every child sorts by its sequence (SequenceKey),
//     a writer waits for every earlier node and a reader for every earlier non-reader.
//
// Everything else follows Apache Curator 5.x exactly, so Go and Java contenders can share a path:
//
//   - The sort key is the part of a child's name after the LAST occurrence of the lock name,
//     or the whole name if the lock name does not occur. The read-write drivers strip
//     through "__READ__" and then through "__WRIT__", so reads and writes share one order.
//   - Keys are compared as strings, byte by byte, and the sort is stable: equal keys keep
//     the order of the listing.
//   - Nothing is filtered: a foreign child takes part and sorts by its key (a child named
//     "0" sorts before every real sequence number and blocks the lock, as in Curator;
//     recipes own their directories).
//   - Sequence numbers are compared as the strings ZooKeeper wrote ("%010d" of the
//     parent's signed 32-bit cversion). After 2^31 changes they wrap to "-2147483648",
//     which sorts before "0000000000" ('-' < '0'): wrong, but exactly as wrong as Curator.
//   - A missing own node (session expired, or the node was deleted) is ErrOwnNodeMissing;
//     the caller recreates its node.
//
// A Driver describes a lock completely: besides the lock name, the sort key and the predicate
// (Decide), it says how our node is created (Node: sequential, or a fixed name such as a
// downgrade's), whether the deletion of the watched node alone proves that we hold
// (Decision.GoneHolds, the handoff without a re-list), and, as an InputDriver, which node's
// data feeds the decision (a shared maximum). A decision that can never succeed says so in
// Decision.Err. Drivers decide from data only: the listing, our node, the input's data, and
// names they were built with (a downgrade's own writer node), never from callbacks into
// mutable state. recipes.NewLock runs the acquire loop for any driver, yours included.
//
// The package does no I/O, imports no other package of this module, and all its values are
// immutable and safe for concurrent use.
package driver
