// Package ilist is a doubly linked list whose elements carry their own links, so linking and
// unlinking allocate nothing: the one list behind a session's end hooks, a connection's create
// waiters, and a watch manager's OnFire hooks and tracked watches (issue 27).
//
// A list is not safe for concurrent use: its owner guards it, and the links of its elements,
// with the owner's mutex.
package ilist
