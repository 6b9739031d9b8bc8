// Package leader implements Apache Curator's leader election recipes, LeaderLatch and
// LeaderSelector, on ZooKeeper. It is built only on the exported API of packages recipes,
// driver and framework (a test checks its imports), so it is also a worked example of a
// recipe of your own on top of recipes.NewLock.
//
// # Znode layout
//
// Both recipes use Curator 5's layout, so Java and Go candidates share one election:
//
//	LeaderLatch     P/_c_<uuid>-latch-<seq>   ephemeral sequential; data: the id (UTF-8, empty for "")
//	LeaderSelector  P/_c_<uuid>-lock-<seq>    an InterProcessMutex; data: the id, or the framework's
//	                                          default data when the id is empty
//
// Candidates sort by the 10-digit sequence; the first one leads and every other one watches
// only the node just ahead of it. Never put a latch and a selector (or a mutex) on one path:
// their sort keys differ and both would lead, in Curator as here.
//
// # Leadership, Suspended and Lost
//
// A term of leadership is a lease of the acquire loop (recipes.Lock). It ends when the
// framework's error policy says the session may be gone: under the Standard policy (the
// default) on Suspended, when the connection drops, which is before the server can expire the
// session and let another candidate lead; under the Session policy on Lost only. The leader
// learns it first through Term.Done (and HasLeadership turns false), then through the
// listeners. A latch that lost leadership deletes its node at once (the delete reaches the
// server when the connection is back, as Curator's reset) and re-enters the election by
// itself with a new one (at the back of the queue: a term that was told to stop never
// resumes). A selector keeps a lost term's node, while the session lives, until its takeover
// function has returned or the loss grace (WithLossGrace, default the session timeout) has
// passed, so a reset never makes two takeovers run at once; it re-enters when AutoRequeue is
// set.
//
// Every term carries a fencing token (Term.Token, the czxid of its node) and a guard for
// transactions (Term.Guard).
package leader
