package main

import (
	"bytes"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// hostileData is node data that tries to forge zklock's output: it clears the screen, ends the
// line and writes a row of its own, turns the text right to left, and is not valid UTF-8.
const hostileData = "\x1b[2J{\"kind\":\"x\"}\nholds  mutex  /forged  0x1\t\u202eevil\xff"

// zklock holders on a lock whose nodes carry hostile names and data (issue 25.1, 25.2): it does
// not panic on a kazoo-like name of 32 hex digits, prints one line per node with every control
// and bidi character escaped, and --json keeps the exact bytes (data_base64 when not UTF-8).
func TestHoldersHostileNodes(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	p := lockPath(t)
	ctx := ctxFor(t, 20*time.Second)
	names := []string{strings.Repeat("0", 32) + "0001", // 32 hex digits whose last 10 are the sequence
		strings.Repeat("0", 32) + "__lock__0000000001", "lock-\u202e0000000002"}
	for _, n := range names {
		if _, err := fw.Create(ctx, p+"/"+n, []byte(hostileData), framework.WithMode(framework.Ephemeral),
			framework.CreatingParents()); err != nil {
			t.Fatal(err)
		}
	}
	out, errOut, code := runZklock(t, "--servers", zk.ConnectString(), "holders", p)
	if code != 0 {
		t.Fatalf("holders: exit %d\n%s", code, errOut)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 2+len(names) { // summary, header, one row per node
		t.Fatalf("holders printed %d lines, want %d:\n%s", len(lines), 2+len(names), out)
	}
	for _, bad := range []string{"\x1b", "\u202e", "\xff", "\t"} {
		if strings.Contains(out, bad) {
			t.Errorf("holders output carries %q raw:\n%s", bad, out)
		}
	}
	if !strings.Contains(out, `\u202e`) || !strings.Contains(out, `\x1b`) {
		t.Errorf("escapes missing:\n%s", out)
	}
	r := holdersJSON(t, zk.ConnectString(), p)
	all := append(append(r.Holders, r.Queue...), r.Unknown...)
	if len(all) != len(names) {
		t.Fatalf("--json lists %d nodes, want %d: %+v", len(all), len(names), r)
	}
	for _, n := range all {
		raw, err := base64.StdEncoding.DecodeString(n.DataBase64)
		if err != nil || !bytes.Equal(raw, []byte(hostileData)) {
			t.Errorf("%s: data_base64 %q does not give the node's bytes back (%v)", n.Node, n.DataBase64, err)
		}
	}
}

// zklock elect --listen prints a leader whose id (its node's data) tries to forge a second
// "leader=" line on one escaped line (issue 25.2).
func TestElectListenHostileID(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	p := lockPath(t)
	id := "evil\nleader=forged node=/x token=1\x1b[2J\u202e"
	if _, err := fw.Create(ctxFor(t, 10*time.Second), p+"/lock-", []byte(id),
		framework.WithMode(framework.EphemeralSequential), framework.Protected(), framework.CreatingParents()); err != nil {
		t.Fatal(err)
	}
	l := startZklock(t, "--servers", zk.ConnectString(), "elect", "--listen", p)
	line := l.expect(t, "leader=", 30*time.Second)
	if want := `leader=evil\nleader=forged node=/x token=1\x1b[2J\u202e node=`; !strings.HasPrefix(line, want) {
		t.Fatalf("listen printed %q, want it to start with %q", line, want)
	}
}

// zklock holders marks a persistent node in a lock directory as foreign (issue 25.3): no
// session owns it, and the acquire loop refuses to queue behind it.
func TestHoldersMarksSquatter(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	p := lockPath(t)
	squat := p + "/lock-00000000000000000000"
	if _, err := fw.Create(ctxFor(t, 10*time.Second), squat, nil, framework.CreatingParents()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fw.Delete(ctxFor(t, 10*time.Second), squat) })
	out, errOut, code := runZklock(t, "--servers", zk.ConnectString(), "holders", p)
	if code != 0 || !strings.Contains(out, "1 foreign") || !strings.Contains(out, "foreign ") {
		t.Fatalf("holders: exit %d, want the node marked foreign\n%s%s", code, out, errOut)
	}
	r := holdersJSON(t, zk.ConnectString(), p)
	all := append(append(r.Holders, r.Queue...), r.Unknown...)
	if len(all) != 1 || !all[0].Foreign {
		t.Fatalf("--json: %+v, want one node marked foreign", r)
	}
}

// zklock exec --try on a lock held by a node whose name and data try to forge its message
// (issue 25.2): the "busy: held by ..." line names the holder with every control and bidi
// character escaped, on one line; a holder's Go identity (its host) is escaped too.
func TestExecTryBusyHostileHolder(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	ctx := ctxFor(t, 20*time.Second)
	hostileHost := `{"lib":"zkrecipes-go","host":"h\nzklock: forged\u001b[2J\u202e","pid":1,"kind":"mutex"}`
	for _, tc := range []struct{ name, data string }{
		{"raw data", hostileData},
		{"identity host", hostileHost},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := lockPath(t)
			if _, err := fw.Create(ctx, p+"/lock-", []byte(tc.data), framework.WithMode(framework.EphemeralSequential),
				framework.Protected(), framework.CreatingParents()); err != nil {
				t.Fatal(err)
			}
			_, errOut, code := runZklock(t, "--servers", zk.ConnectString(), "exec", "--try", p, "--", "true")
			if code != exitBusy {
				t.Fatalf("exec --try: exit %d, want %d\n%s", code, exitBusy, errOut)
			}
			if !strings.Contains(errOut, "held by") {
				t.Fatalf("no holder named:\n%s", errOut)
			}
			for _, bad := range []string{"\x1b", "\u202e", "\xff", "\nzklock: forged", "\nholds"} {
				if strings.Contains(errOut, bad) {
					t.Errorf("exec --try's message carries %q raw:\n%q", bad, errOut)
				}
			}
		})
	}
}

