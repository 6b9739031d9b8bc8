package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/zktest"
)

// Issue 16.1: told is not stopped. When the holder's connection fails, zklock tells its command
// (SIGTERM, SIGKILL after --kill-grace), and the next holder's command must not start before
// that command has exited: after a reset the session survives and zklock keeps its node until
// the command exited; after a partition longer than the session timeout T the server deletes
// the node at T, and the default --kill-grace (T/4) ends the command before then (zklock hears
// of the partition at about 2T/3).

// handoverCase is one fault on holder A's connection while B waits on the same path.
type handoverCase struct {
	name  string
	flags []string // A's flags: global ones, then the subcommand's
	stop  string   // how long A's command takes to stop after SIGTERM ("never": SIGKILL)
	fault func(p *zktest.Proxy)
}

// resetCases reset A's connection (the session survives): A's command takes 3 s to stop, well
// inside an explicit --kill-grace (the original report), or ignores SIGTERM for the whole
// default kill grace.
var resetCases = []handoverCase{
	{"stops-in-3s", []string{"--kill-grace", "5s"}, "3s", (*zktest.Proxy).DropConnections},
	{"killed-after-default-grace", nil, "never", (*zktest.Proxy).DropConnections},
}

// blackholeCases partition A for longer than its 6 s session timeout; A's command ignores
// SIGTERM for the whole default kill grace (T/4) and is killed with T/12 = 0.5 s to spare.
var blackholeCases = []handoverCase{
	{"killed-after-default-grace", []string{"--session-timeout", "6s"}, "never", func(p *zktest.Proxy) { p.Blackhole(true) }},
}

// checkHandover runs, for each case, zklock SUB as A through a proxy and as B directly on one
// path, both running the guard child; once B queues it applies the fault to A's connection and
// checks that A's command was told, that B's command started only after A's had exited (the
// guard records any overlap as it starts), and that A exits exitLost.
func checkHandover(t *testing.T, sub string, cases []handoverCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			zk := shared
			p, dir := lockPath(t), t.TempDir()
			proxy := zktest.NewProxy(t, zk.Servers()[0])
			t.Cleanup(func() { proxy.Blackhole(false) })
			aArgs := append([]string{"--verbose"}, lockArgs(t, sub, proxy.Addr(), tt.flags, p, "guard", dir, "a", tt.stop)...)
			a := startZklock(t, aArgs...)
			a.expect(t, "ready", 30*time.Second)
			b := startZklock(t, lockArgs(t, sub, zk.ConnectString(), nil, p, "guard", dir, "b", "0s")...)
			waitCandidates(t, zktest.Connect(t, zk), p, 2)
			faulted := time.Now()
			tt.fault(proxy)
			a.expect(t, "got terminated", 30*time.Second)
			b.expect(t, "ready", 60*time.Second)
			started := time.Since(faulted)
			report := readFile(t, filepath.Join(dir, "b.start"))
			if strings.Contains(report, "overlap") {
				t.Fatalf("B's command started %v after the fault while A's still ran: %s\nA's stderr:\n%s",
					started.Round(time.Millisecond), report, a.stderr)
			}
			if end, err := os.ReadFile(filepath.Join(dir, "a.end")); err == nil {
				if bStart, aEnd := firstInt(report), firstInt(string(end)); bStart < aEnd {
					t.Fatalf("B's command started at %d, before A's ended at %d", bStart, aEnd)
				}
			}
			if code := a.wait(t, 30*time.Second); code != exitLost {
				t.Fatalf("A: exit %d, want %d; stderr:\n%s", code, exitLost, a.stderr)
			}
			b.cmd.Process.Signal(os.Interrupt)
			if code := b.wait(t, 20*time.Second); code != 3 {
				t.Fatalf("B: exit %d, want 3; stderr:\n%s", code, b.stderr)
			}
			t.Logf("B's command started %v after the fault", started.Round(time.Millisecond))
		})
	}
}

// readFile returns the file's contents, failing the test if it cannot be read.
func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// firstInt parses the first line of s as an integer (a guard's recorded time).
func firstInt(s string) int64 {
	line, _, _ := strings.Cut(s, "\n")
	n, _ := strconv.ParseInt(strings.TrimSpace(line), 10, 64)
	return n
}

// A reset of the holder's connection: B's command starts only after A's exited (the original
// report: B started 1.0 s after the reset, while A's command ran 2 s more).
func TestExecHandoverAfterReset(t *testing.T) { checkHandover(t, "exec", resetCases) }

// A partition longer than the session timeout, with the default --kill-grace: A's command is
// killed before the server expires A's session and B's command starts.
func TestExecHandoverAfterBlackhole(t *testing.T) { checkHandover(t, "exec", blackholeCases) }

// zklock elect after a reset: the next leader's command starts only after the told leader's
// command exited.
func TestElectHandoverAfterReset(t *testing.T) { checkHandover(t, "elect", resetCases[:1]) }

// zklock elect after a partition longer than the session timeout, with the default --kill-grace.
func TestElectHandoverAfterBlackhole(t *testing.T) { checkHandover(t, "elect", blackholeCases) }

// Issue 16.4: under a partition, zklock exits 76 as soon as its command has stopped: releasing
// the lost lock is left to the background (the session's expiry deletes the node anyway). On
// the old code zklock waited on that delete for its 10 s release timeout first.
func TestExecExitsPromptlyAfterLossUnderPartition(t *testing.T) {
	zk := shared
	proxy := zktest.NewProxy(t, zk.Servers()[0])
	t.Cleanup(func() { proxy.Blackhole(false) })
	script := "trap 'echo stopping; exit 0' TERM; echo ready; while :; do sleep 0.05; done"
	pr := startZklock(t, "--servers", proxy.Addr(), "--session-timeout", "4s", "exec", lockPath(t), "--", "sh", "-c", script)
	pr.expect(t, "ready", 30*time.Second)
	proxy.Blackhole(true)
	pr.expect(t, "stopping", 20*time.Second)
	stopped := time.Now()
	if code := pr.wait(t, 30*time.Second); code != exitLost {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitLost, pr.stderr)
	}
	if d := time.Since(stopped); d > 3*time.Second {
		t.Fatalf("zklock exited %v after its command stopped, want at once; stderr:\n%s", d, pr.stderr)
	}
}
