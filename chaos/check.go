package chaos

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Checker names, the columns of the results table.
const (
	CFence  = "fence"  // I1: tokens of accepted writes strictly increase; no acknowledged write lost
	CBelief = "belief" // I2: no unexplained overlap of exclusive believers
	CRecipe = "recipe" // I8: ≤ k leases, writer alone, multi-lock all or nothing
	CLive   = "live"   // I4: every contender acquires within the bound after heal
	CClean  = "clean"  // I5: no node left, watches back to baseline
	CNotify = "notify" // I7: Done closes after a fault, within the bound
	CAPI    = "api"    // API contracts (a cancelled acquire returns ctx's error, ...)
	// CSession: a Lost state where the faults must cost no session (rows 2 and 22, full runs).
	CSession = "session"
)

// Checkers lists every checker in table order.
var Checkers = []string{CFence, CBelief, CRecipe, CLive, CClean, CNotify, CAPI, CSession, CHandoff}

// Verdict collects violations per checker, with a few samples each.
type Verdict struct {
	Counts  map[string]int
	Samples map[string][]string
}

func newVerdict() *Verdict {
	return &Verdict{Counts: make(map[string]int), Samples: make(map[string][]string)}
}

// add counts one violation of checker c.
func (v *Verdict) add(c, format string, args ...any) {
	v.Counts[c]++
	if len(v.Samples[c]) < 5 {
		v.Samples[c] = append(v.Samples[c], fmt.Sprintf(format, args...))
	}
}

// Total is the number of violations of every checker.
func (v *Verdict) Total() int {
	n := 0
	for _, c := range v.Counts {
		n += c
	}
	return n
}

// index gives quick access to a history's acquisitions.
type index struct {
	events []Event
	byOp   map[int64][]Event
}

func newIndex(events []Event) *index {
	ix := &index{events: events, byOp: make(map[int64][]Event)}
	for _, e := range events {
		if e.Op != 0 {
			ix.byOp[e.Op] = append(ix.byOp[e.Op], e)
		}
	}
	return ix
}

// first returns the first event of op of kind k at or after t.
func (ix *index) first(op int64, k Kind, t int64) (Event, bool) {
	for _, e := range ix.byOp[op] {
		if e.Kind == k && e.T >= t {
			return e, true
		}
	}
	return Event{}, false
}

// client is the session a worker proc ("c3/1") belongs to.
func client(proc string) string {
	c, _, _ := strings.Cut(proc, "/")
	return c
}

// checkFence: per lock, consecutive accepted writes of different holds carry
// strictly increasing tokens (the Fence and each znode register), and every
// acknowledged znode write is still in its register.
func checkFence(v *Verdict, ext map[string][]fenced, zk map[string][]zkEntry, events []Event) {
	for res, acc := range ext {
		for i := 1; i < len(acc); i++ {
			if acc[i].op != acc[i-1].op && acc[i].token <= acc[i-1].token {
				v.add(CFence, "fence %s: op %d wrote with token %d after op %d's %d", res, acc[i].op, acc[i].token, acc[i-1].op, acc[i-1].token)
			}
		}
	}
	present := make(map[string]bool)
	for res, ents := range zk {
		for i, e := range ents {
			present[e.elem] = true
			if i > 0 && elemOp(e.elem) != elemOp(ents[i-1].elem) && e.token <= ents[i-1].token {
				v.add(CFence, "znode %s: %s wrote with token %d after %s's %d", res, e.elem, e.token, ents[i-1].elem, ents[i-1].token)
			}
		}
	}
	for _, e := range events {
		if e.Kind == Write && e.OK && strings.HasPrefix(e.Res, "zk:") && !present[e.Detail] {
			v.add(CFence, "znode %s: acknowledged write %s (token %d) lost", e.Res, e.Detail, e.Token)
		}
	}
}

// elemOp returns the acquisition part of a register element "proc#op#n".
func elemOp(elem string) string {
	parts := strings.Split(elem, "#")
	if len(parts) < 2 {
		return elem
	}
	return parts[0] + "#" + parts[1]
}

// checkOverlaps judges the conflicts the ledger saw at grant time. One is
// explained only if the old holder's session was killed under it (see
// explained) and its Done then closed within 3T.
func checkOverlaps(v *Verdict, ix *index, T time.Duration) {
	for _, e := range ix.events {
		if e.Kind != Conflict && e.Kind != OverK {
			continue
		}
		if e.Kind == Conflict && explained(ix, e, T) {
			continue
		}
		c := CBelief
		if e.Kind == OverK || e.Mode == "r" || e.Mode == "w" {
			c = CRecipe
		}
		if e.Kind == OverK {
			v.add(c, "%s op %d granted as lease %d of %s (more than k)", e.Proc, e.Op, e.Token, e.Res)
			continue
		}
		v.add(c, "%s op %d (%s) granted %s while %s op %d (%s) believed it held it, Done open [%s]",
			e.Proc, e.Op, e.Mode, e.Res, e.Peer, e.PeerOp, e.Detail, overlapContext(ix, e))
	}
}

