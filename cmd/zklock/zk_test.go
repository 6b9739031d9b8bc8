package main

import (
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/zktest"
)

// startProxy puts a zktest proxy in front of server for the test.
func startProxy(t *testing.T, server string) *zktest.Proxy { return zktest.NewProxy(t, server) }

// expireSession expires a session for real on server.
func expireSession(t *testing.T, server string, id int64, passwd []byte) error {
	return zktest.ExpireSession(ctxFor(t, 10*time.Second), server, id, passwd)
}
