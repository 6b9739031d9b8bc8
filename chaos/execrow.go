package chaos

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/zkrecipes/zkrecipes/zktest"
)

// Row 28: `zklock exec` with a command that takes time to stop. Each client runs the zklock
// binary (built from this module) again and again, on one lock path, through proxies of its
// own; the command is this test binary re-executed with ExecCmdEnv set. It records its own
// start (a grant: zklock starts the command once it holds the lock), works up to ExecCS, and
// when zklock sends it SIGTERM (the lock was lost) it records Done, keeps working for a stop
// delay of StopMin..StopMax, records Stopped and exits; zklock releases after it exited. The
// nemesis resets a holder's connections or blackholes them for 0.4 T. Every event is stamped
// with CLOCK_MONOTONIC by the process that saw it, so the handoff checker judges the run.

// ExecCmdEnv, when set in a process's environment, makes RunHolderIfChild run the command of
// row 28 instead of the tests.
const ExecCmdEnv = "ZKRECIPES_CHAOS_EXECCMD"

// ExecCS is the longest time row 28's command works when it is not told to stop.
const ExecCS = time.Second

// execCmdSpec is what the command needs, as JSON in ExecCmdEnv.
type execCmdSpec struct {
	Proc             string
	Op               int64
	Res              string
	CS               time.Duration
	StopMin, StopMax time.Duration
	Seed             uint64
}

// runExecCommand is the command: events as JSON lines on stdout (zklock passes it through).
func runExecCommand(raw string) {
	var spec execCmdSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		fmt.Fprintln(os.Stderr, "chaos exec command:", err)
		os.Exit(2)
	}
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	enc := json.NewEncoder(os.Stdout)
	emit := func(e Event) {
		e.T, e.Proc, e.Op, e.Res = Now(), spec.Proc, spec.Op, spec.Res
		_ = enc.Encode(e)
	}
	tok, _ := strconv.ParseInt(os.Getenv("ZKLOCK_TOKEN"), 10, 64)
	emit(Event{Kind: AcqOK, Mode: "x", Token: tok, Detail: os.Getenv("ZKLOCK_NODE")})
	rng := rand.New(rand.NewPCG(spec.Seed, uint64(spec.Op)))
	t := time.NewTimer(time.Duration(rng.Int64N(int64(spec.CS) + 1)))
	select {
	case <-t.C:
	case <-term:
		emit(Event{Kind: DoneSeen, Err: "SIGTERM"})
		time.Sleep(spec.StopMin + time.Duration(rng.Int64N(int64(max(0, spec.StopMax-spec.StopMin))+1))) // still working
	}
	emit(Event{Kind: Stopped})
	emit(Event{Kind: RelCall}) // the command is done; zklock releases once it has exited
	os.Exit(0)
}

// buildZklock builds cmd/zklock into dir and returns the binary.
func buildZklock(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "zklock")
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go") // the toolchain that built this test
	if _, err := os.Stat(gobin); err != nil {
		gobin = "go"
	}
	out, err := exec.CommandContext(ctx, gobin, "build", "-o", bin, "github.com/zkrecipes/zkrecipes/cmd/zklock").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("chaos: build zklock: %w: %s", err, out)
	}
	return bin, nil
}

// execClient is one client of row 28: its proxies, and the op its command holds now.
type execClient struct {
	name    string
	proxies []*zktest.Proxy
	granted chan<- struct{} // signalled (without blocking) at each grant, for the nemesis
	mu      sync.Mutex
	held    int64
}

func (c *execClient) holding() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.held > 0
}

// scriptRow28 runs the row (see above); the handoff checker judges it (Scenario.Handoff).
func scriptRow28(ctx context.Context, e *Env, cfg Config, v *Verdict) error {
	dir, err := os.MkdirTemp("", "chaos-zklock-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	bin, err := buildZklock(bctx, dir)
	cancel()
	if err != nil {
		return err
	}
	const n = 4
	var clients []*execClient
	defer func() {
		for _, c := range clients {
			for _, p := range c.proxies {
				p.Close()
			}
		}
	}()
	granted := make(chan struct{}, 1)
	for i := range n {
		c := &execClient{name: fmt.Sprintf("x%d", i), granted: granted}
		clients = append(clients, c)
		for j := range e.Cluster.Size() {
			p, err := zktest.OpenProxy(e.Cluster.Member(j).Addr())
			if err != nil {
				return err
			}
			c.proxies = append(c.proxies, p)
		}
	}
	lctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Add(1)
		go func() { defer wg.Done(); c.loop(lctx, e, cfg, bin, i) }()
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0xfa17))
	gap := 3 * time.Second
	end := time.Now().Add(cfg.Phase)
	for ctx.Err() == nil {
		sleepCtx(ctx, gap/2+time.Duration(rng.Int64N(int64(gap)+1)))
		if time.Now().After(end) {
			break
		}
		execFault(ctx, e, clients, granted, gap, rng)
	}
	quiet := e.H.Add(Event{Kind: Note, Detail: "quiet"})
	bound := 4*e.T + n*(ExecCS+time.Second)
	sleepCtx(ctx, bound)
	stop()
	wg.Wait()
	addOfflineConflicts(e.H)
	checkLive(v, newIndex(e.H.Events()), quiet, bound)
	return ctx.Err()
}

