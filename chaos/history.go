package chaos

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sync"
)

// Kind says what an Event records.
type Kind string

// Event kinds.
const (
	AcqCall  Kind = "acq-call" // a client starts an acquire
	AcqOK    Kind = "acq-ok"   // the acquire returned a holder (Token set)
	AcqFail  Kind = "acq-fail" // the acquire returned an error (Err set)
	DoneSeen Kind = "done"     // the holder's Done closed (Err: its reason)
	RelCall  Kind = "rel-call" // the holder stops believing and releases
	// Stopped: a stopping holder (WorkloadSpec.StopMax) has stopped working, its stop delay
	// after Done over (or its hold ended); it releases next. The handoff checker reads it.
	Stopped  Kind = "stopped"
	RelDone  Kind = "rel-done"  // the release returned (Err set if it failed)
	Write    Kind = "write"     // a fenced write: OK says whether it was accepted
	WriteCut Kind = "write-cut" // a fenced znode write cut short as the run ended (outcome unknown)
	State    Kind = "state"     // a connection state (Detail: its name)
	Conflict Kind = "conflict"  // at a grant, a conflicting believer's Done was open (Peer, PeerOp)
	OverK    Kind = "over-k"    // at a grant, more than k semaphore believers
	Fault    Kind = "fault"     // the nemesis starts a fault (Detail: what; Proc: its target)
	Heal     Kind = "heal"      // the nemesis ends it
	Pause    Kind = "pause"     // a client process is stopped (SIGSTOP)
	Resume   Kind = "resume"    // ... and continued (SIGCONT)
	Contract Kind = "contract"  // an API contract broken (Detail says which)
	// NodeMissing: right after a grant, the lease's node was not on the servers.
	NodeMissing Kind = "node-missing"
	Note        Kind = "note" // free text
)

// Event is one entry of a history. T is CLOCK_MONOTONIC nanoseconds.
type Event struct {
	T      int64  `json:"t"`
	Proc   string `json:"p,omitempty"`
	Kind   Kind   `json:"k"`
	Res    string `json:"r,omitempty"`  // the resource: lock path (and part)
	Mode   string `json:"m,omitempty"`  // x exclusive, r read, w write, s semaphore lease
	Op     int64  `json:"op,omitempty"` // the acquisition this event belongs to
	Token  int64  `json:"tok,omitempty"`
	OK     bool   `json:"ok,omitempty"`
	Err    string `json:"err,omitempty"`
	Peer   string `json:"peer,omitempty"`
	PeerOp int64  `json:"pop,omitempty"`
	Detail string `json:"d,omitempty"`
	// Sess is a ZooKeeper session: the one that owns a grant's node (AcqOK,
	// 0 if the holder does not say), or the one an expiry closed (Fault).
	Sess int64 `json:"s,omitempty"`
}

// History is an append-only, merged log of events. Safe for concurrent use.
type History struct {
	mu     sync.Mutex
	events []Event
	ops    int64
}

// Add appends e, stamping T with Now if it is zero, and returns the stamp.
func (h *History) Add(e Event) int64 {
	if e.T == 0 {
		e.T = Now()
	}
	h.mu.Lock()
	h.events = append(h.events, e)
	h.mu.Unlock()
	return e.T
}

// NextOp returns a new acquisition id, unique in this history.
func (h *History) NextOp() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ops++
	return h.ops
}

// Events returns a copy of the events sorted by time (stable).
func (h *History) Events() []Event {
	h.mu.Lock()
	out := slices.Clone(h.events)
	h.mu.Unlock()
	slices.SortStableFunc(out, func(a, b Event) int {
		switch {
		case a.T < b.T:
			return -1
		case a.T > b.T:
			return 1
		}
		return 0
	})
	return out
}

// WriteFile writes the sorted history as JSON lines, for replay and study.
func (h *History) WriteFile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("chaos: history: %w", err)
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, e := range h.Events() {
		if err := enc.Encode(e); err != nil {
			f.Close()
			return fmt.Errorf("chaos: history: %w", err)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("chaos: history: %w", err)
	}
	return f.Close()
}

// ReadHistory loads a history written by WriteFile.
func ReadHistory(path string) (*History, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("chaos: history: %w", err)
	}
	defer f.Close()
	h := &History{}
	dec := json.NewDecoder(bufio.NewReader(f))
	for dec.More() {
		var e Event
		if err := dec.Decode(&e); err != nil {
			return nil, fmt.Errorf("chaos: history: %w", err)
		}
		h.events = append(h.events, e)
	}
	return h, nil
}
