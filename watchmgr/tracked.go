package watchmgr

import "github.com/zkrecipes/zkrecipes/internal/ilist"

// The tracked set is an intrusive list of the watches that may still be live, oldest first: a
// watch joins and leaves it without a map operation, and each Track looks at the two oldest
// (forgetting those that fired, moving a live one to the back), so the list stays about as
// long as the live watches without a full walk per Track. A full prune still runs when the
// list doubles, should many long-lived watches sit at its front (issue 27: the map it replaces
// cost a hash insert per watch, and a walk of the whole map every so often).

// watchList is the tracked set; the Manager's mu guards it and the links in each zkWatch.
type watchList = ilist.List[zkWatch, zkWatchLinks]

// zkWatchLinks finds a zkWatch's links for Manager.tracked.
type zkWatchLinks struct{}

func (zkWatchLinks) Links(s *zkWatch) *ilist.Links[zkWatch] { return &s.links }

// lookAtOldest forgets the oldest tracked watches that have fired and moves live ones to the
// back, two at most; m.mu is held.
func (m *Manager) lookAtOldest() {
	for range 2 {
		s := m.tracked.Front()
		if s == nil {
			return
		}
		if s.ended() {
			m.forget(s)
			continue
		}
		if s != m.tracked.Back() {
			m.tracked.Remove(s)
			m.tracked.PushBack(s)
		}
	}
}

// forget takes s, a watch that has fired, out of the tracked set and out of its path's books;
// m.mu is held.
func (m *Manager) forget(s *zkWatch) {
	m.tracked.Remove(s)
	if e := s.e; e != nil {
		s.e = nil
		if k := s.kind.slot(); e.live[k] == s {
			e.live[k] = nil
			m.dropIfIdle(s.path, e)
		}
	}
}

// prune forgets every tracked watch that has fired; m.mu is held.
func (m *Manager) prune() {
	for s := m.tracked.Front(); s != nil; {
		next := m.tracked.Next(s)
		if s.ended() {
			m.forget(s)
		}
		s = next
	}
}
