package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
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
		return lockSetArgs(t, "exec", servers, flags, paths, mode...)
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

// zklock exec --try P1 P2 -- CMD: with every path free the set is taken in one transaction and CMD
// runs; with one path held by another process (a zklock exec on it), zklock exits 73 as a single
// --try does, naming the busy path, wherever it stands in the set, without running CMD, and no
// node of its own is left in any directory of the set while the holder's stays. Before --try was
// allowed for sets, the first exec here exited 64 (usage).
func TestExecSetTry(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	servers := zk.ConnectString()
	p := lockPath(t)
	a, b := p+"/a", p+"/b"
	tryArgs := func(paths []string, mode ...string) []string {
		return lockSetArgs(t, "exec", servers, []string{"--try"}, paths, mode...)
	}
	kids := func(dir string) []string {
		t.Helper()
		k, _, err := fw.Children(ctxFor(t, 5*time.Second), dir)
		if err != nil && !errors.Is(err, framework.ErrNoNode) { // an empty container may be reaped
			t.Fatalf("children of %s: %v", dir, err)
		}
		return k
	}

	out, errOut, code := runZklock(t, tryArgs([]string{a, b}, "env")...)
	if code != 0 {
		t.Fatalf("exec --try of a free set: exit %d; stderr:\n%s", code, errOut)
	}
	var nodes []string
	for _, l := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(l, "ZKLOCK_NODE="); ok {
			nodes = strings.Split(v, ",")
		}
	}
	if len(nodes) != 2 || path.Dir(nodes[0]) != a || path.Dir(nodes[1]) != b {
		t.Fatalf("exec --try of a free set: command saw\n%s", out)
	}
	if k := append(kids(a), kids(b)...); len(k) != 0 {
		t.Fatalf("nodes left after the free set's command exited: %v", k)
	}

	holder := startZklock(t, execArgs(t, servers, nil, b, "wait")...)
	holder.expect(t, "ready", 30*time.Second)
	held := kids(b)
	if len(held) != 1 {
		t.Fatalf("holder of %s: nodes %v", b, held)
	}
	for _, set := range [][]string{{a, b}, {b, a}} {
		t.Run(strings.Join([]string{path.Base(set[0]), path.Base(set[1])}, ","), func(t *testing.T) {
			out, errOut, code := runZklock(t, tryArgs(set, "env")...)
			want := fmt.Sprintf("zklock: lock %s is busy: held by pid %d on ", b, holder.cmd.Process.Pid)
			tail := fmt.Sprintf(" (the set %s was not taken)\n", strings.Join(set, ","))
			if code != exitBusy || !strings.HasPrefix(errOut, want) || !strings.HasSuffix(errOut, tail) || out != "" {
				t.Fatalf("exec --try of a set with %s held: exit %d (want %d), stderr %q (want %q), stdout %q",
					b, code, exitBusy, errOut, want, out)
			}
			if ka, kb := kids(a), kids(b); len(ka) != 0 || !slices.Equal(kb, held) {
				t.Fatalf("after a busy --try: %s has %v (want none), %s has %v (want the holder's %v)", a, ka, b, kb, held)
			}
		})
	}
	if err := holder.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := holder.wait(t, 30*time.Second); code != 3 {
		t.Fatalf("holder exit %d, want the command's 3; stderr:\n%s", code, holder.stderr)
	}
}

// busyPath takes the busy path from TryAcquire's LockedError, and falls back to the whole set.
func TestBusyPath(t *testing.T) {
	set := []string{"/x/a", "/x/ab"}
	locked := func(p string) error {
		return fmt.Errorf("recipes: multi-lock /x/a,/x/ab: %w", &recipes.LockedError{Path: p, Reason: "by another contender"})
	}
	for _, tt := range []struct {
		err  error
		want string
	}{
		{locked("/x/a"), "/x/a"},
		{locked("/x/ab"), "/x/ab"},
		{recipes.ErrLocked, "/x/a,/x/ab"},
	} {
		if got := busyPath(tt.err, set); got != tt.want {
			t.Errorf("busyPath(%q) = %q, want %q", tt.err, got, tt.want)
		}
	}
}
