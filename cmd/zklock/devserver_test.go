package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// zklock dev-server prints the connect string first, serves a session on it, and on SIGTERM
// stops its servers (no JVM left behind) and removes its data dir.
func TestDevServer(t *testing.T) {
	tests := []struct {
		name string
		args func(t *testing.T) (args []string, port string)
	}{
		{"free port", func(*testing.T) ([]string, string) { return nil, "" }},
		{"given port", func(t *testing.T) ([]string, string) {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
			l.Close()
			return []string{"--port", port}, port
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args, port := tt.args(t)
			p := startZklock(t, append([]string{"dev-server"}, args...)...)
			var servers string
			select {
			case l, ok := <-p.lines:
				if !ok {
					t.Fatalf("dev-server exited (%d) before printing; stderr:\n%s", p.code, p.stderr)
				}
				servers = l
			case <-time.After(60 * time.Second):
				t.Fatalf("no connect string within 60s; stderr:\n%s", p.stderr)
			}
			if !strings.HasPrefix(servers, "127.0.0.1:") || port != "" && servers != "127.0.0.1:"+port {
				t.Fatalf("first line %q, want 127.0.0.1:%s", servers, port)
			}
			dir := dataDir(t, p)
			if len(processesMentioning(dir)) == 0 {
				t.Fatalf("no server process runs with %s", dir)
			}
			connectOnce(t, servers)
			if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			if code := p.wait(t, 30*time.Second); code != exitOK {
				t.Fatalf("exit %d after SIGTERM; stderr:\n%s", code, p.stderr)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Fatalf("data dir %s left behind (%v)", dir, err)
			}
			if pids := processesMentioning(dir); len(pids) > 0 {
				t.Fatalf("processes %v of %s still run", pids, dir)
			}
		})
	}
}

// dataDir is the directory dev-server names on stderr ("data dir: DIR"), which it writes
// before the connect string (stderr reaches the test through a copying goroutine).
func dataDir(t *testing.T, p *proc) string {
	t.Helper()
	zktest.Eventually(t, 5*time.Second, "the data dir on stderr", func() bool {
		return strings.Contains(p.stderr.String(), "logs: ")
	})
	stderr := p.stderr.String()
	_, rest, ok := strings.Cut(stderr, "data dir: ")
	dir, _, _ := strings.Cut(rest, "\n")
	if !ok || !filepath.IsAbs(dir) {
		t.Fatalf("stderr names no data dir:\n%s", stderr)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("data dir: %v", err)
	}
	return dir
}

// connectOnce opens a session on servers and closes it.
func connectOnce(t *testing.T, servers string) {
	t.Helper()
	fw, err := framework.New(strings.Split(servers, ","))
	if err != nil {
		t.Fatal(err)
	}
	defer fw.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := fw.WaitConnected(ctx); err != nil {
		t.Fatalf("no session on %s: %v", servers, err)
	}
}

// processesMentioning lists the live processes whose command line contains s.
func processesMentioning(s string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), s) && !gone(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}
