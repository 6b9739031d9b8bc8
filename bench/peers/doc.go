// Package peers launches the foreign-language benchmark peers: Curator (curator/CuratorBench.java,
// compiled with javac on first use) and kazoo (kazoo/kazoo_bench.py on /usr/bin/python3). Both
// read one scenario per stdin line and print one JSON harness.Result per line, so a single process
// runs a whole list of scenarios (JVM warm-up carries over, as in peer-bench.md).
package peers
