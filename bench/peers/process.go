package peers

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
	"github.com/zkrecipes/zkrecipes/interop"
)

//go:embed curator/CuratorBench.java
var curatorSource []byte

//go:embed curator/CuratorSticky.java
var curatorStickySource []byte

//go:embed kazoo/kazoo_bench.py
var kazooSource []byte

// ErrMissing wraps the reason a peer's runtime or packages are absent (the caller skips the peer).
var ErrMissing = errors.New("peers: peer not installed")

// KazooPython is the interpreter that has Debian's python3-kazoo (not a pyenv python3).
const KazooPython = "/usr/bin/python3"

// procPeer runs scenarios through one child process speaking the scenario line protocol.
type procPeer struct {
	name    string
	command func(ctx context.Context, servers string) (*exec.Cmd, error)
}

// CuratorPeer is Curator 5's recipes (InterProcessMutex, InterProcessReadWriteLock,
// InterProcessSemaphoreV2, InterProcessMultiLock) in one JVM (-Xms512m -Xmx512m, as peer-bench.md).
func CuratorPeer() harness.Peer { return procPeer{name: "Curator", command: curatorCommand} }

// KazooPeer is kazoo's Lock and Semaphore on /usr/bin/python3.
func KazooPeer() harness.Peer { return procPeer{name: "kazoo", command: kazooCommand} }

// CuratorAvailable reports why the Curator peer cannot run (wrapping ErrMissing), or nil.
func CuratorAvailable() error {
	if _, err := interop.CuratorClasspath(); err != nil {
		return fmt.Errorf("%w: %v", ErrMissing, err)
	}
	if _, err := exec.LookPath("javac"); err != nil {
		return fmt.Errorf("%w: javac: %v", ErrMissing, err)
	}
	return nil
}

// KazooAvailable reports why the kazoo peer cannot run (wrapping ErrMissing), or nil.
func KazooAvailable() error {
	if err := exec.Command(KazooPython, "-c", "import kazoo").Run(); err != nil {
		return fmt.Errorf("%w: %s cannot import kazoo (apt-get install -y python3-kazoo): %v", ErrMissing, KazooPython, err)
	}
	return nil
}

func curatorCommand(ctx context.Context, servers string) (*exec.Cmd, error) {
	if err := CuratorAvailable(); err != nil {
		return nil, err
	}
	cp, _ := interop.CuratorClasspath()
	dir, err := interop.CompileJavaFiles(ctx, "CuratorBench", curatorSource, cp,
		interop.JavaFile{Class: "CuratorSticky", Text: curatorStickySource})
	if err != nil {
		return nil, err
	}
	return exec.Command("java", "-Xms512m", "-Xmx512m", "-cp", dir+string(os.PathListSeparator)+cp,
		"CuratorBench", servers), nil
}

func kazooCommand(ctx context.Context, servers string) (*exec.Cmd, error) {
	if err := KazooAvailable(); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "kazoo-bench-")
	if err != nil {
		return nil, err
	}
	script := filepath.Join(dir, "kazoo_bench.py")
	if err := os.WriteFile(script, kazooSource, 0o644); err != nil {
		return nil, err
	}
	cmd := exec.Command(KazooPython, script, servers)
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	return cmd, nil
}

// Name implements harness.Peer.
func (p procPeer) Name() string { return p.name }

