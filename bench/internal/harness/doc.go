// Package harness defines the benchmark scenarios of issue 5 and runs them, identically, over any
// Go lock implementation; the Java (Curator) and Python (kazoo) peers mirror this code line for
// line and print the same JSON Result.
//
// A Peer runs a list of scenarios against one ZooKeeper ensemble and returns one Result each. Go
// peers are a Connector (a session factory) wrapped by GoPeer; process peers launch a program that
// reads one scenario per stdin line (the flags of Scenario.Args) and prints one JSON Result per line.
//
// Fairness rules (see shared/reference/peer-bench.md): every peer gets the same scenario values,
// the same warm-up (WarmCycles for uncontended, Warmup before every timed window), the same server,
// and the same mutual-exclusion checks (a holder counter that must never exceed the permitted count).
package harness
