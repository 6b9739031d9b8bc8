package chaos

import (
	"fmt"
	"time"
)

// The handoff checker (issue 16 point 7): told is not stopped. A holder whose Done closed keeps
// working for a while before it releases (WorkloadSpec.StopMax, or the command under `zklock
// exec`). docs/safety.md promises how long the lock waits for it:
//
//   - its session survived (a reset, a blackhole shorter than the session timeout T): the next
//     grant comes only after the told holder has stopped (released), unless it kept working
//     longer than the loss grace (recipes.WithLossGrace, default T) after Done;
//   - its session expired under a partition: the next grant may come once the server expired
//     it, which is at least T/3 after the holder was told (told at 2T/3 of silence, expired
//     after T), so a holder that stops within T/3 of Done never overlaps;
//   - its session was killed (the nemesis expired it on the server, or its process was
//     paused): no margin exists, as for the belief checker; such overlaps are recorded only.
//
// The checker reads timestamps alone (one clock for every process), so it also judges holders
// in other processes. It records every overlap between a told holder that has not stopped and
// the next grant, and counts a violation for each one the promise forbids.

// CHandoff counts a grant made while a told holder had not stopped, where the margin forbids it.
const CHandoff = "handoff"

// handoffHold is one acquisition, as the handoff checker sees it.
type handoffHold struct {
	proc, res, mode string
	op, sess        int64
	start, done     int64 // done: 0 if its Done never closed
	stop            int64 // Stopped, else RelCall, else the end of the history
	stopped         bool  // whether stop was recorded
}

// handoffHolds collects every granted acquisition of the history.
func handoffHolds(ix *index) []*handoffHold {
	var end int64
	if n := len(ix.events); n > 0 {
		end = ix.events[n-1].T
	}
	var out []*handoffHold
	for op, evs := range ix.byOp {
		acq, ok := ix.first(op, AcqOK, 0)
		if !ok {
			continue
		}
		h := &handoffHold{proc: acq.Proc, res: acq.Res, mode: acq.Mode, op: op, sess: acq.Sess, start: acq.T, stop: end}
		var rel int64
		for _, e := range evs {
			switch {
			case e.Kind == DoneSeen && h.done == 0:
				h.done = e.T
			case e.Kind == Stopped && !h.stopped:
				h.stop, h.stopped = e.T, true
			case e.Kind == RelCall && rel == 0:
				rel = e.T
			}
		}
		if !h.stopped && rel != 0 {
			h.stop, h.stopped = rel, true
		}
		out = append(out, h)
	}
	return out
}

// excludes reports whether holders in modes a and b cannot hold together; a semaphore's
// leases exclude each other only when it has one (semK).
func excludes(a, b string, semK int) bool {
	if a == "s" || b == "s" {
		return a == b && semK == 1
	}
	return incompatible(a, b)
}

// checkHandoff judges every grant made while an excluded holder had been told (Done closed)
// but had not stopped, against the margin above; grace is the loss grace. It returns every
// such overlap (allowed or not): from the grant to the old holder's stop.
func checkHandoff(v *Verdict, ix *index, T, grace time.Duration, semK int) []time.Duration {
	holds := handoffHolds(ix)
	var overlaps []time.Duration
	for _, b := range holds {
		for _, a := range holds {
			if a == b || a.res != b.res || a.done == 0 || !(a.start < b.start && a.done < b.start && b.start < a.stop) ||
				client(a.proc) == client(b.proc) || !excludes(a.mode, b.mode, semK) {
				continue
			}
			overlap := time.Duration(a.stop - b.start)
			overlaps = append(overlaps, overlap)
			told, stopAfter := time.Duration(b.start-a.done), time.Duration(a.stop-a.done)
			var why string
			switch fate := sessionFate(ix, a, b.start); fate {
			case "killed":
				continue // no margin exists: recorded only
			case "expired":
				if stopAfter > T/3 {
					continue // stopped later than T/3 after Done: the partition's margin does not cover it
				}
				why = fmt.Sprintf("its session expired, and it stopped %v after Done (within T/3 = %v)", round(stopAfter), T/3)
			default:
				if told >= grace*9/10 {
					continue // the loss grace had passed (10 % slack for when Done was recorded)
				}
				why = fmt.Sprintf("its session survived (%s), and the loss grace %v had not passed", fate, grace)
			}
			stopped := "stopped"
			if !a.stopped {
				stopped = "the run ended, still not stopped,"
			}
			v.add(CHandoff, "%s op %d (%s) granted %s %v after %s op %d (%s) was told, %v before it %s: %s",
				b.proc, b.op, b.mode, b.res, round(told), a.proc, a.op, a.mode, round(overlap), stopped, why)
		}
	}
	return overlaps
}

// sessionFate says what became of the session of hold a by time t: "killed" (the nemesis
// expired that very session, before a's grant too, or paused a's process, or expired an
// unrecorded session of a's client after the grant), "expired" (the first of RECONNECTED and
// LOST on a's client after the grant was LOST), else how it survived. A grant made on a session
// the nemesis had already expired on the server is one the client made before it could see the
// expiry (a sticky lease's local re-grant 250 us after it, say): no margin exists for it either.
func sessionFate(ix *index, a *handoffHold, t int64) string {
	c := client(a.proc)
	for _, f := range ix.events {
		if f.T > t {
			break
		}
		if f.Proc != c {
			continue
		}
		expiry := f.Kind == Fault && f.Detail == string(Expire)
		if expiry && a.sess != 0 && f.Sess == a.sess {
			return "killed"
		}
		if f.T >= a.start && (f.Kind == Pause || expiry && a.sess == 0) {
			return "killed"
		}
	}
	for _, f := range ix.events {
		if f.Proc != c || f.T < a.start || f.Kind != State {
			continue
		}
		switch f.Detail {
		case "LOST":
			return "expired"
		case "RECONNECTED":
			return "reconnected"
		}
	}
	return "no reconnect seen"
}

// round rounds d for a message.
func round(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
