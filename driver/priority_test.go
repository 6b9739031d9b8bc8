package driver_test

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/zkrecipes/zkrecipes/driver"
)

// prioDriver is the priority lock a user would write: one sort key for everyone (the
// sequence), and a grant to the contender with the lowest priority number, parsed from the
// name "p<digit>-".
type prioDriver struct{}

func (prioDriver) LockName() string            { return "-" }
func (prioDriver) SortKey(child string) string { return driver.SequenceKey(child) }
func (prioDriver) Node() driver.Node           { return driver.Node{} }
func (prioDriver) Decide(v driver.View) driver.Decision {
	best := 0
	for i, c := range v.Sorted {
		if prio(c) < prio(v.Sorted[best]) {
			best = i
		}
	}
	if best == v.Index {
		return driver.Decision{Holds: true}
	}
	return driver.Decision{WatchNode: v.Sorted[best]}
}

func prio(name string) byte { return name[strings.Index(name, "p")+1] }

// event of a history: a contender arrives (with its priority) or the holder releases.
type event struct {
	arrive  string // contender name
	prio    int
	release bool
}

// replay runs a history under the specification of a priority lock (one holder; an arrival
// at a free lock holds; at a release the waiter with the lowest number holds, the earliest of
// equals) and returns the contender nodes left and who holds.
func replay(h []event) (listing []string, holder string) {
	var waiting []string
	seq := 0
	for _, e := range h {
		switch {
		case e.release:
			listing = slices.DeleteFunc(listing, func(n string) bool { return n == holder })
			holder = ""
			if len(waiting) > 0 {
				best := 0
				for i, w := range waiting {
					if prio(w) < prio(waiting[best]) {
						best = i
					}
				}
				holder = waiting[best]
				waiting = slices.Delete(waiting, best, best+1)
			}
		default:
			n := fmt.Sprintf("_c_%s-p%d-%010d", e.arrive, e.prio, seq)
			seq++
			listing = append(listing, n)
			if holder == "" {
				holder = n
			} else {
				waiting = append(waiting, n)
			}
		}
	}
	return listing, holder
}

// Issue 26.10: a priority lock ("a lower number goes first") cannot be a driver of the acquire
// loop. Two histories leave the same contender nodes with different holders, so no decision
// made from the names (whatever the driver, whatever else the View adds that the listing
// determines) is right in both: this one grants a second holder in the first. The loop cannot
// refuse it (every contender shares the sequence key, so CheckGrant passes).
// docs/custom-recipes.md says so and points here; on the old docs that check failed.
func TestPriorityCannotBeDecidedFromNames(t *testing.T) {
	histories := []struct {
		name string
		h    []event
	}{
		{"a arrived at a free lock, then b", []event{{arrive: "x", prio: 0}, {release: true}, {arrive: "a", prio: 5}, {arrive: "b", prio: 1}}},
		{"x held while a and b queued, then released", []event{{arrive: "x", prio: 0}, {arrive: "a", prio: 5}, {arrive: "b", prio: 1}, {release: true}}},
	}
	var listings [][]string
	holders := map[string]bool{}
	wrong := 0
	for _, hi := range histories {
		l, holder := replay(hi.h)
		listings = append(listings, l)
		holders[holder] = true
		var granted []string
		for _, n := range l {
			dec, v, err := driver.Evaluate(prioDriver{}, l, n, nil)
			if err != nil {
				t.Fatal(err)
			}
			if dec.Holds {
				if err := driver.CheckGrant(v); err != nil {
					t.Fatalf("%s: CheckGrant refused %s: %v", hi.name, n, err)
				}
				granted = append(granted, n)
			}
		}
		if !slices.Equal(granted, []string{holder}) {
			wrong++
			t.Logf("%s: %s holds, the driver grants %v: with the holder, two holders", hi.name, holder, granted)
		}
	}
	if !slices.Equal(listings[0], listings[1]) || len(holders) != 2 || wrong == 0 {
		t.Fatalf("listings %v, holders %v, wrong %d: want one listing, two different holders, a wrong grant", listings, holders, wrong)
	}
	doc, err := os.ReadFile("../docs/custom-recipes.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "## A priority lock cannot be a driver") || !strings.Contains(string(doc), t.Name()) {
		t.Fatal(errors.New("docs/custom-recipes.md does not say that a priority lock cannot be a driver, and why (naming this test)"))
	}
}
