package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/zktest"
)

// killBound is how long a command's process group may outlive a zklock killed with SIGKILL.
const killBound = 2 * time.Second

// When zklock exec or elect dies of SIGKILL, nothing of the command's process group outlives
// it by more than about a second: not the command (Pdeathsig), nor a grandchild that the
// command started (`sh -c 'sleep 300 & wait'`), which the kernel does not kill.
func TestSIGKILLedZklockLeavesNoGrandchild(t *testing.T) {
	for _, cmd := range []string{"exec", "elect"} {
		t.Run(cmd, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "grandchild")
			script := fmt.Sprintf(`sleep 300 & echo $! > %s.tmp; mv %s.tmp %s; echo started; wait`, pidFile, pidFile, pidFile)
			p := startZklock(t, "--servers", shared.ConnectString(), cmd, lockPath(t), "--", "sh", "-c", script)
			p.expect(t, "started", 30*time.Second)
			data, err := os.ReadFile(pidFile)
			if err != nil {
				t.Fatal(err)
			}
			pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
			if err != nil || pid <= 0 {
				t.Fatalf("grandchild pid %q: %v", data, err)
			}
			t.Cleanup(func() { killIfRunning(pid) })
			if err := p.cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			// Not p.wait: that also waits for stdout's end, which a surviving grandchild holds.
			zktest.Eventually(t, 10*time.Second, "zklock to die", func() bool { return gone(p.cmd.Process.Pid) })
			killed := time.Now()
			zktest.Eventually(t, killBound, "the grandchild to be gone", func() bool { return gone(pid) })
			t.Logf("grandchild gone %v after zklock", time.Since(killed).Round(time.Millisecond))
		})
	}
}

// killIfRunning ends a process a failed test left behind.
func killIfRunning(pid int) {
	if !gone(pid) {
		if p, err := os.FindProcess(pid); err == nil {
			p.Kill()
		}
	}
}

// A disarmed guardian exits and leaves the group alone (its id may belong to another group by
// then); a guardian whose pipe ends without the disarm byte (zklock died) kills the group.
func TestGuardianDisarmOrKill(t *testing.T) {
	for _, disarm := range []bool{true, false} {
		t.Run(fmt.Sprintf("disarm=%v", disarm), func(t *testing.T) {
			group := exec.Command("sleep", "60")
			group.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := group.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan struct{})
			go func() { group.Wait(); close(exited) }()
			t.Cleanup(func() { group.Process.Kill(); <-exited })
			g, err := startGuardian(group.Process.Pid)
			if err != nil {
				t.Fatal(err)
			}
			if disarm {
				g.disarm()
			} else {
				g.w.Close()
				go g.cmd.Wait()
			}
			zktest.Eventually(t, 10*time.Second, "the guardian to exit", func() bool { return gone(g.cmd.Process.Pid) })
			if disarm { // the guardian is gone: any kill of its would have landed by now
				if gone(group.Process.Pid) {
					t.Fatal("a disarmed guardian killed the group")
				}
				return
			}
			select {
			case <-exited:
			case <-time.After(killBound):
				t.Fatal("the guardian did not kill the group")
			}
		})
	}
}
