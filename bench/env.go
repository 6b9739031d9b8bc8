package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/zkrecipes/zkrecipes/bench/peers"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// envInfo is what the report records about the machine, the server and the software versions.
type envInfo struct {
	Cores        int
	CPUModel     string
	Kernel       string
	Go           string
	GoZookeeper  string
	ZooKeeper    string // srvr's "Zookeeper version"
	ServerConfig []string
	Java         string
	Curator      string
	Kazoo        string
	Python       string
}

// collectEnv gathers envInfo; what cannot be found reads "unknown".
func collectEnv(ctx context.Context, server string, serverConfig []string) envInfo {
	e := envInfo{Cores: runtime.NumCPU(), CPUModel: cpuModel(), Go: runtime.Version(),
		GoZookeeper: moduleVersion("github.com/go-zookeeper/zk"), ServerConfig: serverConfig}
	e.Kernel = firstLine(cmdOutput(ctx, "uname", "-sr"))
	if out, err := zktest.FourLetter(ctx, server, "srvr"); err == nil {
		for _, l := range strings.Split(out, "\n") {
			if v, ok := strings.CutPrefix(l, "Zookeeper version: "); ok {
				e.ZooKeeper = strings.TrimSpace(v)
			}
		}
	}
	e.ZooKeeper = orUnknown(e.ZooKeeper)
	e.Java = orUnknown(firstLine(cmdOutput(ctx, "java", "-version")))
	e.Curator = orUnknown(debVersion(ctx, "libcurator-recipes-java"))
	e.Kazoo = orUnknown(firstLine(cmdOutput(ctx, peers.KazooPython, "-c", "import kazoo.version; print(kazoo.version.__version__)")))
	if e.Kazoo != "unknown" {
		if d := debVersion(ctx, "python3-kazoo"); d != "" {
			e.Kazoo += " (Debian python3-kazoo " + d + ")"
		}
	}
	e.Python = orUnknown(firstLine(cmdOutput(ctx, peers.KazooPython, "--version")))
	if d := debVersion(ctx, "zookeeper"); d != "" {
		e.ZooKeeper += " (Debian zookeeper " + d + ")"
	}
	return e
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// moduleVersion is the version of a dependency compiled into this binary.
func moduleVersion(path string) string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == path {
				return d.Version
			}
		}
	}
	return "unknown"
}

// cmdOutput runs a short command (bounded to 20 s) and returns stdout+stderr, "" on failure.
func cmdOutput(ctx context.Context, name string, args ...string) string {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(l)
}

func debVersion(ctx context.Context, pkg string) string {
	return cmdOutput(ctx, "dpkg-query", "-W", "-f=${Version}", pkg)
}

// ensurePeers installs the Curator and kazoo packages when they are missing, but only when
// allowed, running as root and on a machine with apt-get; otherwise it returns notes saying
// which peers will be skipped and how to install them.
func ensurePeers(ctx context.Context, allow bool, log io.Writer) []string {
	type dep struct {
		name, pkg string
		check     func() error
	}
	deps := []dep{{"Curator", "libcurator-recipes-java", peers.CuratorAvailable},
		{"kazoo", "python3-kazoo", peers.KazooAvailable}}
	var missing []dep
	for _, d := range deps {
		if d.check() != nil {
			missing = append(missing, d)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	_, aptErr := exec.LookPath("apt-get")
	if allow && os.Geteuid() == 0 && aptErr == nil {
		args := []string{"install", "-y"}
		for _, d := range missing {
			args = append(args, d.pkg)
		}
		fmt.Fprintf(log, "bench: installing the missing peers: apt-get %s\n", strings.Join(args, " "))
		cmd := exec.CommandContext(ctx, "apt-get", args...)
		cmd.Stdout, cmd.Stderr = log, log
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		if err := cmd.Run(); err != nil {
			fmt.Fprintf(log, "bench: apt-get failed: %v\n", err)
		}
	}
	var notes []string
	for _, d := range missing {
		if err := d.check(); err != nil {
			notes = append(notes, fmt.Sprintf("%s peer skipped: %v (as root: apt-get install -y %s)", d.name, err, d.pkg))
		} else {
			notes = append(notes, fmt.Sprintf("%s peer: installed %s for this run", d.name, d.pkg))
		}
	}
	return notes
}
