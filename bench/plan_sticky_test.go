package main

import (
	"slices"
	"testing"

	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
	"github.com/zkrecipes/zkrecipes/bench/internal/zkpeers"
	"github.com/zkrecipes/zkrecipes/bench/peers"
)

func ids(ss []spec) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.ID)
	}
	return out
}

// Both plans run and count every sticky scenario (make bench and make bench-quick include s1-s5).
func TestPlansHaveStickyScenarios(t *testing.T) {
	for _, p := range []plan{defaultPlan(), quickPlan()} {
		if got := ids(p.Sticky); !slices.Equal(got, stickyIDs) {
			t.Errorf("%s plan: sticky scenarios %v, want %v", p.Name, got, stickyIDs)
		}
		counted := ids(p.Count)
		for _, id := range stickyIDs {
			if !slices.Contains(counted, id) {
				t.Errorf("%s plan: %s is not counted", p.Name, id)
			}
		}
		for _, s := range p.Sticky {
			sc := s.Scenario
			sc.Root = "/x"
			if err := sc.Validate(); err != nil {
				t.Errorf("%s plan: %s: %v", p.Name, s.ID, err)
			}
		}
	}
}

func TestWithSticky(t *testing.T) {
	p := defaultPlan()
	lock := []spec{{ID: idUnc}}
	tests := []struct {
		name string
		e    peerEntry
		want []string
	}{
		{"zkrecipes", peerEntry{peer: zkrecipesPeer(), sticky: stickyAlso}, append([]string{idUnc}, stickyIDs...)},
		{"sticky alone", peerEntry{peer: zkrecipesStickyPeer(), sticky: stickyOnly}, stickyIDs},
		{"zk.Lock without read/write lock", peerEntry{peer: zkpeers.GoLockPeer(), sticky: stickyAlso}, []string{idUnc, idS1, idS2, idS3, idS4}},
		{"kazoo", peerEntry{peer: peers.KazooPeer()}, []string{idUnc}},
		{"raw", peerEntry{peer: zkpeers.RawPeer(), raw: true, sticky: stickyAlso}, []string{idUnc}},
	}
	for _, tt := range tests {
		if got := ids(withSticky(lock, p.Sticky, tt.e)); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestSkipCountSticky(t *testing.T) {
	st := peerEntry{peer: zkrecipesStickyPeer(), sticky: stickyOnly}
	z := peerEntry{peer: zkrecipesPeer(), extra: true, sticky: stickyAlso}
	gl := peerEntry{peer: zkpeers.GoLockPeer(), sticky: stickyAlso}
	kz := peerEntry{peer: peers.KazooPeer()}
	tests := []struct {
		name string
		e    peerEntry
		s    spec
		want bool
	}{
		{"sticky counts s1", st, spec{ID: idS1}, false},
		{"sticky counts nothing else", st, spec{ID: idUnc}, true},
		{"zkrecipes counts s5", z, spec{ID: idS5}, false},
		{"zkrecipes counts a", z, spec{ID: idUnc}, false},
		{"zk.Lock: no s5", gl, spec{ID: idS5}, true},
		{"zk.Lock counts s2", gl, spec{ID: idS2}, false},
		{"kazoo: no s", kz, spec{ID: idS1}, true},
		{"kazoo counts b", kz, spec{ID: idCont8, Scenario: harness.Scenario{Kind: harness.Contended}}, false},
	}
	for _, tt := range tests {
		if got := skipCount(tt.e, tt.s); got != tt.want {
			t.Errorf("%s: skipCount = %v, want %v", tt.name, got, tt.want)
		}
	}
}
