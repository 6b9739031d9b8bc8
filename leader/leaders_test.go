package leader_test

import (
	"sync/atomic"
	"testing"
)

// flag is a candidate whose leadership the test sets.
type flag struct{ atomic.Bool }

func (f *flag) HasLeadership() bool { return f.Load() }

// The interop tests' leaders.only asks candidates one after another: a handoff between two
// answers (Java answers that it leads, then hands over to g1 before g1 is asked) is not two
// leaders at once, while two candidates that both still lead after each other's answer are.
// The old only reported the handoff as two leaders.
func TestLeadersHandoffBetweenAnswersIsNotTwoLeaders(t *testing.T) {
	var g1 flag
	var javaLeads atomic.Bool
	javaLeads.Store(true)
	ls := leaders{t: t, goers: map[string]interface{ HasLeadership() bool }{"g1": &g1}}
	ls.java = func() (bool, error) {
		was := javaLeads.Swap(false) // Java answers, then hands over at once
		g1.Store(true)
		return was, nil
	}
	ls.only("g1")
	if who := ls.leading(); len(who) != 1 || who[0] != "g1" {
		t.Fatalf("leading %v, want g1 alone", who)
	}
}
