package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// --try with --timeout contradict each other: a usage error, not --try silently winning
// (issue 26.5).
func TestTryWithTimeoutRefused(t *testing.T) {
	checkFlagErrors(t, []flagCase{
		{"exec", []string{"exec", "--try", "--timeout", "5s", "/p", "--", "true"}, "--try and --timeout"},
		{"lock", []string{"lock", "--try", "--timeout", "5s", "/p"}, "--try and --timeout"},
	})
}

// A lock whose path holds another recipe's nodes is refused with a usage error that says which
// flag fits the path (issue 26.5: --write beside a mutex was accepted; 26.6: a mutex beside
// read-write or kazoo nodes failed with exit 70 about sort keys). So is a --semaphore whose
// maximum contradicts the one its holders use.
func TestConflictingLayoutRefused(t *testing.T) {
	fw := zktest.Connect(t, shared)
	ctx := ctxFor(t, 30*time.Second)
	mutexPath, readPath, kazooPath, semPath := lockPath(t)+"/m", lockPath(t)+"/r", lockPath(t)+"/k", lockPath(t)+"/s"
	m, _ := recipes.NewMutex(fw, mutexPath)
	if _, err := m.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	rw, _ := recipes.NewReadWriteLock(fw, readPath)
	if _, err := rw.ReadLock().Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	km, _ := recipes.NewKazooMutex(fw, kazooPath)
	if _, err := km.Acquire(ctx); err != nil {
		t.Fatal(err)
	}
	holder := startZklock(t, "--servers", shared.ConnectString(), "lock", "--semaphore", "2", semPath)
	holder.expect(t, "ZKLOCK_TOKEN", 30*time.Second)
	srv := shared.ConnectString()
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"write beside a mutex", []string{"exec", "--write", "--try", mutexPath, "--", "true"}, "without --read/--write"},
		{"read beside a mutex", []string{"exec", "--read", "--try", mutexPath, "--", "true"}, "without --read/--write"},
		{"mutex beside a read lock", []string{"exec", "--try", readPath, "--", "true"}, "--read or --write"},
		{"mutex beside kazoo", []string{"exec", "--try", kazooPath, "--", "true"}, "--kazoo"},
		{"kazoo beside a mutex", []string{"exec", "--kazoo", "--try", mutexPath, "--", "true"}, "without --kazoo"},
		{"mutex beside a semaphore", []string{"lock", "--try", semPath}, "--semaphore"},
		{"semaphore beside a mutex", []string{"exec", "--semaphore", "2", "--try", mutexPath, "--", "true"}, "without --semaphore"},
		{"semaphore 3 beside 2", []string{"exec", "--semaphore", "3", semPath, "--", "true"}, "--semaphore 2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := runZklock(t, append([]string{"--servers", srv}, tt.args...)...)
			if code != exitUsage || !strings.Contains(errOut, tt.want) {
				t.Fatalf("exit %d (want %d), stderr lacks %q:\n%s", code, exitUsage, tt.want, errOut)
			}
		})
	}
}

// A port where every dial is refused fails at once, not after --connect-timeout (issue 26.6).
func TestRefusedPortFailsFast(t *testing.T) {
	p := startZklock(t, "--servers", "127.0.0.1:1", "--connect-timeout", "60s", "holders", "/p")
	code := p.wait(t, 20*time.Second)
	if errOut := p.stderr.String(); code != exitConnect || !strings.Contains(errOut, "127.0.0.1:1") || !strings.Contains(errOut, "refused") {
		t.Fatalf("exit %d, want %d naming the refused address; stderr:\n%s", code, exitConnect, errOut)
	}
}

// exec --try on a busy lock names its holder (issue 26.6).
func TestTryNamesTheHolder(t *testing.T) {
	path := lockPath(t)
	holder := startZklock(t, "--servers", shared.ConnectString(), "lock", "--name", "nightly-backup", path)
	holder.expect(t, "ZKLOCK_TOKEN", 30*time.Second)
	_, errOut, code := runZklock(t, "--servers", shared.ConnectString(), "exec", "--try", path, "--", "true")
	if code != exitBusy || !strings.Contains(errOut, "nightly-backup") {
		t.Fatalf("exit %d, want %d naming the holder; stderr:\n%s", code, exitBusy, errOut)
	}
}

// holders says whether a zklock holder honours revocation (issue 26.6), in its table and JSON.
func TestHoldersShowsRevocable(t *testing.T) {
	for _, revocable := range []bool{true, false} {
		t.Run(fmt.Sprint(revocable), func(t *testing.T) {
			path := lockPath(t)
			args := []string{"--servers", shared.ConnectString(), "lock", path}
			if revocable {
				args = append(args, "--revocable")
			}
			holder := startZklock(t, args...)
			holder.expect(t, "ZKLOCK_TOKEN", 30*time.Second)
			r := holdersJSON(t, shared.ConnectString(), path)
			if len(r.Holders) != 1 || r.Holders[0].Revocable == nil || *r.Holders[0].Revocable != revocable {
				t.Fatalf("holders: %+v, want one holder with revocable=%v", r.Holders, revocable)
			}
			out, _, _ := runZklock(t, "--servers", shared.ConnectString(), "holders", path)
			if !strings.Contains(out, "REVOCABLE") || !strings.Contains(out, map[bool]string{true: " yes ", false: " no "}[revocable]) {
				t.Fatalf("holders table lacks the revocable column:\n%s", out)
			}
		})
	}
}
