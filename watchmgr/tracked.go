package watchmgr

// The tracked set is an intrusive list of the watches that may still be live, oldest first: a
// watch joins and leaves it without a map operation, and each Track looks at the two oldest
// (forgetting those that fired, moving a live one to the back), so the list stays about as
// long as the live watches without a full walk per Track. A full prune still runs when the
// list doubles, should many long-lived watches sit at its front (issue 27: the map it replaces
// cost a hash insert per watch, and a walk of the whole map every so often).

// watchList is the tracked set; the Manager's mu guards it and the links in each zkWatch.
type watchList struct {
	head, tail *zkWatch
	n          int
}

// push appends s, which is in no list.
func (l *watchList) push(s *zkWatch) {
	s.prev, s.next = l.tail, nil
	if l.tail != nil {
		l.tail.next = s
	} else {
		l.head = s
	}
	l.tail = s
	l.n++
}

// remove unlinks s, which is in l.
func (l *watchList) remove(s *zkWatch) {
	if s.prev != nil {
		s.prev.next = s.next
	} else {
		l.head = s.next
	}
	if s.next != nil {
		s.next.prev = s.prev
	} else {
		l.tail = s.prev
	}
	s.prev, s.next = nil, nil
	l.n--
}

// clear empties l (the Manager closed).
func (l *watchList) clear() {
	for s := l.head; s != nil; {
		next := s.next
		s.prev, s.next = nil, nil
		s = next
	}
	*l = watchList{}
}

// lookAtOldest forgets the oldest tracked watches that have fired and moves live ones to the
// back, two at most; m.mu is held.
func (m *Manager) lookAtOldest() {
	for range 2 {
		s := m.tracked.head
		if s == nil {
			return
		}
		if s.ended() {
			m.forget(s)
			continue
		}
		if s != m.tracked.tail {
			m.tracked.remove(s)
			m.tracked.push(s)
		}
	}
}

// forget takes s, a watch that has fired, out of the tracked set and out of byKey; m.mu is held.
func (m *Manager) forget(s *zkWatch) {
	m.tracked.remove(s)
	if k := (watchKey{s.kind, s.path}); m.byKey[k] == s {
		delete(m.byKey, k)
	}
}

// prune forgets every tracked watch that has fired; m.mu is held.
func (m *Manager) prune() {
	for s := m.tracked.head; s != nil; {
		next := s.next
		if s.ended() {
			m.forget(s)
		}
		s = next
	}
}
