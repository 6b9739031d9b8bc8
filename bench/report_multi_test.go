package main

import (
	"strings"
	"testing"

	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// TestMultiCountsLeaveOutTheSetUp: on a slow disk the counting pass's short window holds few
// acquisitions, and the session's set-up (createSession, the parents' containers) and
// tear-down (closeSession) weigh on every figure per acquisition. An uncontended row is what
// one acquisition costs once the session is up: from its "first" mark to its "end" mark. (The
// CI run of session 23 read 3.14 write transactions per acquisition of m4-tx for 2.)
func TestMultiCountsLeaveOutTheSetUp(t *testing.T) {
	d := &runData{plan: defaultPlan(), reps: 1, peers: []string{zkrecipesName}, results: map[key][]harness.Result{},
		counts: map[key]countResult{}}
	// Seven acquisitions: the first with createSession and four containers, six more with one
	// multi create and one multi delete each, then closeSession.
	first := &markCounts{Requests: map[int32]int64{zktest.OpCreateContainer: 4, zktest.OpMulti: 2, zktest.OpGetChildren2: 4},
		Server: &serverCounters{Fsyncs: 7, ClientWrites: 7, Txns: 7}}
	end := &markCounts{Requests: map[int32]int64{zktest.OpCreateContainer: 4, zktest.OpMulti: 14, zktest.OpGetChildren2: 28},
		Server: &serverCounters{Fsyncs: 19, ClientWrites: 19, Txns: 19}}
	whole := map[int32]int64{zktest.OpCreateContainer: 4, zktest.OpMulti: 14, zktest.OpGetChildren2: 28, zktest.OpCloseSession: 1}
	d.counts[key{zkrecipesName, multiUncID(4, harness.MultiTx)}] = countResult{Requests: whole, Per: 7, PerWhat: "acquisition",
		Server: &serverCounters{Fsyncs: 20, ClientWrites: 20, Txns: 20}, First: first, End: end}
	// The contended row has no marks: it stays the whole run's.
	d.counts[key{zkrecipesName, idMultiContTx}] = countResult{Requests: map[int32]int64{zktest.OpMulti: 40}, Per: 20,
		PerWhat: "acquisition", Server: &serverCounters{Fsyncs: 30, ClientWrites: 42, Txns: 42}}
	var b strings.Builder
	writeMultiCounts(&md{w: &b}, d)
	for _, want := range []string{
		"| m4-tx | **zkrecipes** transactional | 6.00 | 2.00 | 2.00 | 2.00 | 1.00 |",
		"| mc-tx | **zkrecipes** transactional | 2.00 | 2.00 | 2.10 | 1.50 | 1.40 |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}