// Run implements harness.Peer: one child for all scenarios, sent one line at a time. A line
// {"mark": m} from the child is a scenario's phase mark: the driver's Mark runs, then "go" is
// written back. If ctx ends the child is killed.
func (p procPeer) Run(ctx context.Context, servers string, scenarios ...harness.Scenario) ([]harness.Result, error) {
	for _, sc := range scenarios {
		if err := sc.Validate(); err != nil {
			return nil, err
		}
	}
	cmd, err := p.command(ctx, servers)
	if err != nil {
		return nil, err
	}
	if len(cmd.Args) > 1 && strings.HasSuffix(cmd.Args[1], ".py") {
		defer os.RemoveAll(filepath.Dir(cmd.Args[1]))
	}
	stderr := &strings.Builder{}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("peers: start %s: %w", p.name, err)
	}
	stop := context.AfterFunc(ctx, func() { _ = cmd.Process.Kill() })
	defer stop()
	out, perr := converse(ctx, stdin, stdout, p.name, scenarios, func() { _ = cmd.Process.Kill() })
	stdin.Close()
	werr := cmd.Wait()
	if err := ctx.Err(); err != nil {
		return out, err
	}
	if perr == nil && len(out) != len(scenarios) {
		perr = fmt.Errorf("peers: %s gave %d results for %d scenarios (exit: %v): %s", p.name, len(out), len(scenarios), werr, tail(stderr.String()))
	}
	return out, perr
}

// message is one line from a child: a phase mark or a result.
type message struct {
	Mark string `json:"mark"`
	harness.Result
}

// converse sends each scenario, answers its marks, and collects its result. A scenario with a
// Budget that runs past scenarioLimit has the child killed (kill) and gets a failed Result.
func converse(ctx context.Context, stdin io.Writer, stdout io.Reader, name string, scenarios []harness.Scenario, kill func()) ([]harness.Result, error) {
	var out []harness.Result
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for _, s := range scenarios {
		if _, err := io.WriteString(stdin, strings.Join(s.Args(), " ")+"\n"); err != nil {
			return out, fmt.Errorf("peers: %s: write scenario: %w", name, err)
		}
		var killed atomic.Bool
		lastMark := "none"
		var t *time.Timer
		if limit := scenarioLimit(s); limit > 0 {
			t = time.AfterFunc(limit, func() { // stopped when this scenario's result arrives
				killed.Store(true)
				if s.Mark != nil {
					s.Mark(ctx, "killed") // the driver looks at the queue before the child's sessions go
				}
				kill()
			})
			defer t.Stop()
		}
		for {
			if !sc.Scan() {
				if killed.Load() {
					return append(out, harness.Result{Peer: name, Kind: s.Kind,
						Error: fmt.Sprintf("killed: no result within %v (last mark: %s)", scenarioLimit(s), lastMark)}), nil
				}
				if err := sc.Err(); err != nil {
					return out, err
				}
				return out, nil // the child ended; Run reports the missing results
			}
			var m message
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				return out, fmt.Errorf("peers: %s printed %q: %w", name, sc.Text(), err)
			}
			if m.Mark != "" {
				lastMark = m.Mark
				if m.Mark == "filled" && t != nil {
					t.Reset(drainLimit(s))
				}
				if s.Mark != nil {
					s.Mark(ctx, m.Mark)
				}
				if _, err := io.WriteString(stdin, "go\n"); err != nil {
					return out, fmt.Errorf("peers: %s: write go: %w", name, err)
				}
				continue
			}
			if t != nil {
				t.Stop() // a later scenario must not be killed by this one's watchdog
			}
			m.Result.Peer = name
			out = append(out, m.Result)
			break
		}
	}
	return out, nil
}

// scenarioLimit bounds a scenario with a Budget in wall time until its "filled" mark: the
// child bounds the filling by the budget; 20 s more for connecting and reporting, then the child
// is killed (0: no bound).
func scenarioLimit(s harness.Scenario) time.Duration {
	if s.Budget <= 0 {
		return 0
	}
	return s.Budget + 20*time.Second
}

// drainLimit bounds the rest once the queue is full: the driver's settling (15 s), the timed
// releases and the drain (DrainBudget, in the child), 30 s to measure, clean up and report.
func drainLimit(s harness.Scenario) time.Duration {
	d := s.DrainBudget
	if d <= 0 {
		d = s.Budget
	}
	return 45*time.Second + d
}

func tail(s string) string {
	if len(s) > 2000 {
		return s[len(s)-2000:]
	}
	return s
}
