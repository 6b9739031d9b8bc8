package main

import (
	"strings"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/zktest"
)

// Issue 24.2 through the real process: an operator deletes the node that zklock holds. zklock
// exec and zklock elect send their command SIGTERM and exit 76, zklock lock exits 76, each
// saying that the node was deleted. On the old code zklock was never told: exec's command ran
// on beside the next holder, and lock held on.
func TestNodeDeletedStopsZklock(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	for _, tt := range []struct {
		sub  string
		want string // what the command prints when stopped; "" for lock, which runs none
	}{
		{"exec", "got terminated"},
		{"elect", "got terminated"},
		{"lock", ""},
	} {
		t.Run(tt.sub, func(t *testing.T) {
			p := lockPath(t)
			var pr *proc
			var node string
			if tt.sub == "lock" {
				pr = startZklock(t, "--servers", zk.ConnectString(), "lock", p)
				node, _ = lockLines(t, pr, p)
			} else {
				pr = startZklock(t, lockArgs(t, tt.sub, zk.ConnectString(), nil, p, "wait")...)
				pr.expect(t, "ready", 30*time.Second)
				kids := zktest.Children(t, fw, p)
				if len(kids) != 1 {
					t.Fatalf("%s holds %v, want one node", p, kids)
				}
				node = p + "/" + kids[0]
			}
			if err := fw.Delete(ctxFor(t, 10*time.Second), node); err != nil {
				t.Fatalf("operator's delete of %s: %v", node, err)
			}
			if tt.want != "" {
				pr.expect(t, tt.want, 20*time.Second)
			}
			if code := pr.wait(t, 30*time.Second); code != exitLost {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitLost, pr.stderr)
			}
			if !strings.Contains(pr.stderr.String(), "deleted") {
				t.Fatalf("stderr does not say the node was deleted:\n%s", pr.stderr)
			}
		})
	}
}
