package main

import (
	"strings"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/zktest"
)

// Without --verbose zklock prints on stderr only what the user must act on, in its own words
// (issue 17.6: "connecting to" on every call, raw level=WARN slog lines, "lock lost" twice).
func TestQuietStderr(t *testing.T) {
	zk := shared
	t.Run("success", func(t *testing.T) {
		_, errOut, code := runZklock(t, execArgs(t, zk.ConnectString(), nil, lockPath(t), "exit", "0")...)
		if code != 0 || errOut != "" {
			t.Fatalf("exit %d, stderr not empty:\n%s", code, errOut)
		}
	})
	t.Run("verbose", func(t *testing.T) {
		_, errOut, code := runZklock(t, append([]string{"--verbose"}, execArgs(t, zk.ConnectString(), nil, lockPath(t), "exit", "0")...)...)
		if code != 0 || !strings.Contains(errOut, "connecting to "+zk.ConnectString()) || !strings.Contains(errOut, "session 0x") {
			t.Fatalf("exit %d, --verbose stderr lacks the connection:\n%s", code, errOut)
		}
	})
	t.Run("no connection", func(t *testing.T) {
		_, errOut, code := runZklock(t, "--servers", "127.0.0.1:1", "--connect-timeout", "2s", "exec", "/p", "--", "true")
		lines := strings.Split(strings.TrimSpace(errOut), "\n")
		if code != exitConnect || len(lines) != 1 || !strings.Contains(errOut, "127.0.0.1:1 (dial tcp") ||
			!strings.Contains(errOut, "refused") || strings.Contains(errOut, "level=") {
			t.Fatalf("exit %d (want %d), want one line naming the address and why:\n%s", code, exitConnect, errOut)
		}
	})
	t.Run("lost", func(t *testing.T) {
		proxy := zktest.NewProxy(t, zk.Servers()[0])
		pr := startZklock(t, append([]string{"--session-timeout", "4s"},
			execArgs(t, proxy.Addr(), []string{"--kill-grace", "1s"}, lockPath(t), "wait")...)...)
		pr.expect(t, "ready", 30*time.Second)
		id, passwd := proxy.Session()
		expireSession(t, zk, id, passwd)
		if code := pr.wait(t, 30*time.Second); code != exitLost {
			t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitLost, pr.stderr)
		}
		errOut := pr.stderr.String()
		if n := strings.Count(errOut, "lock lost"); n != 1 || strings.Contains(errOut, "level=") {
			t.Fatalf("\"lock lost\" printed %d times (want once), or slog lines:\n%s", n, errOut)
		}
	})
}