// execFault resets a holding client's connections, or blackholes them for 0.4 T. When no
// command holds now it waits for the next grant, at most wait, then takes any client.
func execFault(ctx context.Context, e *Env, clients []*execClient, granted <-chan struct{}, wait time.Duration, rng *rand.Rand) {
	select {
	case <-granted: // drop a stale signal: wait for a grant from now on if nobody holds
	default:
	}
	c := holdingClient(clients, rng)
	if c == nil {
		t := time.NewTimer(wait)
		select {
		case <-granted:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
		if c = holdingClient(clients, rng); c == nil {
			c = clients[rng.IntN(len(clients))]
		}
	}
	k := []FaultKind{Reset, BlackholeBrief}[rng.IntN(2)]
	e.H.Add(Event{Proc: c.name, Kind: Fault, Detail: string(k)})
	if k == Reset {
		for _, p := range c.proxies {
			p.DropConnections()
		}
	} else {
		for _, p := range c.proxies {
			p.Blackhole(true)
		}
		sleepCtx(ctx, 2*e.T/5)
		for _, p := range c.proxies {
			p.Blackhole(false)
		}
	}
	e.H.Add(Event{Kind: Heal, Detail: string(k)})
}

// holdingClient returns a client whose command holds now, or nil.
func holdingClient(clients []*execClient, rng *rand.Rand) *execClient {
	for _, i := range rng.Perm(len(clients)) {
		if clients[i].holding() {
			return clients[i]
		}
	}
	return nil
}

// loop runs zklock exec until ctx ends; each run is one acquisition.
func (c *execClient) loop(ctx context.Context, e *Env, cfg Config, bin string, i int) {
	var servers []string
	for _, p := range c.proxies {
		servers = append(servers, p.Addr())
	}
	for ctx.Err() == nil {
		c.once(ctx, e, cfg, bin, strings.Join(servers, ","), i)
	}
}

// once runs zklock exec once: a grant, a hold, a release (or a failed acquire). When ctx ends
// it asks zklock to stop (SIGTERM, which it forwards to the command) and waits for it, bounded.
func (c *execClient) once(ctx context.Context, e *Env, cfg Config, bin, servers string, i int) {
	proc := c.name + "/0"
	op := e.H.NextOp()
	spec := execCmdSpec{Proc: proc, Op: op, Res: e.lockPath(0), CS: ExecCS, StopMin: StopMin, StopMax: StopMax, Seed: cfg.Seed + uint64(i)}
	raw, err := json.Marshal(spec)
	if err != nil {
		panic(err) // plain data: cannot fail
	}
	// --kill-grace beyond the stop delay: the command, not SIGKILL, decides when it stops.
	cmd := exec.Command(bin, "--servers", servers, "--session-timeout", e.T.String(),
		"exec", "--kill-grace", (StopMax + e.T).String(), "--timeout", (8 * e.T).String(), spec.Res, "--", os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), ExecCmdEnv+"="+string(raw))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		e.H.Add(Event{Kind: Note, Detail: fmt.Sprintf("%s: %v", proc, err)})
		sleepCtx(ctx, time.Second)
		return
	}
	e.H.Add(Event{Proc: proc, Kind: AcqCall, Res: spec.Res, Mode: "x", Op: op})
	if err := cmd.Start(); err != nil {
		e.H.Add(Event{Proc: proc, Kind: AcqFail, Res: spec.Res, Mode: "x", Op: op, Err: err.Error()})
		sleepCtx(ctx, time.Second)
		return
	}
	read := make(chan struct{})
	go func() { defer close(read); c.read(e, stdout) }()
	exited := make(chan error, 1)
	go func() { <-read; exited <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-exited:
	case <-ctx.Done():
		_ = cmd.Process.Signal(syscall.SIGTERM)
		t := time.NewTimer(StopMax + 2*e.T)
		select {
		case werr = <-exited:
		case <-t.C:
			_ = cmd.Process.Kill()
			werr = <-exited
		}
		t.Stop()
	}
	c.mu.Lock()
	got := c.held == op || c.held == -op
	c.held = 0
	c.mu.Unlock()
	ev := Event{Proc: proc, Kind: RelDone, Res: spec.Res, Op: op}
	if !got {
		ev.Kind = AcqFail
	}
	if werr != nil {
		ev.Err = fmt.Sprintf("%v: %s", werr, lastLine(stderr.String()))
	}
	e.H.Add(ev)
	var ee *exec.ExitError
	if !got && errors.As(werr, &ee) {
		sleepCtx(ctx, 50*time.Millisecond) // an acquire that failed: back off briefly
	}
}

// read merges the command's events into the history and tracks what the client holds
// (-op once the command stopped, until zklock exits).
func (c *execClient) read(e *Env, stdout io.Reader) {
	dec := json.NewDecoder(bufio.NewReader(stdout))
	for {
		var ev Event
		if err := dec.Decode(&ev); err != nil {
			return
		}
		e.H.Add(ev)
		c.mu.Lock()
		switch ev.Kind {
		case AcqOK:
			c.held = ev.Op
			select {
			case c.granted <- struct{}{}:
			default:
			}
		case Stopped:
			c.held = -ev.Op
		}
		c.mu.Unlock()
	}
}

// lastLine returns the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
