package zktest

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestParsers(t *testing.T) {
	tests := []struct {
		name  string
		parse func(string) (any, error)
		in    string
		want  any
		fails bool
	}{
		{"wchs", wrap(parseWchs), "1 connections watching 2 paths\nTotal watches:3\n", 3, false},
		{"wchs zero", wrap(parseWchs), "0 connections watching 0 paths\nTotal watches:0\n", 0, false},
		{"wchs garbage", wrap(parseWchs), "wchs is not executed because it is not in the whitelist.\n", 0, true},
		{"mode standalone", wrap(parseMode), "Zookeeper version: 3.8.0\nMode: standalone\nNode count: 5\n", "standalone", false},
		{"mode leader", wrap(parseMode), "Mode: leader\n", "leader", false},
		{"mode not serving", wrap(parseMode), "This ZooKeeper instance is not currently serving requests\n", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.parse(tt.in)
			if tt.fails {
				if !errors.Is(err, ErrFourLetter) {
					t.Fatalf("err = %v, want ErrFourLetter", err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func wrap[T any](f func(string) (T, error)) func(string) (any, error) {
	return func(s string) (any, error) { return f(s) }
}

func TestParseMntr(t *testing.T) {
	m, err := parseMntr("zk_version\t3.8.0\nzk_server_state\tleader\nzk_watch_count\t4\n")
	if err != nil || m["zk_server_state"] != "leader" || m["zk_watch_count"] != "4" {
		t.Fatalf("got %v, %v", m, err)
	}
	if _, err := parseMntr("not whitelisted\n"); !errors.Is(err, ErrFourLetter) {
		t.Fatalf("err = %v, want ErrFourLetter", err)
	}
}

func TestFrames(t *testing.T) {
	passwd := []byte{1, 2, 3, 4}
	req := appendConnectRequest(nil, 5000, 0x1234, passwd)
	got, err := readFrame(bytes.NewReader(req))
	if err != nil || !bytes.Equal(got, req) {
		t.Fatalf("readFrame = %x, %v", got, err)
	}
	h := appendRequestHeader(nil, 7, OpCloseSession)
	xid, op, ok := requestHeader(h)
	if !ok || xid != 7 || op != OpCloseSession {
		t.Fatalf("requestHeader = %d %d %v", xid, op, ok)
	}
	// A ConnectResponse has the same tail as our ConnectRequest minus lastZxidSeen.
	resp := append([]byte{0, 0, 0, 0}, 0, 0, 0, 0, 0, 0, 0x13, 0x88)
	resp = append(resp, req[4+16:]...)
	r, err := parseConnectResponse(resp)
	if err != nil || r.timeout != 5000 || r.sessionID != 0x1234 || !bytes.Equal(r.passwd, passwd) {
		t.Fatalf("parseConnectResponse = %+v, %v", r, err)
	}
	huge := []byte{0x7f, 0xff, 0xff, 0xff}
	if _, err := readFrame(bytes.NewReader(huge)); !errors.Is(err, errFrame) {
		t.Fatalf("huge frame err = %v", err)
	}
	if _, err := parseConnectResponse([]byte{0, 0, 0, 1, 0}); !errors.Is(err, errFrame) {
		t.Fatalf("short response err = %v", err)
	}
}

func TestNotInstalled(t *testing.T) {
	t.Setenv(EnvJava, "/nonexistent/java")
	_, err := Launch()
	if !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), "apt-get install -y zookeeper") {
		t.Fatalf("err = %v, want ErrNotInstalled with install hint", err)
	}
}

func TestLeakDetector(t *testing.T) {
	before := goroutineIDs()
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { <-stop; close(done) }()
	if leaked := newGoroutines(before); len(leaked) != 1 {
		t.Fatalf("found %d new goroutines, want 1", len(leaked))
	}
	close(stop)
	<-done
	if leaked := waitForLeaks(before, LeakWait); len(leaked) != 0 {
		t.Fatalf("still leaked: %v", leaked)
	}
}
