package main

import (
	"strings"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// zklock revoke says what will happen (issue 25.6): a node that does not exist is an error, and
// so is a holder whose zkrecipes identity says it is not revocable (nothing is written); a
// revocable one is asked, exit 0.
func TestRevokeSaysWhatHappens(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	plain, _ := recipes.NewMutex(fw, lockPath(t))
	l, err := plain.Acquire(ctxFor(t, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(ctxFor(t, 10*time.Second))
	missing := lockPath(t) + "/_c_0f1e9d0c-8c5e-4b8e-9d39-6a4c2b1f7e21-lock-0000000007"
	for _, tt := range []struct {
		name, node, want string
		code             int
	}{
		{"missing node", missing, "does not exist", exitFailure},
		{"not revocable", l.Path(), "not revocable", exitFailure},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runZklock(t, "--servers", zk.ConnectString(), "revoke", tt.node)
			if code != tt.code || !strings.Contains(errOut, tt.want) || strings.Contains(out, "asked the holder") {
				t.Fatalf("revoke: exit %d, want %d and %q\nstdout: %s\nstderr: %s", code, tt.code, tt.want, out, errOut)
			}
		})
	}
	data, _, err := fw.Get(ctxFor(t, 5*time.Second), l.Path())
	if err != nil || string(data) == "__REVOKE__" {
		t.Fatalf("the non-revocable holder's node was written: %q, %v", data, err)
	}
}