// overlapContext says, relative to the conflict e, when the old holder
// acquired and on which session, what happened to its client (faults,
// connection states) and when its Done closed: enough to judge a CI failure
// whose history file is gone.
func overlapContext(ix *index, e Event) string {
	rel := func(t int64) string { return time.Duration(t - e.T).Round(100 * time.Microsecond).String() }
	var b strings.Builder
	acq, ok := ix.first(e.PeerOp, AcqOK, 0)
	if !ok {
		return "old holder's grant not in the history"
	}
	fmt.Fprintf(&b, "old holder acquired at %s on session 0x%x", rel(acq.T), acq.Sess)
	for _, f := range ix.events {
		if f.T > e.T+int64(time.Second) {
			break
		}
		if f.T < acq.T-int64(5*time.Second) || f.Proc != client(e.Peer) {
			continue
		}
		switch f.Kind {
		case Fault:
			fmt.Fprintf(&b, "; %s at %s (session 0x%x)", f.Detail, rel(f.T), f.Sess)
		case State, Pause, Resume:
			fmt.Fprintf(&b, "; %s at %s", strings.TrimSpace(string(f.Kind)+" "+f.Detail), rel(f.T))
		}
	}
	if d, ok := ix.first(e.PeerOp, DoneSeen, 0); ok {
		fmt.Fprintf(&b, "; its Done closed at %s (%s)", rel(d.T), d.Err)
	} else {
		b.WriteString("; its Done never closed")
	}
	return b.String()
}

// explained reports whether a conflict is the documented, unavoidable case:
// the old holder's session was killed under it, and its Done then closed
// within 3T. Killed means its process was paused after it acquired, or the
// nemesis expired the very session that owns its node: the expiry may have
// been sent just before the grant, as a reply of that session can still grant.
// When the grant does not name its session, the expiry must follow the grant.
func explained(ix *index, e Event, T time.Duration) bool {
	acq, ok := ix.first(e.PeerOp, AcqOK, 0)
	if !ok {
		return false
	}
	var fault bool
	for _, f := range ix.events {
		if f.T > e.T || fault {
			break
		}
		if f.Proc != client(e.Peer) {
			continue
		}
		expiry := f.Kind == Fault && f.Detail == string(Expire)
		switch {
		case f.Kind == Pause:
			fault = f.T >= acq.T
		case expiry && acq.Sess != 0:
			fault = f.Sess == acq.Sess
		case expiry:
			fault = f.T >= acq.T
		}
	}
	if !fault {
		return false
	}
	done, ok := ix.first(e.PeerOp, DoneSeen, 0)
	return ok && done.T <= e.T+int64(3*T)
}

// checkLive: every worker of a blocking workload acquires at least once
// after the quiet phase begins (quiet lasts the stated bound).
func checkLive(v *Verdict, ix *index, quiet int64, bound time.Duration) {
	workers := make(map[string]bool)
	got := make(map[string]bool)
	for _, e := range ix.events {
		switch {
		case e.Kind == AcqCall:
			workers[e.Proc] = workers[e.Proc] || false
		case e.Kind == AcqOK && e.T >= quiet:
			got[e.Proc] = true
		}
	}
	var missing []string
	for w := range workers {
		if !got[w] {
			missing = append(missing, w)
		}
	}
	slices.Sort(missing)
	for _, w := range missing {
		v.add(CLive, "%s did not acquire within %v after the faults healed", w, bound)
	}
}

// longestStall is the longest time res sat free while someone waited for it.
func longestStall(ix *index, res string) time.Duration {
	held, waiting := map[int64]bool{}, map[int64]bool{}
	var worst, since int64
	free := func() bool { return len(held) == 0 && len(waiting) > 0 }
	for _, e := range ix.events {
		if e.Res != res {
			continue
		}
		before := free()
		switch e.Kind {
		case AcqCall:
			waiting[e.Op] = true
		case AcqOK:
			delete(waiting, e.Op)
			held[e.Op] = true
		case AcqFail:
			delete(waiting, e.Op)
		case RelCall, DoneSeen:
			delete(held, e.Op)
		default:
			continue
		}
		after := free()
		if !before && after {
			since = e.T
		}
		if before && !after {
			worst = max(worst, e.T-since)
		}
	}
	return time.Duration(worst)
}

