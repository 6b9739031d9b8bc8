// Package framework is zkrecipes' ZooKeeper client: the connection, Curator's connection states,
// session epochs, and every ZooKeeper operation run under a context and a retry policy, with
// Curator's protected creates, guaranteed deletes, container parents and namespaces.
//
// # Connection states
//
// The states are Curator's: Connected (once per Framework), Suspended (disconnected while we had a
// session), Reconnected (a session regained, the same or, after Lost, a new one), Lost (the session
// expired, a new session id appeared, or Suspended lasted longer than the negotiated session
// timeout). go-zookeeper silently opens a new session after an expiry; the Framework notices and
// reports Lost before the Reconnected of the new session.
//
// # Session epochs
//
// Session returns the current epoch; its Done channel closes when the epoch ends under the error
// policy (StandardPolicy: Suspended or Lost; SessionPolicy: Lost only). A lock holder ties itself
// to the epoch in which it acquired the lock. A new epoch begins at each Connected/Reconnected
// whose previous epoch has ended. Epochs follow go-zookeeper synchronously, inside its event
// callback: an epoch has ended before a request cut by the disconnect or expiry that ends it
// returns, before any request of a later session returns, and before watch waiters are woken.
//
// # Paths
//
// Paths are namespace-relative and absolute ("/a/b"). ValidatePath refuses the root for writes;
// reads (Exists, Get, Children, Sync and their watches) accept "/", which means the namespace root
// (or ZooKeeper's root without a namespace). "/zookeeper" and below are refused everywhere, as
// ZooKeeper's own subtree. The namespace node is created as a container the first time a create
// with CreatingParents needs it.
//
// # Creates
//
// CreateIn returns the epoch a node was created in, so that a caller can check, when it decides
// later, that the session deciding is the one that owns the node. CreateAndList sends the listing
// of the parent right behind the create, on the same session, so that a lock's first decision
// costs one round trip.
//
// # Cancellation
//
// go-zookeeper cannot cancel a request: a call whose ctx ends returns ctx's error at once while the
// request may still complete on the server. This is why creates can be Protected.
package framework
