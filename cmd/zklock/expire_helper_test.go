package main

import (
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/zktest"
)

// expireSession expires session id (password passwd) for real on zk's first server, or fails
// the test: the zklock under test then learns that its session was lost.
func expireSession(t testing.TB, zk *zktest.Cluster, id int64, passwd []byte) {
	t.Helper()
	if err := zktest.ExpireSession(ctxFor(t, 10*time.Second), zk.Servers()[0], id, passwd); err != nil {
		t.Fatal(err)
	}
}