// notifyStats measures, for each fault that must notify, how long the
// affected holders took to see Done close. A pinned holder (one that held
// until pinBound·T) that never saw it is a violation; so, in strict mode,
// is a latency over the §A3.7 bound.
func notifyStats(v *Verdict, ix *index, T time.Duration, strict bool) (lat []time.Duration, late int) {
	for _, f := range ix.events {
		if f.Kind != Fault || f.Proc == "" {
			continue
		}
		must, bound := FaultKind(f.Detail).notifies(T)
		if !must {
			continue
		}
		for _, op := range liveAt(ix, f.Proc, f.T) {
			d, ok := ix.first(op, DoneSeen, f.T)
			r, rok := ix.first(op, RelCall, f.T)
			switch {
			case ok && (!rok || d.T <= r.T):
				l := time.Duration(d.T - f.T)
				lat = append(lat, l)
				if l > bound {
					late++
					if strict {
						v.add(CNotify, "op %d: Done closed %v after %s on %s (bound %v)", op, l, f.Detail, f.Proc, bound)
					}
				}
			case rok && time.Duration(r.T-f.T) >= pinBound*T-T/10:
				v.add(CNotify, "op %d of %s: Done never closed within %v of %s", op, f.Proc, pinBound*T, f.Detail)
			}
		}
	}
	return lat, late
}

// liveAt returns the ops of client c's workers that held at t.
func liveAt(ix *index, c string, t int64) []int64 {
	var out []int64
	for op, evs := range ix.byOp {
		if client(evs[0].Proc) != c {
			continue
		}
		var acq, end bool
		for _, e := range evs {
			if e.T > t {
				break
			}
			acq = acq || e.Kind == AcqOK
			end = end || e.Kind == RelCall || e.Kind == DoneSeen
		}
		if acq && !end {
			out = append(out, op)
		}
	}
	return out
}

// checkGrantedNodes: a grant whose node was missing right after it, while
// its Done was still open, is explained only by a fault on that client (expiry, partition, a paused
// process) that started before the check and was still going on at the
// grant, or by the nemesis's expiry of the very session the grant names (a
// reply of that session granted; the grant was recorded after the heal). A
// grant on a later session whose node vanished in an expiry already over (at
// a handoff, say) is a grant from a stale view: a violation.
func checkGrantedNodes(v *Verdict, ix *index) {
	for i, e := range ix.events {
		if e.Kind != NodeMissing || e.OK {
			continue // a lease told of its loss may have its node deleted
		}
		acq, ok := ix.first(e.Op, AcqOK, 0)
		if !ok || faultCovers(ix.events[:i+1], client(e.Proc), acq.T) || expiredByNemesis(ix.events[:i+1], acq.Sess) {
			continue
		}
		v.add(CRecipe, "%s op %d was granted %s on session 0x%x, whose node was gone with no fault in progress on its session",
			e.Proc, e.Op, e.Detail, acq.Sess)
	}
}

// faultCovers reports whether a fault on client c started in events and
// had not healed at time t.
func faultCovers(events []Event, c string, t int64) bool {
	for i, f := range events {
		if !(f.Kind == Fault || f.Kind == Pause) || f.Proc != c {
			continue
		}
		healed := int64(1<<63 - 1)
		for _, h := range events[i+1:] {
			if h.Kind == Heal || h.Kind == Resume && h.Proc == c {
				healed = h.T
				break
			}
		}
		if healed >= t {
			return true
		}
	}
	return false
}

// expiredByNemesis reports whether events hold an expiry of session id: a
// grant answered on that session just before it closed (the grant recorded
// after the expiry healed) finds its node gone, and that is not a stale grant.
func expiredByNemesis(events []Event, id int64) bool {
	if id == 0 {
		return false
	}
	for _, f := range events {
		if f.Kind == Fault && f.Detail == string(Expire) && f.Sess == id {
			return true
		}
	}
	return false
}

// checkContracts counts API contract events.
func checkContracts(v *Verdict, ix *index) {
	for _, e := range ix.events {
		if e.Kind == Contract {
			v.add(CAPI, "%s op %d: %s: %s", e.Proc, e.Op, e.Detail, e.Err)
		}
	}
}

// percentile returns the p-th percentile (0..100) of ds.
func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

// checkNoLost counts every Lost state as a violation: the scenario's faults must cost no session.
func checkNoLost(v *Verdict, events []Event, scenario string) {
	for _, ev := range events {
		if isLost(ev) {
			v.add(CSession, "%s lost its session at t=%d, though %q should cost none", ev.Proc, ev.T, scenario)
		}
	}
}

// isLost reports a client's Lost connection state.
func isLost(ev Event) bool { return ev.Kind == State && ev.Detail == "LOST" }
