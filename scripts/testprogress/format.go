package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// handle applies one event.
func (f *formatter) handle(ev event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case ev.Action == "build-output":
		io.WriteString(f.w, ev.Output)
	case ev.Test != "":
		f.testEvent(ev)
	case ev.Action == "start":
		f.pkgs[ev.Package] = &running{started: f.now(), outputs: map[string][]string{}}
		fmt.Fprintf(f.w, "[%s] start %s\n", f.elapsed(), ev.Package)
	case ev.Action == "output":
		if strings.HasPrefix(ev.Output, "FAIL") {
			f.flushUnfinished(ev.Package)
		}
		if ev.Output != "PASS\n" { // go test prints no PASS line for a passing package
			io.WriteString(f.w, ev.Output)
		}
	case ev.Action == "pass" || ev.Action == "skip":
		delete(f.pkgs, ev.Package)
		f.passed++
	case ev.Action == "fail":
		f.flushUnfinished(ev.Package)
		delete(f.pkgs, ev.Package)
		f.failed = append(f.failed, ev.Package)
	}
}

// testEvent buffers a test's output and prints it only if the test fails.
func (f *formatter) testEvent(ev event) {
	p := f.pkgs[ev.Package]
	if p == nil {
		p = &running{started: f.now(), outputs: map[string][]string{}}
		f.pkgs[ev.Package] = p
	}
	switch ev.Action {
	case "run":
		p.test = ev.Test
	case "output":
		p.outputs[ev.Test] = append(p.outputs[ev.Test], ev.Output)
	case "fail":
		io.WriteString(f.w, strings.Join(p.outputs[ev.Test], ""))
		delete(p.outputs, ev.Test)
	case "pass", "skip":
		delete(p.outputs, ev.Test)
	}
}

// flushUnfinished prints the output of tests that never ended (a panic or
// a timeout): it holds the reason.
func (f *formatter) flushUnfinished(pkg string) {
	p := f.pkgs[pkg]
	if p == nil {
		return
	}
	tests := make([]string, 0, len(p.outputs))
	for t := range p.outputs {
		tests = append(tests, t)
	}
	slices.Sort(tests)
	for _, t := range tests {
		io.WriteString(f.w, strings.Join(p.outputs[t], ""))
		delete(p.outputs, t)
	}
}

// beat lists the running packages every d until stop is called.
func (f *formatter) beat(d time.Duration) (stop func()) {
	t := time.NewTicker(d)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-t.C:
				f.progress()
			case <-done:
				return
			}
		}
	}()
	return func() { t.Stop(); close(done) }
}

// progress prints one line naming each running package, its time so far
// and its current test.
func (f *formatter) progress() {
	f.mu.Lock()
	defer f.mu.Unlock()
	names := make([]string, 0, len(f.pkgs))
	for name := range f.pkgs {
		names = append(names, name)
	}
	if len(names) == 0 {
		return
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, name := range names {
		p := f.pkgs[name]
		parts[i] = fmt.Sprintf("%s (%s", name, f.now().Sub(p.started).Round(time.Second))
		if p.test != "" {
			parts[i] += ", " + p.test
		}
		parts[i] += ")"
	}
	fmt.Fprintf(f.w, "[%s] running: %s\n", f.elapsed(), strings.Join(parts, "; "))
}

// summary prints the totals once go test has ended.
func (f *formatter) summary() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.failed) > 0 {
		fmt.Fprintf(f.w, "[%s] FAILED: %d package(s): %s\n", f.elapsed(), len(f.failed), strings.Join(f.failed, " "))
		return
	}
	fmt.Fprintf(f.w, "[%s] all %d packages passed\n", f.elapsed(), f.passed)
}

func (f *formatter) elapsed() string {
	d := f.now().Sub(f.start).Round(time.Second)
	return fmt.Sprintf("%d:%02d", int(d.Minutes()), int(d.Seconds())%60)
}
