package recipes_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Per-cycle counts that do not depend on the machine's load (issue 27): the contended benchmarks
// report them beside cpu-us/op so that two revisions, or this library and go-zookeeper's zk.Lock,
// can be compared on a shared machine where the timing is noise.
//
// Always reported: the client's CPU (cpu-us/op), the ZooKeeper server's (server-cpu-us/op: zktest
// runs it as a child of the test process; in 10 ms ticks, so only long runs resolve it) and the
// goroutines started (goroutines/op). The goroutine wake-ups per cycle are counted exactly with
// go tool trace (scripts/wakeups), not here: /sched/latencies samples one transition in eight of
// each goroutine, too lumpy to count them.
// With ZKRECIPES_PERF=1 (and perf installed) a `perf stat -p` attached to this process also
// counts its system calls by kind, context switches and CPU migrations (the ZooKeeper server is
// another process and is not counted); ZKRECIPES_PERF_EVENTS adds events (e.g. uprobes on
// runtime functions, set up by the caller with `perf probe -x`).

// benchCounts is the state of the counters at the start of a timed section.
type benchCounts struct {
	cpu     time.Duration
	server  time.Duration
	created uint64
	perf    *perfStat
}

// startCounts reads the counters; with ZKRECIPES_PERF=1 it also attaches perf to this process
// (only when b.N > 1: the benchmark's probe run with b.N=1 is not worth an attach).
func startCounts(b *testing.B) *benchCounts {
	b.Helper()
	c := &benchCounts{}
	if os.Getenv("ZKRECIPES_PERF") == "1" && b.N > 1 {
		p, err := startPerf(b)
		if err != nil {
			b.Fatalf("perf: %v", err)
		}
		c.perf = p
	}
	c.cpu, c.server, c.created = processCPU(), childrenCPU(), goroutinesCreated()
	return c
}

// report reports each counter's change since startCounts, divided by ops.
func (c *benchCounts) report(b *testing.B, ops float64) {
	b.Helper()
	cpu, server, created := processCPU(), childrenCPU(), goroutinesCreated()
	b.ReportMetric(float64((cpu-c.cpu).Microseconds())/ops, "cpu-us/op")
	b.ReportMetric(float64((server-c.server).Microseconds())/ops, "server-cpu-us/op")
	b.ReportMetric(float64(created-c.created)/ops, "goroutines/op")
	if c.perf == nil {
		return
	}
	counts, err := c.perf.stop()
	if err != nil {
		b.Fatalf("perf: %v", err)
	}
	for _, pc := range counts {
		b.ReportMetric(float64(pc.n)/ops, pc.name+"/op")
	}
}

