// Package chaos is zkrecipes' Jepsen-style fault suite: a nemesis that
// injects faults into a three-server zktest ensemble on a seeded random
// schedule, workloads of concurrent lock clients (in-process, or separate
// OS processes that can be paused for real) and of leader-election
// candidates (a term of a LeaderLatch or LeaderSelector is judged as a held
// mutex), a history of everything that happened stamped with the system's
// monotonic clock, and checkers that read the history after the run:
//
//   - fence:  a fenced register outside ZooKeeper that checks tokens, and a
//     znode written through Multi(lease.Guard(), ...): accepted tokens
//     strictly increase, and no acknowledged write is lost;
//   - belief: no two holders believe they hold an exclusive lock at once
//     (both Done channels open), unless the old holder's session was
//     expired or its process paused and its Done then closed in time;
//   - recipe: at most k semaphore leases, a writer alone, multi-lock all or
//     nothing;
//   - live:   every client that keeps trying acquires within a bound once
//     faults heal; the longest time the lock sat free while someone waited;
//   - clean:  after close, no node under any lock path and the servers'
//     watch count back to its baseline (goroutine leaks are checked by the
//     tests with zktest.CheckGoroutines);
//   - notify: the latency from a fault to the holder's Done closing, against
//     the bounds of reliability.md §A3.7;
//   - handoff: in rows whose holders keep working for a stop delay after
//     Done (rows 25-28), no grant while a told holder has not stopped, unless
//     the loss grace had passed, or its session expired and it took longer
//     than T/3 to stop (see handoff.go).
//
// The rows of the fault × workload table (reliability.md §A4) are Scenarios;
// Run runs one and returns its Result. Every checker is proven able to fail
// by the self-tests against deliberately broken locks (and belief and
// notify also against two broken leader latches). Nothing here is
// meant for production code: it is a test harness, exported so that the
// suite can be driven by `go test` and by `make chaos`.
package chaos
