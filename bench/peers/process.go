package peers

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
	"github.com/zkrecipes/zkrecipes/interop"
)

//go:embed curator/CuratorBench.java
var curatorSource []byte

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
	dir, err := interop.CompileJava(ctx, "CuratorBench", curatorSource, cp)
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

// Run implements harness.Peer: one child for all scenarios. If ctx ends the child is killed.
func (p procPeer) Run(ctx context.Context, servers string, scenarios ...harness.Scenario) ([]harness.Result, error) {
	cmd, err := p.command(ctx, servers)
	if err != nil {
		return nil, err
	}
	if len(cmd.Args) > 1 && strings.HasSuffix(cmd.Args[1], ".py") {
		defer os.RemoveAll(filepath.Dir(cmd.Args[1]))
	}
	var input strings.Builder
	for _, sc := range scenarios {
		if err := sc.Validate(); err != nil {
			return nil, err
		}
		input.WriteString(strings.Join(sc.Args(), " ") + "\n")
	}
	cmd.Stdin = strings.NewReader(input.String())
	stderr := &strings.Builder{}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("peers: start %s: %w", p.name, err)
	}
	stop := context.AfterFunc(ctx, func() { _ = cmd.Process.Kill() })
	defer stop()
	out, perr := readResults(stdout, p.name)
	werr := cmd.Wait()
	if err := ctx.Err(); err != nil {
		return out, err
	}
	if perr == nil && len(out) != len(scenarios) {
		perr = fmt.Errorf("peers: %s gave %d results for %d scenarios (exit: %v): %s", p.name, len(out), len(scenarios), werr, tail(stderr.String()))
	}
	return out, perr
}

// readResults decodes one JSON Result per line until EOF.
func readResults(r interface{ Read([]byte) (int, error) }, name string) ([]harness.Result, error) {
	var out []harness.Result
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		var res harness.Result
		if err := json.Unmarshal(sc.Bytes(), &res); err != nil {
			return out, fmt.Errorf("peers: %s printed %q: %w", name, sc.Text(), err)
		}
		res.Peer = name
		out = append(out, res)
	}
	return out, sc.Err()
}

func tail(s string) string {
	if len(s) > 2000 {
		return s[len(s)-2000:]
	}
	return s
}
