package main

import (
	"context"

	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// markCounts is what the counting pass had seen at one of an uncontended scenario's marks: at
// "first", the session's set-up and its first acquire+release; at "end", every cycle, before the
// session closes. s1's requests per acquisition after the first, and the uncontended multi-locks'
// figures per acquisition, are the difference.
type markCounts struct {
	Requests      map[int32]int64
	Notifications int64
	Server        *serverCounters `json:",omitempty"` // change since the scenario began
}

// markAt makes sc snapshot the proxy's counts (and the server's) at its "first" and "end" marks
// into c.
func markAt(sc *harness.Scenario, proxy *zktest.Proxy, addr string, before serverCounters, berr error, c *countResult) {
	switch sc.Kind {
	case harness.Uncontended, harness.UncontendedWrite, harness.MultiUncontended:
	default:
		return
	}
	sc.Mark = func(ctx context.Context, m string) {
		f := &markCounts{Requests: proxy.Requests(), Notifications: proxy.Notifications()}
		if berr == nil {
			if now, err := settledServerCounters(ctx, addr); err == nil {
				delta := now.sub(before)
				f.Server = &delta
			}
		}
		switch m {
		case "first":
			c.First = f
		case "end":
			c.End = f
		}
	}
}

// afterFirst is what c counted between the "first" and "end" marks, per acquisition after the
// first (the session's set-up, first acquisition and tear-down left out): ok is false without
// both marks or with a single acquisition.
func (c countResult) afterFirst() (countResult, bool) {
	if c.First == nil || c.End == nil || c.Per < 2 || c.Err != "" {
		return countResult{}, false
	}
	out := countResult{Requests: map[int32]int64{}, Notifications: c.End.Notifications - c.First.Notifications,
		Per: c.Per - 1, PerWhat: c.PerWhat}
	for op, n := range c.End.Requests {
		if d := n - c.First.Requests[op]; d != 0 {
			out.Requests[op] = d
		}
	}
	if c.End.Server != nil && c.First.Server != nil {
		s := c.End.Server.sub(*c.First.Server)
		out.Server = &s
	}
	return out, true
}
