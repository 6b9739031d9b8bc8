package main

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/interop"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// startKazoo starts a kazoo 2.8 contender (python3), or skips when python3-kazoo is missing.
func startKazoo(t *testing.T, id string) *interop.KazooProcess {
	t.Helper()
	k, err := interop.StartKazoo(ctxFor(t, 60*time.Second), shared.ConnectString(), interop.KazooOptions{Identifier: id, Fix649: true})
	if errors.Is(err, interop.ErrKazooMissing) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatalf("starting the kazoo contender: %v", err)
	}
	t.Cleanup(func() { k.Close() })
	return k
}

// A held kazoo Lock: exec --kazoo --try exits 73 (as a mutex and as a reader); exec without
// --kazoo refuses the path instead of running beside kazoo's holder; once kazoo releases, exec
// --kazoo runs its command on a kazoo-named node.
func TestExecKazoo(t *testing.T) {
	py := startKazoo(t, "py-holder")
	p := lockPath(t)
	if _, err := py.Acquire(ctxFor(t, 20*time.Second), p, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	srv := shared.ConnectString()
	checkExits(t, []exitCase{
		{"try busy kazoo mutex", execArgs(t, srv, []string{"--kazoo", "--try"}, p, "exit", "0"), exitBusy},
		{"try busy kazoo read", execArgs(t, srv, []string{"--kazoo", "--read", "--try"}, p, "exit", "0"), exitBusy},
		{"timeout kazoo write", execArgs(t, srv, []string{"--kazoo", "--write", "--timeout", "300ms"}, p, "exit", "0"), exitTimeout},
		{"Curator layout on a kazoo path", execArgs(t, srv, []string{"--try"}, p, "exit", "0"), exitUsage}, // checkLayout
		{"kazoo semaphore", execArgs(t, srv, []string{"--kazoo", "--semaphore", "2"}, p, "exit", "0"), exitUsage},
		{"kazoo set", []string{"--servers", srv, "exec", "--kazoo", p, p + "x", "--", "true"}, exitUsage},
	})
	if err := py.Release(ctxFor(t, 10*time.Second), p); err != nil {
		t.Fatal(err)
	}
	env := checkEnv(t, "exec", []string{"--kazoo"}, p)
	if !strings.Contains(env["ZKLOCK_NODE"], "-__lock__") {
		t.Fatalf("ZKLOCK_NODE %q is not a kazoo lock node", env["ZKLOCK_NODE"])
	}
	env = checkEnv(t, "exec", []string{"--kazoo", "--read"}, p)
	if !strings.Contains(env["ZKLOCK_NODE"], "-__rlock__") {
		t.Fatalf("ZKLOCK_NODE %q is not a kazoo read node", env["ZKLOCK_NODE"])
	}
}

// holders on a kazoo path: kazoo's nodes are python, with kazoo's identifier as data; ours are
// go; readers before any other node hold, the rest wait, as kazoo decides.
func TestHoldersKazoo(t *testing.T) {
	py := startKazoo(t, "py-reader")
	p := lockPath(t)
	pyNode, err := py.ReadAcquire(ctxFor(t, 20*time.Second), p, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	fw := zktest.Connect(t, shared)
	rw, err := recipes.NewKazooReadWriteLock(fw, p, recipes.WithNodeData(recipes.NewIdentity("go").Encode()))
	if err != nil {
		t.Fatal(err)
	}
	r, err := rw.ReadLock().Acquire(ctxFor(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release(ctxFor(t, 10*time.Second))
	queueBehind(t, fw, p, 3, rw.WriteLock().Acquire)

	rep := holdersJSON(t, shared.ConnectString(), p)
	if rep.Kind != "kazoo" || len(rep.Holders) != 2 || len(rep.Queue) != 1 {
		t.Fatalf("report %+v, want kazoo: two readers holding, one writer waiting", rep)
	}
	h0, h1, w := rep.Holders[0], rep.Holders[1], rep.Queue[0]
	if h0.Node != pyNode || h0.Origin != recipes.OriginPython || h0.Data != "py-reader" || h0.Kind != recipes.KindKazooRead {
		t.Fatalf("first holder %+v, want kazoo's reader %s (python, py-reader)", h0, pyNode)
	}
	if h1.Node != r.Path() || h1.Origin != recipes.OriginGo || h1.Kind != recipes.KindKazooRead || w.Origin != recipes.OriginGo || w.Kind != recipes.KindKazooLock {
		t.Fatalf("holder %+v, waiter %+v; want our reader holding and our writer waiting", h1, w)
	}
	out, _, code := runZklock(t, "--servers", shared.ConnectString(), "holders", p)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 5 || !strings.Contains(lines[0], "kazoo, 2 holding, 1 waiting") ||
		!strings.Contains(lines[2], pyNode) || !strings.Contains(lines[2], " python ") || !strings.HasSuffix(lines[2], "py-reader") {
		t.Fatalf("holders text (exit %d):\n%s", code, out)
	}
}
