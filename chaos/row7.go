package chaos

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// holderProc is the coordinator's handle on a helper holder process.
type holderProc struct {
	name  string
	cmd   *exec.Cmd
	stdin io.WriteCloser
	mu    sync.Mutex
	held  int64 // the op it holds now (0: none), as last reported
	read  chan struct{}
}

// scriptRow7: holder processes are stopped (SIGSTOP) for 2 T while they
// hold: the fenced register and the guarded znode refuse their late writes,
// and the resume → Done latency is measured.
func scriptRow7(ctx context.Context, e *Env, cfg Config, v *Verdict) error {
	p := e.lockPath(0)
	if err := e.setupRegisters(ctx, []string{p}); err != nil {
		return err
	}
	const n = 4
	procs := make([]*holderProc, 0, n)
	defer func() {
		for _, hp := range procs {
			hp.stop(2 * e.T)
		}
	}()
	for i := range n {
		spec := holderSpec{Name: fmt.Sprintf("p%d", i), Servers: e.Cluster.Servers(), Path: p, Data: e.dataPath(p),
			T: e.T, CS: 400 * time.Millisecond, Seed: cfg.Seed + uint64(i), Index: i}
		hp, err := startHolder(e, spec)
		if err != nil {
			return err
		}
		procs = append(procs, hp)
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 7))
	end := time.Now().Add(cfg.Phase)
	for time.Now().Before(end) && ctx.Err() == nil {
		sleepCtx(ctx, time.Second+time.Duration(rng.Int64N(int64(time.Second))))
		if hp := pickHolding(procs, rng); hp != nil {
			hp.pause(ctx, e, 2*e.T)
		}
	}
	quiet := e.H.Add(Event{Kind: Note, Detail: "quiet"})
	bound := 4*e.T + n*time.Second
	sleepCtx(ctx, bound)
	for _, hp := range procs {
		hp.stop(4 * e.T)
	}
	procs = nil
	addOfflineConflicts(e.H)
	checkLive(v, newIndex(e.H.Events()), quiet, bound)
	return nil
}

// startHolder re-executes the test binary as a helper holder.
func startHolder(e *Env, spec holderSpec) (*holderProc, error) {
	raw, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), HolderEnv+"="+string(raw))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("chaos: start holder: %w", err)
	}
	hp := &holderProc{name: spec.Name, cmd: cmd, stdin: stdin, read: make(chan struct{})}
	go hp.readEvents(e, stdout)
	return hp, nil
}

// readEvents merges the child's events into the history and answers its
// fence requests.
func (hp *holderProc) readEvents(e *Env, stdout io.Reader) {
	defer close(hp.read)
	dec := json.NewDecoder(bufio.NewReader(stdout))
	for {
		var ev Event
		if err := dec.Decode(&ev); err != nil {
			return
		}
		if ev.Kind == "fence" {
			ans := "0\n"
			if e.Fence.Write(ev.Proc, ev.Op, ev.Res, ev.Token) {
				ans = "1\n"
			}
			_, _ = io.WriteString(hp.stdin, ans)
			continue
		}
		e.H.Add(ev)
		hp.mu.Lock()
		switch ev.Kind {
		case AcqOK:
			hp.held = ev.Op
		case RelCall, DoneSeen:
			hp.held = 0
		}
		hp.mu.Unlock()
	}
}

// pickHolding returns a process that holds the lock now, if any.
func pickHolding(procs []*holderProc, rng *rand.Rand) *holderProc {
	for _, i := range rng.Perm(len(procs)) {
		hp := procs[i]
		hp.mu.Lock()
		held := hp.held != 0
		hp.mu.Unlock()
		if held {
			return hp
		}
	}
	return nil
}

// pause stops the process for d, then continues it.
func (hp *holderProc) pause(ctx context.Context, e *Env, d time.Duration) {
	pid := hp.cmd.Process.Pid
	e.H.Add(Event{Proc: hp.name, Kind: Pause})
	_ = syscall.Kill(pid, syscall.SIGSTOP)
	sleepCtx(ctx, d)
	_ = syscall.Kill(pid, syscall.SIGCONT)
	t := e.H.Add(Event{Proc: hp.name, Kind: Resume})
	e.H.Add(Event{T: t, Proc: hp.name, Kind: Fault, Detail: string(ResumeClient)})
}

// stop asks the process to finish (stdin closed), waits up to d, then kills it.
func (hp *holderProc) stop(d time.Duration) {
	_ = syscall.Kill(hp.cmd.Process.Pid, syscall.SIGCONT)
	hp.stdin.Close()
	done := make(chan struct{})
	go func() { _ = hp.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		_ = hp.cmd.Process.Kill()
		<-done
	}
	<-hp.read
}

// addOfflineConflicts finds, from timestamps alone (one clock for every
// process), each grant made while another holder had neither released nor
// seen its Done close, and records it as a Conflict.
func addOfflineConflicts(h *History) {
	type hold struct {
		proc       string
		op         int64
		start, end int64
	}
	holds := map[int64]*hold{}
	for _, ev := range h.Events() {
		switch ev.Kind {
		case AcqOK:
			holds[ev.Op] = &hold{proc: ev.Proc, op: ev.Op, start: ev.T, end: 1<<63 - 1}
		case RelCall, DoneSeen:
			if x := holds[ev.Op]; x != nil && ev.T < x.end {
				x.end = ev.T
			}
		}
	}
	for _, b := range holds {
		for _, a := range holds {
			if a.op != b.op && a.start < b.start && b.start < a.end {
				h.Add(Event{T: b.start, Proc: b.proc, Kind: Conflict, Mode: "x", Op: b.op, Peer: a.proc, PeerOp: a.op, Detail: "x"})
			}
		}
	}
}