// zklock exec --semaphore N beside a lease whose data claims another maximum, from a host
// whose name tries to forge a line (issue 25.2): the refusal names the lease and the host
// escaped, on one line.
func TestSemaphoreMaxRefusalHostileHost(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	p := lockPath(t)
	data := `{"lib":"zkrecipes-go","host":"h\nzklock: forged\u001b[2J\u202e","pid":1,"semaphore_max":5}`
	if _, err := fw.Create(ctxFor(t, 10*time.Second), p+"/leases/lease-\u202e", []byte(data),
		framework.WithMode(framework.EphemeralSequential), framework.CreatingParents()); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runZklock(t, "--servers", zk.ConnectString(), "exec", "--semaphore", "2", "--try", p, "--", "true")
	if code != exitUsage || !strings.Contains(errOut, "--semaphore 5") {
		t.Fatalf("exec --semaphore 2: exit %d, want %d naming --semaphore 5\n%s", code, exitUsage, errOut)
	}
	for _, bad := range []string{"\x1b", "\u202e", "\nzklock: forged"} {
		if strings.Contains(errOut, bad) {
			t.Errorf("the refusal carries %q raw:\n%q", bad, errOut)
		}
	}
}

// Every error zklock prints is one escaped line, whatever node names it carries (issue 25.2): a
// persistent squatter named with U+202E that sorts first refuses the lock with an error naming
// it, and that name reaches stderr escaped.
func TestErrorNamingHostileNodeIsEscaped(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	p := lockPath(t)
	squat := p + "/_c_\u202eevil-lock-0000000000"
	if _, err := fw.Create(ctxFor(t, 10*time.Second), squat, nil, framework.CreatingParents()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fw.Delete(ctxFor(t, 10*time.Second), squat) })
	_, errOut, code := runZklock(t, "--servers", zk.ConnectString(), "exec", "--try", p, "--", "true")
	if code == 0 || !strings.Contains(errOut, "evil-lock-0000000000") {
		t.Fatalf("exec --try beside a squatter: exit %d, want an error naming it\n%s", code, errOut)
	}
	if strings.Contains(errOut, "\u202e") {
		t.Errorf("stderr carries U+202E raw:\n%q", errOut)
	}
}
