// Command wakeups counts, from an execution trace, the goroutine wake-ups of a run, each by who
// woke whom: the first frames outside the runtime of the waker's stack, and of the stack where
// the woken goroutine had blocked. Divided by the operations of the run, it is the load-free
// measure of hand-offs per operation that issue 27 compares between zkrecipes and go-zookeeper's
// zk.Lock (docs/performance.md, session 13): each wake-up is a goroutine readied (a futex wake of
// an idle P when one is idle), whatever the machine's load.
//
//	go test -c -o /tmp/r.test ./recipes_test
//	(cd recipes_test && /tmp/r.test -test.run '^$' -test.bench 'BenchmarkGoZKLock/sessions=8$' \
//	    -test.benchtime 400x -test.trace /tmp/zklock.trace)
//	go run ./scripts/wakeups -ops 400 /tmp/zklock.trace
//
// The trace covers the whole test binary's run (its connects, the benchmark's probe with b.N=1):
// with -ops the run's acquisitions, those add a few hundredths per operation. It reads the
// output of `go tool trace -d=parsed`.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
)

func main() {
	ops := flag.Float64("ops", 1, "operations in the traced run: counts are divided by it")
	depth := flag.Int("depth", 2, "frames outside the runtime that name a site")
	min := flag.Float64("min", 0.02, "omit rows below this count per operation")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: wakeups [-ops N] [-depth D] TRACE")
		os.Exit(2)
	}
	cmd := exec.Command("go", "tool", "trace", "-d=parsed", flag.Arg(0))
	out, err := cmd.StdoutPipe()
	if err != nil {
		fail(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	c := newCounts(*depth)
	if err := c.read(out); err != nil {
		fail(err)
	}
	if err := cmd.Wait(); err != nil {
		fail(err)
	}
	c.print(os.Stdout, *ops, *min)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "wakeups:", err)
	os.Exit(1)
}

// counts are the tallies of one trace.
type counts struct {
	depth   int
	blocked map[string]string // goroutine -> where it blocked last
	wakes   map[string]int    // "waker  ->  woken's block site"
	blocks  map[string]int    // block sites
	yields  map[string]int    // Running->Runnable: reason and site
	created map[string]int    // goroutines created, by site
	pWakes  int               // Ps going from idle to running
}

func newCounts(depth int) *counts {
	return &counts{depth: depth, blocked: map[string]string{}, wakes: map[string]int{},
		blocks: map[string]int{}, yields: map[string]int{}, created: map[string]int{}}
}

var (
	transition = regexp.MustCompile(`StateTransition .*GoID=(\d+) (\w+)->(\w+) Reason="([^"]*)"`)
	procWake   = regexp.MustCompile(`StateTransition .*ProcID=\d+ Idle->Running`)
)

// read parses the events: a line starting "M=", then its stacks ("Stack=", "TransitionStack=")
// as tab-indented frames, each a function line and a file line.
func (c *counts) read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var event string
	stacks := map[string][]string{}
	var cur string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "M="):
			c.event(event, stacks)
			event, stacks, cur = line, map[string][]string{}, ""
		case strings.HasSuffix(line, "Stack="):
			cur = strings.TrimSuffix(line, "=")
			stacks[cur] = nil
		case strings.HasPrefix(line, "\t\t"): // a frame's file line
		case strings.HasPrefix(line, "\t") && cur != "":
			fn, _, _ := strings.Cut(strings.TrimSpace(line), " @ ")
			stacks[cur] = append(stacks[cur], fn)
		}
	}
	c.event(event, stacks)
	return sc.Err()
}

// event tallies one event.
func (c *counts) event(line string, stacks map[string][]string) {
	if procWake.MatchString(line) {
		c.pWakes++
		return
	}
	m := transition.FindStringSubmatch(line)
	if m == nil {
		return
	}
	g, from, to, reason := m[1], m[2], m[3], m[4]
	switch {
	case from == "Running" && to == "Waiting":
		s := c.site(stacks["TransitionStack"])
		c.blocked[g] = s
		c.blocks[s]++
	case from == "Waiting" && to == "Runnable":
		waker := "(netpoll, timer or scheduler)"
		if st := stacks["Stack"]; len(st) > 0 {
			waker = c.site(st)
		}
		woken := c.blocked[g]
		if woken == "" {
			woken = "?"
		}
		c.wakes[waker+"  ->  "+woken]++
	case from == "Running" && to == "Runnable":
		c.yields[reason+": "+c.site(stacks["TransitionStack"])]++
	case from == "NotExist" && to == "Runnable":
		c.created[c.site(stacks["Stack"])]++
	}
}

// skipped are frames that name no site: the runtime's, and the primitives everyone blocks in.
var skipped = []string{"runtime.", "internal/", "sync.(*Mutex)", "sync.(*WaitGroup).Wait", "sync.(*Cond)",
	"sync.runtime_", "syscall.", "os.", "time.", "context.(*cancelCtx).propagateCancel"}

// site names a stack by its first frames outside the runtime, module paths shortened.
func (c *counts) site(frames []string) string {
	var fs []string
	for _, f := range frames {
		if !hasAnyPrefix(f, skipped) {
			fs = append(fs, short(f))
		}
		if len(fs) == c.depth {
			break
		}
	}
	if len(fs) == 0 && len(frames) > 0 {
		return short(frames[0])
	}
	return strings.Join(fs, " < ")
}

var shape = regexp.MustCompile(`\[go\.shape[^\]]*\]`)

func short(f string) string {
	f = strings.NewReplacer("github.com/zkrecipes/zkrecipes/", "", "github.com/go-zookeeper/", "").Replace(f)
	return shape.ReplaceAllString(f, "")
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// print writes each tally per operation, largest first.
func (c *counts) print(w io.Writer, ops, min float64) {
	table(w, "wake-ups (waker  ->  where the woken goroutine blocked)", c.wakes, ops, min)
	table(w, "blocks (where)", c.blocks, ops, min)
	table(w, "yields and preemptions (reason: where)", c.yields, ops, min)
	table(w, "goroutines created (where)", c.created, ops, min)
	fmt.Fprintf(w, "== Ps woken from idle: %.2f per op\n", float64(c.pWakes)/ops)
}

func table(w io.Writer, title string, m map[string]int, ops, min float64) {
	total := 0
	keys := make([]string, 0, len(m))
	for k, n := range m {
		keys = append(keys, k)
		total += n
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] || m[keys[i]] == m[keys[j]] && keys[i] < keys[j] })
	fmt.Fprintf(w, "== %s: %.2f per op\n", title, float64(total)/ops)
	for _, k := range keys {
		if v := float64(m[k]) / ops; v >= min {
			fmt.Fprintf(w, "%7.2f  %s\n", v, k)
		}
	}
}
