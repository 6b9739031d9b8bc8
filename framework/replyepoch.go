package framework

import "fmt"

// A reply belongs to the session of the connection that carried its request. go-zookeeper has
// one connection at a time and answers a request only on the connection that wrote it; a request
// handed to it is written on the connection current then, or on a later one if that one dies
// first. So the epoch of a create is the epoch of the connection that was current when the
// create was handed over (the carrier), read after the reply:
//   - if the carrier wrote it, that is its epoch, set before any request of it was written
//     (tagEpoch runs in go-zookeeper's HasSession callback, before its send loop starts);
//   - if a later connection wrote it, the carrier died first: its epoch has ended (StandardPolicy
//     ends an epoch on every disconnect; SessionPolicy on a lost session), or, under
//     SessionPolicy, the later connection resumed the same session and shares the same epoch.
//
// Either way the label is safe: it is never the epoch of a session that did not answer, which
// the epoch current after the reply may be (the carrier's session expired and a new one started
// between the reply and the look). The listings sent right behind the create ride the same
// connection or a later one, so they, too, are answered in that epoch or after it ended.

// carrier returns the connection that a request handed to go-zookeeper now is written on, or
// whose death sends it on a later one (nil before the first dial).
func (t *connTracker) carrier() *trackedConn { return t.current.Load() }

// tagEpoch gives the socket dialed last the epoch s of session id, which go-zookeeper has just
// reported on it. It runs on go-zookeeper's event callback, before any request of the session
// is written.
func (t *connTracker) tagEpoch(s *Session, id int64) {
	if c := t.current.Load(); c != nil && s.ID() == id {
		c.epoch.Store(s)
	}
}

// replyEpoch returns the epoch of a reply to a request handed over while c was the carrier (see
// above); an ended epoch if c never had a session (the request, if answered, rode a later one).
func (c *trackedConn) replyEpoch() *Session {
	if c != nil {
		if s := c.epoch.Load(); s != nil {
			return s
		}
	}
	s := newSession(0, nil)
	s.end(fmt.Errorf("%w: the connection that carried the request had no session", ErrSessionLost))
	return s
}
