package framework

import "testing"

// pendingSet's idle channel is closed exactly while nothing is pending.
func TestPendingSetIdle(t *testing.T) {
	isIdle := func(p *pendingSet) bool {
		select {
		case <-p.idle():
			return true
		default:
			return false
		}
	}
	cases := []struct {
		name string
		ops  string // a: add, d: done
		want bool
	}{
		{"none", "", true},
		{"one pending", "a", false},
		{"one done", "ad", true},
		{"two, one done", "aad", false},
		{"two done", "aadd", true},
		{"again after idle", "ada", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var p pendingSet
			for _, op := range tc.ops {
				if op == 'a' {
					p.add()
				} else {
					p.done()
				}
			}
			if got := isIdle(&p); got != tc.want {
				t.Fatalf("idle after %q = %v, want %v", tc.ops, got, tc.want)
			}
		})
	}
}

// A waiter holding the idle channel from before the last done is woken by it.
func TestPendingSetWakesWaiter(t *testing.T) {
	var p pendingSet
	p.add()
	ch := p.idle()
	p.done()
	select {
	case <-ch:
	default:
		t.Fatal("the channel taken while pending stayed open after the last done")
	}
}
