// Command testprogress runs `go test -json` with the given arguments and
// prints what `go test` prints (the "ok", "FAIL" and "?" line of each
// package, and the output of failing tests), plus progress: a line when a
// package starts, and every 30 s the packages still running with their
// current test, so slow packages show while they run. It exits with go
// test's exit code.
//
//	go run ./scripts/testprogress -race -count=1 ./...
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// heartbeat is how often the running packages are listed.
const heartbeat = 30 * time.Second

func main() {
	goBin := os.Getenv("GO")
	if goBin == "" {
		goBin = "go"
	}
	cmd := exec.Command(goBin, append([]string{"test", "-json"}, os.Args[1:]...)...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		fatal(err)
	}
	if err := cmd.Start(); err != nil {
		fatal(err)
	}
	f := newFormatter(os.Stdout, time.Now)
	stop := f.beat(heartbeat)
	f.consume(stdout)
	stop()
	err = cmd.Wait()
	f.summary()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			os.Exit(ee.ExitCode())
		}
		fatal(err)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "testprogress:", err)
	os.Exit(2)
}

// event is one line of test2json output.
type event struct {
	Action     string
	Package    string
	ImportPath string // build events
	Test       string
	Output     string
}

// running is a package under test.
type running struct {
	started time.Time
	test    string              // the test that ran last
	outputs map[string][]string // per test, until it passes or fails
}

// formatter turns events into go test's text plus progress lines. Safe for
// concurrent use (the heartbeat runs on its own goroutine).
type formatter struct {
	mu       sync.Mutex
	w        io.Writer
	now      func() time.Time
	start    time.Time
	pkgs     map[string]*running
	passed   int
	failed   []string
	lastBeat string
}

func newFormatter(w io.Writer, now func() time.Time) *formatter {
	return &formatter{w: w, now: now, start: now(), pkgs: map[string]*running{}}
}

// consume reads events until r ends; lines that are not JSON are copied.
func (f *formatter) consume(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var ev event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil || ev.Action == "" {
			f.print(sc.Text() + "\n")
			continue
		}
		f.handle(ev)
	}
}

func (f *formatter) print(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	io.WriteString(f.w, s)
}
