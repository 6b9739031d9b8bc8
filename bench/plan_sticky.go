package main

import (
	"time"

	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
)

// Sticky-lease scenario ids (issue 28).
const (
	idS1  = "s1"   // one session re-acquiring one lock, nobody else
	idS2  = "s2"   // affinity: 8 sessions, 64 locks, 90 % on their own 8
	idS3  = "s3"   // handover: the lock lies idle at the other session, then is acquired
	idS4  = "s4"   // ping-pong: two sessions alternating on one lock, back to back
	idS5  = "s5"   // read-mostly: 8 readers, one writer every 100 ms
	idS5W = "s5-w" // s5's reference: an uncontended write lock, acquire+release
)

// stickyIDs are the ids of the sticky scenarios, in table order.
var stickyIDs = []string{idS1, idS2, idS3, idS4, idS5, idS5W}

// handoverIdle is how long the lock lies idle at one session before the other acquires it, and
// handoverBurst how many times a session takes it in its turn (s3): the node idle at a session
// is one it re-used, so a sticky lock keeps caching it.
const (
	handoverIdle  = 10 * time.Millisecond
	handoverBurst = 3
)

// stickySpecs are the s scenarios with the plan's warm-up and window. Every lock peer that has
// the recipe runs them, zkrecipes both non-sticky and sticky (the "zkrecipes sticky" peer).
func stickySpecs(t timing) []spec {
	win := func(id, kind string, n int) spec {
		return spec{id, harness.Scenario{Kind: kind, Sessions: n, Warmup: t.warm, Duration: t.window}}
	}
	s1 := spec{idS1, harness.Scenario{Kind: harness.Uncontended, Sessions: 1, WarmCycles: t.warmCycles, Duration: t.window}}
	s2 := win(idS2, harness.Affinity, 8)
	s2.Paths, s2.OwnPercent = 64, 90
	s3, s4 := win(idS3, harness.Alternate, 2), win(idS4, harness.Alternate, 2)
	s3.Hold, s3.Burst = handoverIdle, handoverBurst
	s5 := win(idS5, harness.ReadMostly, 8)
	// A write every 100 ms gives few samples, and a sticky writer among spinning readers can
	// take hundreds of ms on a loaded machine (docs/performance.md): a longer window, so that
	// even the quick plan's has writes in it.
	s5.Interval, s5.Duration = 100*time.Millisecond, max(2*t.window, 2*time.Second)
	s5w := s1
	s5w.ID, s5w.Kind = idS5W, harness.UncontendedWrite
	return []spec{s1, s2, s3, s4, s5, s5w}
}

// stickyCountSpecs are the counting pass's versions: a first acquisition and a one-second
// window for s1 and s5-w (as a), short windows for the others; s5's window holds about ten writes.
func stickyCountSpecs(t timing) []spec {
	out := stickySpecs(t)
	for i := range out {
		s := &out[i].Scenario
		switch s.Kind {
		case harness.Uncontended, harness.UncontendedWrite:
			s.WarmCycles, s.Duration = 0, time.Second
		case harness.ReadMostly:
			s.Warmup, s.Duration = 100*time.Millisecond, time.Second
		default:
			s.Warmup, s.Duration = 100*time.Millisecond, 700*time.Millisecond
		}
	}
	return out
}

// isSticky reports whether id is one of the sticky scenarios.
func isSticky(id string) bool {
	for _, s := range stickyIDs {
		if s == id {
			return true
		}
	}
	return false
}

// stickyRole says which sticky scenarios a peer runs.
type stickyRole int

const (
	stickyNone stickyRole = iota // kazoo: none
	stickyAlso                   // zkrecipes, zk.Lock, Curator: its own scenarios and the s ones
	stickyOnly                   // zkrecipes sticky: the s ones only (no a-m, counting of s only)
)

// stickyUnsupported: zk.Lock has no read/write lock, so s5 and s5-w are not run for it (the
// harness would answer "unsupported" anyway; this spares its sessions).
func stickyUnsupported(peer, id string) bool {
	return peer == goLockName && (id == idS5 || id == idS5W)
}

// withSticky adds the sticky scenarios a peer runs to its specs (the sticky peer runs them alone).
func withSticky(specs, sticky []spec, e peerEntry) []spec {
	if e.raw || e.sticky == stickyNone {
		return specs
	}
	if e.sticky == stickyOnly {
		specs = nil
	}
	out := append([]spec(nil), specs...)
	for _, s := range sticky {
		if !stickyUnsupported(e.peer.Name(), s.ID) {
			out = append(out, s)
		}
	}
	return out
}
