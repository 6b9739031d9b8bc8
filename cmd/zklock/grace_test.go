package main

import (
	"strings"
	"testing"
	"time"
)

// The default kill grace is a quarter of the session timeout, below the T/3 margin a
// partition leaves; a given one wins, with a warning past T/3. The loss grace
// covers the kill grace.
func TestKillGraceDerivedFromSessionTimeout(t *testing.T) {
	for _, tt := range []struct {
		flag       graceFlag
		session    time.Duration
		kill, loss time.Duration
		warn       bool
	}{
		{graceFlag{}, 10 * time.Second, 2500 * time.Millisecond, 10 * time.Second, false},
		{graceFlag{}, 4 * time.Second, time.Second, 4 * time.Second, false},
		{graceFlag{d: 0, set: true}, 10 * time.Second, 0, 10 * time.Second, false},
		{graceFlag{d: 3 * time.Second, set: true}, 10 * time.Second, 3 * time.Second, 10 * time.Second, false},
		{graceFlag{d: 30 * time.Second, set: true}, 10 * time.Second, 30 * time.Second, 32 * time.Second, true},
	} {
		var w strings.Builder
		kill := killGrace(tt.flag, tt.session, &w)
		if kill != tt.kill || lossGrace(tt.session, kill) != tt.loss || (w.Len() > 0) != tt.warn {
			t.Errorf("%v at T=%v: kill %v loss %v warning %q; want %v %v warning=%v",
				tt.flag.String(), tt.session, kill, lossGrace(tt.session, kill), w.String(), tt.kill, tt.loss, tt.warn)
		}
	}
}
