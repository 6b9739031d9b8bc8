package chaos

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
)

// Helper processes (row 7): lock clients in their own OS process, so that
// SIGSTOP pauses a holder for real, as a GC pause or a frozen VM would.
// The test binary re-executes itself with HolderEnv set; the child speaks
// JSON events (stamped with the shared CLOCK_MONOTONIC) on stdout and asks
// the coordinator's Fence for each write ("fence" events, answered "1" or
// "0" on stdin). Closing its stdin makes it release and exit.

// HolderEnv, when set in a process's environment, makes RunHolderIfChild run
// a helper holder instead of the tests.
const HolderEnv = "ZKRECIPES_CHAOS_HOLDER"

// holderSpec is what a helper holder needs, passed as JSON in HolderEnv.
type holderSpec struct {
	Name    string
	Servers []string
	Path    string
	Data    string
	T       time.Duration
	CS      time.Duration
	Seed    uint64
	Index   int // makes ops unique across processes
}

// RunHolderIfChild runs the helper holder (or row 28's command) and exits if this process is one;
// otherwise it returns at once. Call it first in TestMain.
func RunHolderIfChild() {
	if raw := os.Getenv(ExecCmdEnv); raw != "" {
		runExecCommand(raw) // row 28's command under zklock exec; exits
	}
	raw := os.Getenv(HolderEnv)
	if raw == "" {
		return
	}
	var spec holderSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		fmt.Fprintln(os.Stderr, "chaos holder:", err)
		os.Exit(2)
	}
	if err := runHolder(spec, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "chaos holder:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// holderIO is the child's side of the protocol.
type holderIO struct {
	mu  sync.Mutex
	out *json.Encoder
	in  *bufio.Reader
}

func (h *holderIO) emit(e Event) {
	if e.T == 0 {
		e.T = Now()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	_ = h.out.Encode(e)
}

// fence asks the coordinator's Fence; false also when stdin is closed.
func (h *holderIO) fence(e Event) (ok, open bool) {
	h.emit(e)
	line, err := h.in.ReadString('\n')
	if err != nil {
		return false, false
	}
	return strings.TrimSpace(line) == "1", true
}

// runHolder loops acquire, fenced writes, release until stdin closes.
func runHolder(spec holderSpec, in io.Reader, out io.Writer) error {
	fw, err := framework.New(spec.Servers, framework.WithSessionTimeout(spec.T))
	if err != nil {
		return err
	}
	defer fw.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	err = fw.WaitConnected(ctx)
	cancel()
	if err != nil {
		return err
	}
	l, err := MutexLocker(fw, spec.Path)
	if err != nil {
		return err
	}
	io := &holderIO{out: json.NewEncoder(out), in: bufio.NewReader(in)}
	rng := rand.New(rand.NewPCG(spec.Seed, 7))
	for op := int64(1); ; op++ {
		if !holdOnce(fw, l, spec, io, rng, op) {
			return nil
		}
	}
}

// holdOnce makes one hold; false when the coordinator said stop.
func holdOnce(fw *framework.Framework, l Locker, spec holderSpec, hio *holderIO, rng *rand.Rand, op int64) bool {
	proc := spec.Name + "/0"
	op = op*100 + int64(spec.Index) // unique across the processes of a run
	hio.emit(Event{Proc: proc, Kind: AcqCall, Res: spec.Path, Mode: "x", Op: op})
	ctx, cancel := context.WithTimeout(context.Background(), 8*spec.T)
	h, err := l.Acquire(ctx)
	cancel()
	if err != nil {
		hio.emit(Event{Proc: proc, Kind: AcqFail, Res: spec.Path, Mode: "x", Op: op, Err: err.Error()})
		time.Sleep(50 * time.Millisecond)
		return true
	}
	part := h.Parts()[0]
	tok, _ := part.Token(context.Background())
	hio.emit(Event{Proc: proc, Kind: AcqOK, Res: spec.Path, Mode: "x", Op: op, Token: tok})
	released := make(chan struct{})
	go func() {
		select {
		case <-h.Done():
			hio.emit(Event{Proc: proc, Kind: DoneSeen, Res: spec.Path, Op: op, Err: fmt.Sprint(h.Err())})
		case <-released:
		}
	}()
	time.Sleep(time.Duration(rng.Int64N(int64(spec.CS) + 1))) // a SIGSTOP lands here, usually
	_, open := hio.fence(Event{Proc: proc, Kind: "fence", Res: spec.Path, Op: op, Token: tok})
	elem := fmt.Sprintf("%s#%d#1", proc, op)
	wctx, cancel := context.WithTimeout(context.Background(), 2*spec.T)
	err = zkWrite(wctx, fw, part.Guard(), spec.Data, tok, elem)
	cancel()
	ev := Event{Proc: proc, Kind: Write, Res: "zk:" + spec.Path, Op: op, Token: tok, OK: err == nil, Detail: elem}
	if err != nil {
		ev.Err = err.Error()
	}
	hio.emit(ev)
	hio.emit(Event{Proc: proc, Kind: RelCall, Res: spec.Path, Op: op})
	close(released)
	rctx, cancel := context.WithTimeout(context.Background(), 2*spec.T)
	err = h.Release(rctx)
	cancel()
	ev = Event{Proc: proc, Kind: RelDone, Res: spec.Path, Op: op}
	if err != nil {
		ev.Err = err.Error()
	}
	hio.emit(ev)
	return open
}
