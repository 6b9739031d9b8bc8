package zktest

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// LeakWait bounds how long the leak checks wait for goroutines to finish.
const LeakWait = 5 * time.Second

// ignoredStacks mark goroutines that belong to the runtime or the testing
// package (including tests still running in parallel), never to the code
// under test.
var ignoredStacks = []string{
	"testing.tRunner(",
	"testing.(*M).",
	"testing.Main(",
	"testing.runTests(",
	"testing.(*T).Run(",
	"testing.(*T).Parallel(",
	"os/signal.signal_recv",
	"os/signal.loop",
	"runtime.ensureSigM",
	"runtime.goexit1",
	"runtime/trace.Start",
	"runtime.ReadTrace",
}

// CheckGoroutines fails the test if, when it ends, goroutines started
// during it are still running after a bounded wait (LeakWait); it logs
// their stacks. Call it first in the test so that its check runs after
// every other Cleanup (servers, proxies, clients). Goroutines of tests
// running in parallel can be blamed, so use it in non-parallel tests.
func CheckGoroutines(tb testing.TB) {
	tb.Helper()
	before := goroutineIDs()
	tb.Cleanup(func() {
		if leaked := waitForLeaks(before, LeakWait); len(leaked) > 0 {
			tb.Errorf("zktest: %d leaked goroutine(s):\n\n%s", len(leaked), strings.Join(leaked, "\n\n"))
		}
	})
}

// VerifyNoLeaks runs the package's tests and then fails the run (exit
// code 1) if goroutines started by them are still running after LeakWait.
// Use it as the whole TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(zktest.VerifyNoLeaks(m)) }
func VerifyNoLeaks(m *testing.M) int {
	before := goroutineIDs()
	code := m.Run()
	if code != 0 {
		return code
	}
	if leaked := waitForLeaks(before, LeakWait); len(leaked) > 0 {
		fmt.Fprintf(os.Stderr, "zktest: %d leaked goroutine(s) after the tests:\n\n%s\n",
			len(leaked), strings.Join(leaked, "\n\n"))
		return 1
	}
	return 0
}

// waitForLeaks polls until no new, interesting goroutine remains or d
// passes; it returns the stacks of the remaining ones.
func waitForLeaks(before map[int64]bool, d time.Duration) []string {
	deadline := time.Now().Add(d)
	for {
		leaked := newGoroutines(before)
		if len(leaked) == 0 || time.Now().After(deadline) {
			return leaked
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// newGoroutines returns the stacks of goroutines not in before, minus the
// caller's and the ignored ones.
func newGoroutines(before map[int64]bool) []string {
	self := currentGoroutineID()
	var out []string
	for id, stack := range goroutineStacks() {
		if before[id] || id == self || ignored(stack) {
			continue
		}
		out = append(out, stack)
	}
	return out
}

func ignored(stack string) bool {
	for _, s := range ignoredStacks {
		if strings.Contains(stack, s) {
			return true
		}
	}
	return false
}

func goroutineIDs() map[int64]bool {
	ids := make(map[int64]bool)
	for id := range goroutineStacks() {
		ids[id] = true
	}
	return ids
}

// goroutineStacks returns every goroutine's stack by id.
func goroutineStacks() map[int64]string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	out := make(map[int64]string)
	for _, g := range strings.Split(string(buf), "\n\n") {
		if id, ok := parseGoroutineID(g); ok {
			out[id] = g
		}
	}
	return out
}

// CountGoroutines returns how many goroutines of this process have frame in their stack (a
// function's qualified name, or part of it): the count a test bounds where a goroutine leak is
// not the question but how many goroutines some code runs at once.
func CountGoroutines(frame string) int {
	n := 0
	for _, stack := range goroutineStacks() {
		if strings.Contains(stack, frame) {
			n++
		}
	}
	return n
}

func currentGoroutineID() int64 {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	id, _ := parseGoroutineID(string(buf))
	return id
}

// parseGoroutineID reads N from a stack starting "goroutine N [...".
func parseGoroutineID(stack string) (int64, bool) {
	rest, ok := strings.CutPrefix(stack, "goroutine ")
	if !ok {
		return 0, false
	}
	num, _, ok := strings.Cut(rest, " ")
	if !ok {
		return 0, false
	}
	id, err := strconv.ParseInt(num, 10, 64)
	return id, err == nil
}
