package watchmgr

// The Manager's books of watches are kept by path: one entry per path that has a watch set
// or a registration in progress, holding its latest watch of each kind, the registration of
// each kind in progress, and whether an event for that kind came before the registration's
// Track. A watch's life then costs one map lookup at Reserve (and one insert, for a path not
// yet in the books), one at NodeEvent, and one delete when its path is done with; Track,
// Cancel and forgetting find the entry through the registration or the watch (issue 27: one
// map per (kind, path) and another for the registrations cost some thirteen map operations
// per watch, a contended acquisition sets two).

// numKinds is the number of watch kinds the books keep apart.
const numKinds = 3

// slot returns k's index in a pathBooks, or -1 for a kind go-zookeeper cannot set (such a
// watch is tracked and counted, never shared).
func (k Kind) slot() int {
	if k < Data || k > Children {
		return -1
	}
	return int(k)
}

// pathBooks is the books of one path; the Manager's mu guards it.
type pathBooks struct {
	live  [numKinds]*zkWatch      // the latest watch of each kind (it may have fired: see ended)
	pend  [numKinds]*Registration // registrations in progress
	early [numKinds]bool          // an event came for a pending registration before its Track
}

// idle reports whether the entry holds nothing, and can leave the books.
func (e *pathBooks) idle() bool {
	return e.live == [numKinds]*zkWatch{} && e.pend == [numKinds]*Registration{}
}

// books returns path's entry, making it in spare (a zero pathBooks the caller allocated
// anyway, or nil to allocate one) when path has none; m.mu is held.
func (m *Manager) books(path string, spare *pathBooks) *pathBooks {
	if e := m.paths[path]; e != nil {
		return e
	}
	if spare == nil {
		spare = new(pathBooks)
	}
	m.paths[path] = spare
	return spare
}

// dropIfIdle takes path's entry e out of the books once it holds nothing; m.mu is held.
func (m *Manager) dropIfIdle(path string, e *pathBooks) {
	if e.idle() && m.paths[path] == e {
		delete(m.paths, path)
	}
}
