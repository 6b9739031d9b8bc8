package zktest

import "testing"

// A connection that lived through a blackhole lost frames; TCP never delivers a frame after one it
// lost, so neither may the proxy in the moment between the blackhole's end and the connection's
// close: a client would otherwise see a later watch event without an earlier one on one stream.
func TestTaintedConnectionForwardsNothing(t *testing.T) {
	p := &Proxy{counts: map[int32]int64{}}
	c := &proxyConn{p: p}
	p.blackhole = true
	if p.forwardReply(c) {
		t.Fatal("a server frame passed the blackhole")
	}
	p.blackhole = false // Blackhole(false) has cleared the flag, and not yet closed c
	if p.forwardReply(c) {
		t.Fatal("a server frame passed on a connection that lost frames")
	}
	if fwd, _ := p.forwardRequest(c, OpGetData, -1, true); fwd {
		t.Fatal("a client request passed on a connection that lost frames")
	}
	if fresh := (&proxyConn{p: p}); !p.forwardReply(fresh) {
		t.Fatal("a connection born after the blackhole is dropped")
	}
}
