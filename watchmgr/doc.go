// Package watchmgr is the only receiver of go-zookeeper events in zkrecipes.
//
// go-zookeeper delivers events in two ways, both hazardous: a 6-slot channel that silently drops
// events when full, and a callback that runs on the client's connect and receive goroutines (calling
// the connection from it deadlocks the client). A Manager's callback interrupts the waiters on a
// disconnect or expiry (a channel close) and copies each session event into an unbounded queue;
// one dispatcher goroutine then fans them out to subscribers, in order. Watch events are left to the per-watch channels, so that a notification
// wakes only its waiter.
//
// One-shot watches set with GetW, ExistsW or ChildrenW are handed to Track, which counts them
// until go-zookeeper fires or invalidates them (Live) and lets a waiter wait for the event, its
// context, or a session interruption (disconnect or expiry) that happened after the watch was set.
// go-zookeeper cannot remove a watch, so Reserve lets a caller share the live watch of a kind and
// path (reading with the plain request) instead of registering another, unless that watch's
// event is already on its way: at most one go-zookeeper watch per kind, path and session that
// has not fired. OnFire and OnEvent call a waiter back on its watch's news instead, so that no
// goroutine waits for it.
package watchmgr
