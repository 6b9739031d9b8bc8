package main

import (
	"fmt"
	"io"
	"time"
)

// How long a command told that its lock (or leadership) may be lost has to stop, and how long
// zklock's node waits for it. T is the session timeout the server negotiated.
//
// A partition: go-zookeeper gives the connection up after 2T/3 without a reply and zklock
// tells the command then (SIGTERM); the server expires the session, deleting our node, T after
// it last heard from us at the earliest. The command has about T/3 to stop before the next
// holder may start: the default --kill-grace, T/4, sends SIGKILL with T/12 to spare (2.5 s
// and 0.8 s at the default 10 s session).
//
// A reset (the connection drops, the session survives): our node stays until the command has
// exited and zklock released it, or until the loss grace has passed; zklock sets that grace
// above the kill grace, so the next holder never starts while the told command still runs.
const (
	// killGraceDivisor: the default kill grace is T/killGraceDivisor, below the T/3 margin.
	killGraceDivisor = 4
	// lossGraceSlack: time, after the kill grace, for zklock to reap the command and delete
	// its node before the loss grace deletes it.
	lossGraceSlack = 2 * time.Second
)

// graceFlag is --kill-grace: a duration, and whether it was given.
type graceFlag struct {
	d   time.Duration
	set bool
}

func (f *graceFlag) String() string {
	if f == nil || !f.set {
		return "T/4"
	}
	return f.d.String()
}

func (f *graceFlag) Set(s string) error {
	d, err := parseDuration(s)
	if err != nil {
		return err
	}
	f.d, f.set = d, true
	return nil
}

// killGrace returns the time between SIGTERM and SIGKILL for a session of timeout t: the flag
// when given, else t/4. It warns, on w, of a given grace beyond the T/3 margin: always, as it
// needs acting on (issue 26.4: only --verbose showed it).
func killGrace(f graceFlag, t time.Duration, w io.Writer) time.Duration {
	if !f.set {
		return t / killGraceDivisor
	}
	if f.d > t/3 {
		fmt.Fprintf(w, "zklock: --kill-grace %v exceeds a third of the %v session timeout: after a partition "+
			"the next holder may start before the command is killed\n", f.d, t)
	}
	return f.d
}

// lossGrace returns how long the node of a lost lease waits for zklock's release while the
// session lives: the session timeout t (the library's default), or longer when a kill grace
// of kill needs it.
func lossGrace(t, kill time.Duration) time.Duration {
	return max(t, kill+lossGraceSlack)
}
