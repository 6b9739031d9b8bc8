package recipes

import (
	"sync"
	"sync/atomic"
)

// nameSet is a set of node names, safe for concurrent use, that costs one atomic load to ask
// while it is empty: a Lock's nodes still standing (Lock.mine), asked on every decision and
// usually empty or one name. A sync.Map allocated an entry on every grant (issue 27).
type nameSet struct {
	n  atomic.Int32 // len(m)
	mu sync.Mutex
	m  map[string]struct{}
}

// add puts name in the set.
func (s *nameSet) add(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = make(map[string]struct{})
	}
	if _, ok := s.m[name]; !ok {
		s.m[name] = struct{}{}
		s.n.Add(1)
	}
}

// remove takes name out of the set, if it is there.
func (s *nameSet) remove(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[name]; ok {
		delete(s.m, name)
		s.n.Add(-1)
	}
}

// has reports whether name is in the set.
func (s *nameSet) has(name string) bool {
	if s.n.Load() == 0 {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.m[name]
	return ok
}
