// Package zktest runs a real Apache ZooKeeper for tests, like Curator's
// curator-test: one server or an ensemble on 127.0.0.1, with faults on
// demand.
//
// It starts Debian's ZooKeeper 3.8 (/usr/share/java/zookeeper.jar, run
// directly on the JVM) with free ports, a temporary data directory, a short
// tickTime (so 200 ms..30 s session timeouts are allowed), four-letter words
// enabled, the admin server off and a fast container reaper. If ZooKeeper is
// missing, Start fails the test with the hint "apt-get install -y zookeeper"
// (ErrNotInstalled). ZKTEST_JAVA and ZKTEST_CLASSPATH override where the JVM
// and the jars are found.
//
// Servers:
//
//	c := zktest.Start(t)                 // one server; t.Cleanup stops it
//	e := zktest.StartEnsemble(t, 3)      // ready when every member leads or follows
//	e.Member(0).Kill()                   // SIGKILL; also Stop, Pause, Resume, Restart
//	n, _ := c.Member(0).WatchCount(ctx)  // "wchs"; also Mntr, Mode, FourLetter
//
// A server is ready when "srvr" reports a serving mode and a real
// go-zookeeper client reached StateHasSession. Start waits at most 30 s
// (WithStartTimeout), then fails with the tail of the server's log. Logs go
// to a file per member (Member.LogPath), never to the test output, except
// that their tail is logged when the test failed.
//
// Faults between one client and the server: a Proxy, plugged in through
// go-zookeeper's zk.WithDialer, parses ZooKeeper's framing and can drop
// connections, blackhole or delay traffic, lose the reply of a chosen
// request (CutReplyAfter; CutReplyAfterMulti for a transaction by its first
// operation), and counts requests by opcode and watch
// notifications. ExpireSession expires a session on the server for real, by
// attaching to it and closing it; Expire(ctx, c, fw) does it to any
// framework.Framework, with the credentials from fw.SessionCredentials.
//
// Leaks: CheckGoroutines(t) fails a test that leaves goroutines behind, and
// VerifyNoLeaks(m) does the same for a whole package from TestMain.
// CheckNoWatches(t, c, fws...) fails a test that leaves watches behind, on
// its clients or on the server.
//
// Tests of code built on framework: Main(m, &srv) is a whole TestMain that
// shares one server among a package's tests (under VerifyNoLeaks); Connect(t,
// c) gives a connected framework.Framework closed at cleanup; UniquePath(t,
// "/tests") a znode path no other test uses; Children(t, fw, p) the "no node
// left" check; Eventually(t, limit, what, cond) a bounded poll.
//
// Everything here needs a Unix system (process groups and signals).
package zktest
