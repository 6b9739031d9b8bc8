package main

import (
	"strings"
	"testing"
)

// A parsed trace's blocks and wake-ups are tallied by site: the woken goroutine's block site
// comes from its own earlier Running->Waiting event, the waker's from the wake-up's stack, with
// runtime frames skipped.
func TestCountsTallyWakeupsBySite(t *testing.T) {
	const trace = `M=1 P=0 G=5 StateTransition Time=1 GoID=5 Running->Waiting Reason="chan receive"
TransitionStack=
	runtime.gopark @ 0x1
		/go/src/runtime/proc.go:1
	github.com/go-zookeeper/zk.(*Conn).request @ 0x2
		/zk/conn.go:1
	github.com/go-zookeeper/zk.(*Conn).Create @ 0x3
		/zk/conn.go:2
	main.caller @ 0x4
		/main.go:1

M=1 P=0 G=7 StateTransition Time=2 GoID=5 Waiting->Runnable Reason=""
Stack=
	runtime.goready @ 0x5
		/go/src/runtime/proc.go:2
	github.com/go-zookeeper/zk.(*Conn).recvLoop @ 0x6
		/zk/conn.go:3
	github.com/go-zookeeper/zk.(*Conn).loop.func2 @ 0x7
		/zk/conn.go:4

M=1 P=-1 G=-1 StateTransition Time=3 ProcID=1 Idle->Running Reason=""
M=1 P=0 G=-1 StateTransition Time=4 GoID=9 Waiting->Runnable Reason=""
`
	c := newCounts(2)
	if err := c.read(strings.NewReader(trace)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		got  map[string]int
		key  string
	}{
		{"the block", c.blocks, "zk.(*Conn).request < zk.(*Conn).Create"},
		{"the reply's wake-up", c.wakes, "zk.(*Conn).recvLoop < zk.(*Conn).loop.func2  ->  zk.(*Conn).request < zk.(*Conn).Create"},
		{"a wake-up with no stack, of a goroutine not seen blocking", c.wakes, "(netpoll, timer or scheduler)  ->  ?"},
	} {
		if tc.got[tc.key] != 1 {
			t.Errorf("%s: %q counted %d times, want once (all: %v)", tc.name, tc.key, tc.got[tc.key], tc.got)
		}
	}
	if c.pWakes != 1 {
		t.Errorf("%d Ps woken, want 1", c.pWakes)
	}
}
