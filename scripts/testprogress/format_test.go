package main

import (
	"strings"
	"testing"
	"time"
)

func TestFormatter(t *testing.T) {
	tests := []struct {
		name   string
		events string
		want   []string // lines expected in order
		absent []string
	}{
		{
			name: "passing package prints start and ok only",
			events: `{"Action":"start","Package":"p/a"}
{"Action":"run","Package":"p/a","Test":"TestA"}
{"Action":"output","Package":"p/a","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"pass","Package":"p/a","Test":"TestA"}
{"Action":"output","Package":"p/a","Output":"PASS\n"}
{"Action":"output","Package":"p/a","Output":"ok  \tp/a\t1.0s\n"}
{"Action":"pass","Package":"p/a"}`,
			want:   []string{"[0:00] start p/a", "ok  \tp/a\t1.0s"},
			absent: []string{"=== RUN", "PASS\n"},
		},
		{
			name: "failing test output is printed, then FAIL lines",
			events: `{"Action":"start","Package":"p/b"}
{"Action":"output","Package":"p/b","Test":"TestB","Output":"    b_test.go:9: boom\n"}
{"Action":"output","Package":"p/b","Test":"TestB","Output":"--- FAIL: TestB (0.00s)\n"}
{"Action":"fail","Package":"p/b","Test":"TestB"}
{"Action":"output","Package":"p/b","Output":"FAIL\n"}
{"Action":"output","Package":"p/b","Output":"FAIL\tp/b\t0.1s\n"}
{"Action":"fail","Package":"p/b"}`,
			want: []string{"b_test.go:9: boom", "--- FAIL: TestB", "FAIL\tp/b\t0.1s", "FAILED: 1 package(s): p/b"},
		},
		{
			name: "a test that never ended (panic) is shown when its package fails",
			events: `{"Action":"start","Package":"p/c"}
{"Action":"output","Package":"p/c","Test":"TestC","Output":"panic: nil map\n"}
{"Action":"output","Package":"p/c","Output":"FAIL\tp/c\t0.1s\n"}
{"Action":"fail","Package":"p/c"}`,
			want: []string{"panic: nil map", "FAIL\tp/c"},
		},
		{
			name:   "build output and plain lines are copied",
			events: "{\"Action\":\"build-output\",\"ImportPath\":\"p/d\",\"Output\":\"d.go:1: syntax error\\n\"}\nnot json\n",
			want:   []string{"d.go:1: syntax error", "not json"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			now := time.Unix(0, 0)
			f := newFormatter(&b, func() time.Time { return now })
			f.consume(strings.NewReader(tt.events))
			f.summary()
			out := b.String()
			rest := out
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("output lacks %q (in order):\n%s", w, out)
				}
				rest = rest[i+len(w):]
			}
			for _, a := range tt.absent {
				if strings.Contains(out, a) {
					t.Fatalf("output has %q:\n%s", a, out)
				}
			}
		})
	}
}

func TestProgressNamesRunningPackages(t *testing.T) {
	var b strings.Builder
	now := time.Unix(100, 0)
	f := newFormatter(&b, func() time.Time { return now })
	f.handle(event{Action: "start", Package: "p/slow"})
	f.handle(event{Action: "run", Package: "p/slow", Test: "TestSlow"})
	now = now.Add(95 * time.Second)
	f.progress()
	if want := "[1:35] running: p/slow (1m35s, TestSlow)"; !strings.Contains(b.String(), want) {
		t.Fatalf("progress line missing %q:\n%s", want, b.String())
	}
}
