package recipes_test

import (
	"path"
	"strings"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/interop"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// startCurator starts a Java process holding one Curator 5.4 client.
func startCurator(t *testing.T, servers []string) *interop.CuratorProcess {
	t.Helper()
	c, err := interop.StartCurator(ctxFor(t, 90*time.Second), strings.Join(servers, ","))
	if err != nil {
		t.Fatalf("starting the Curator contender: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// Go and Curator contend on one path: each waits on the other's nodes, and
// Curator lists ours in queue order.
func TestInteropMutexWithCurator(t *testing.T) {
	zk := shared
	p := lockPath(t)
	java := startCurator(t, zk.Servers())
	fw := zktest.Connect(t, zk)
	m := mustMutex(t, fw, p)

	javaNode, got := foreignHoldsWhileWeQueue(t, java, "Curator", fw, m)
	if !mutexNode.MatchString(path.Base(javaNode)) {
		t.Fatalf("Curator's node %q does not match our layout", javaNode)
	}
	parts, err := java.Participants(ctxFor(t, 10*time.Second), p)
	if err != nil {
		t.Fatal(err)
	}
	ours, err := m.Participants(ctxFor(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 2 || len(ours) != 2 || parts[0] != javaNode || parts[1] != ours[1].Path || ours[0].Path != javaNode {
		t.Fatalf("Curator lists %v, we list %+v; want the Java holder first, then our waiter", parts, ours)
	}
	foreignHandsOver(t, java, p, "Curator", got, nil)
}

// Two Java and two Go contenders hammer one lock: never two holders.
func TestInteropMutexExclusion(t *testing.T) {
	zk := shared
	p := lockPath(t)
	mutexExclusionWith(t, p, "Curator", func() foreignMutex { return startCurator(t, zk.Servers()) },
		func() *recipes.InterProcessMutex { return mustMutex(t, zktest.Connect(t, zk), p) })
}
