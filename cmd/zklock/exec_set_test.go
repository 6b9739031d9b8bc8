package main

import (
	"encoding/json"
	"path"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// zklock exec P1 P2 -- CMD takes both in one transaction: the command sees both nodes and one
// token; holders P1 P2 shows the set (one GUID in both); another exec of the set in the other
// order waits (here: times out, 75); the nodes are gone after the command exits.
func TestExecSet(t *testing.T) {
	zk := shared
	p := lockPath(t)
	a, b := p+"/a", p+"/b"
	servers := zk.ConnectString()
	args := func(flags []string, paths []string, mode ...string) []string {
		out := append(append([]string{"--servers", servers, "exec"}, flags...), paths...)
		return append(append(out, "--"), childArgs(t, mode...)...)
	}
	out, errOut, code := runZklock(t, args(nil, []string{a, b}, "env")...)
	if code != 0 {
		t.Fatalf("exec of a set: exit %d; stderr:\n%s", code, errOut)
	}
	env := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		k, v, _ := strings.Cut(l, "=")
		env[k] = v
	}
	nodes := strings.Split(env["ZKLOCK_NODE"], ",")
	if tok, err := strconv.ParseInt(env["ZKLOCK_TOKEN"], 10, 64); err != nil || tok <= 0 ||
		len(nodes) != 2 || path.Dir(nodes[0]) != a || path.Dir(nodes[1]) != b || env["ZKLOCK_PATH"] != a+","+b {
		t.Fatalf("environment of a set: %v", env)
	}

	holder := startZklock(t, args(nil, []string{a, b}, "wait")...)
	holder.expect(t, "ready", 30*time.Second)
	text, errOut, code := runZklock(t, "--servers", servers, "holders", b, a)
	if code != 0 || !strings.Contains(text, "set _c_") || !strings.Contains(text, " "+b+" "+a+"\n") {
		t.Fatalf("holders of the set: exit %d\n%s\n%s", code, text, errOut)
	}
	js, _, code := runZklock(t, "--servers", servers, "holders", "--json", a, b)
	var reports []holdersReport
	if err := json.Unmarshal([]byte(js), &reports); code != 0 || err != nil || len(reports) != 2 ||
		len(reports[0].Holders) != 1 || len(reports[1].Holders) != 1 {
		t.Fatalf("holders --json of two paths: exit %d, %v\n%s", code, err, js)
	}
	if _, errOut, code := runZklock(t, args([]string{"--timeout", "300ms"}, []string{b, a}, "exit", "0")...); code != exitTimeout {
		t.Fatalf("exec of the set in the other order while held: exit %d, want %d; stderr:\n%s", code, exitTimeout, errOut)
	}
	if err := holder.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := holder.wait(t, 30*time.Second); code != 3 {
		t.Fatalf("holder exit %d, want the command's 3; stderr:\n%s", code, holder.stderr)
	}
	js, _, _ = runZklock(t, "--servers", servers, "holders", "--json", a, b)
	if err := json.Unmarshal([]byte(js), &reports); err != nil || len(reports[0].Holders)+len(reports[1].Holders) != 0 {
		t.Fatalf("nodes left after the set's command exited: %v\n%s", err, js)
	}
	if _, errOut, code := runZklock(t, args([]string{"--semaphore", "2"}, []string{a, b}, "exit", "0")...); code != exitUsage {
		t.Fatalf("--semaphore with several paths: exit %d, want %d; stderr:\n%s", code, exitUsage, errOut)
	}
}
