package main

import (
	"context"

	"github.com/zkrecipes/zkrecipes/framework"
)

// reconnectDivisor: zklock waits at most T/reconnectDivisor for a reconnect before it exits.
// go-zookeeper gives a silent connection up after 2T/3, so under a partition the server
// expires the session about T/3 later: past that, waiting cannot make the handoff earlier.
const reconnectDivisor = 3

// closeAfterReconnect closes fw, first waiting, at most T/3, for the connection to come back
// when it is down while the session may live: closing a live session deletes our ephemeral
// nodes at once, so that after a short outage the next holder starts as soon as zklock exits,
// not when the server expires the session (issue 26.3: 10.4-10.8 s later). A lost session has
// nothing left to close; nor does a healthy connection wait.
func closeAfterReconnect(fw *framework.Framework) {
	if s := fw.State(); !s.IsConnected() && s != framework.Lost {
		ctx, cancel := context.WithTimeout(context.Background(), fw.SessionTimeout()/reconnectDivisor)
		_ = fw.WaitConnected(ctx)
		cancel()
	}
	fw.Close()
}