// childrenCPU is the user+system CPU time so far of this process's running children: the
// ZooKeeper server that zktest started (and, while it runs, perf). On a small machine the
// server's CPU per cycle is throughput too: what the client saves in hand-offs it may cost the
// server in separate network round trips.
func childrenCPU() time.Duration {
	self := strconv.Itoa(os.Getpid())
	dirs, _ := os.ReadDir("/proc")
	var total time.Duration
	for _, d := range dirs {
		if d.Name()[0] < '0' || d.Name()[0] > '9' {
			continue
		}
		data, err := os.ReadFile("/proc/" + d.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ... utime(14) stime(15), counted after the ")" of comm
		f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
		if len(f) < 13 || f[1] != self || strings.Contains(string(data), "(perf)") {
			continue
		}
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		total += time.Duration(ut+st) * (time.Second / 100) // clock ticks: USER_HZ is 100 on Linux
	}
	return total
}

// perfEvents are the events counted with ZKRECIPES_PERF=1, each with the metric's name. The
// futex tracepoint appears twice, filtered on its op (FUTEX_WAIT_PRIVATE, FUTEX_WAKE_PRIVATE:
// the Go runtime's sleeps and wake-ups of its threads).
var perfEvents = []struct{ name, event, filter string }{
	{"ctxsw", "context-switches", ""},
	{"migrations", "cpu-migrations", ""},
	{"syscalls", "raw_syscalls:sys_enter", ""},
	{"futex-wait", "syscalls:sys_enter_futex", "op == 128"},
	{"futex-wake", "syscalls:sys_enter_futex", "op == 129"},
	{"read", "syscalls:sys_enter_read", ""},
	{"write", "syscalls:sys_enter_write", ""},
	{"epoll_pwait", "syscalls:sys_enter_epoll_pwait", ""},
	{"nanosleep", "syscalls:sys_enter_nanosleep", ""},
	{"tgkill", "syscalls:sys_enter_tgkill", ""},
	{"sched_yield", "syscalls:sys_enter_sched_yield", ""},
	{"getrandom", "syscalls:sys_enter_getrandom", ""},
	{"madvise", "syscalls:sys_enter_madvise", ""},
}

// perfCount is one event's count.
type perfCount struct {
	name string
	n    uint64
}

// perfStat is a `perf stat -p` attached to this process, counting between enable and disable.
type perfStat struct {
	cmd      *exec.Cmd
	stderr   strings.Builder
	ctl, ack *os.File
	out      string
	names    []string
}

// startPerf starts perf stat on this process with its counters disabled, enables them through
// perf's control fifo and waits for perf's acknowledgement, so that counting has begun when it
// returns.
func startPerf(b *testing.B) (*perfStat, error) {
	dir := b.TempDir()
	ctlPath, ackPath := filepath.Join(dir, "ctl"), filepath.Join(dir, "ack")
	for _, f := range []string{ctlPath, ackPath} {
		if err := syscall.Mkfifo(f, 0o600); err != nil {
			return nil, err
		}
	}
	p := &perfStat{out: filepath.Join(dir, "out")}
	args := []string{"stat", "-x", ",", "-o", p.out, "-D", "-1", "--control",
		"fifo:" + ctlPath + "," + ackPath, "-p", strconv.Itoa(os.Getpid())}
	for _, e := range perfEvents {
		args = append(args, "-e", e.event)
		if e.filter != "" {
			args = append(args, "--filter", e.filter)
		}
		p.names = append(p.names, e.name)
	}
	for _, e := range strings.Split(os.Getenv("ZKRECIPES_PERF_EVENTS"), ",") {
		if e != "" {
			args = append(args, "-e", e)
			p.names = append(p.names, e[strings.LastIndex(e, ":")+1:])
		}
	}
	p.cmd = exec.Command("perf", args...)
	p.cmd.Stderr = &p.stderr // "Events enabled" and the like; shown on failure
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	var err error
	// Opening a fifo blocks until perf opens its end: perf opens both as it starts.
	if p.ctl, err = os.OpenFile(ctlPath, os.O_WRONLY, 0); err != nil {
		return nil, err
	}
	if p.ack, err = os.Open(ackPath); err != nil {
		return nil, err
	}
	return p, p.command("enable")
}

// command sends cmd to perf and waits for its acknowledgement (bounded: perf is local).
func (p *perfStat) command(cmd string) error {
	if _, err := fmt.Fprintln(p.ctl, cmd); err != nil {
		return err
	}
	_ = p.ack.SetReadDeadline(time.Now().Add(30 * time.Second))
	line, err := bufio.NewReader(p.ack).ReadString('\n')
	if err != nil {
		return fmt.Errorf("perf's acknowledgement of %s: %w", cmd, err)
	}
	if strings.TrimSpace(line) != "ack" {
		return fmt.Errorf("perf answered %q to %s", line, cmd)
	}
	return nil
}

// stop disables the counters, ends perf and reads its counts, in perfEvents' order.
func (p *perfStat) stop() ([]perfCount, error) {
	err := p.command("disable")
	_ = p.cmd.Process.Signal(os.Interrupt)
	if werr := p.cmd.Wait(); err == nil && werr != nil && !strings.Contains(werr.Error(), "interrupt") {
		err = fmt.Errorf("%w: %s", werr, p.stderr.String())
	}
	p.ctl.Close()
	p.ack.Close()
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(p.out)
	if err != nil {
		return nil, err
	}
	var counts []perfCount
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Split(line, ",")
		if len(f) < 3 || strings.HasPrefix(line, "#") || len(counts) >= len(p.names) {
			continue
		}
		n, _ := strconv.ParseUint(f[0], 10, 64) // 0 for "<not counted>" or "<not supported>"
		counts = append(counts, perfCount{name: p.names[len(counts)], n: n})
	}
	return counts, nil
}
