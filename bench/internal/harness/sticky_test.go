package harness

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"
)

// affinityPick keeps to the session's own share about own% of the time, never picks outside the
// paths, and spreads the rest over every other path.
func TestAffinityPick(t *testing.T) {
	tests := []struct {
		name                    string
		i, sessions, paths, own int
	}{
		{"s2: first session", 0, 8, 64, 90},
		{"s2: last session", 7, 8, 64, 90},
		{"middle, all foreign", 3, 8, 64, 0},
		{"all own", 5, 8, 64, 100},
		{"uneven share", 2, 3, 10, 50},
	}
	for _, tt := range tests {
		rng := rand.New(rand.NewPCG(1, 2))
		share := tt.paths / tt.sessions
		own, seen, n := 0, map[int]bool{}, 20000
		for range n {
			k := affinityPick(rng, tt.i, tt.sessions, tt.paths, tt.own)
			if k < 0 || k >= tt.paths {
				t.Fatalf("%s: path %d outside 0..%d", tt.name, k, tt.paths-1)
			}
			if k >= tt.i*share && k < (tt.i+1)*share {
				own++
			}
			seen[k] = true
		}
		if got := 100 * float64(own) / float64(n); got < float64(tt.own)-2 || got > float64(tt.own)+2 {
			t.Errorf("%s: %.1f%% own, want %d%% ± 2", tt.name, got, tt.own)
		}
		if want := tt.paths; tt.own > 0 && tt.own < 100 && len(seen) != want {
			t.Errorf("%s: %d distinct paths, want %d", tt.name, len(seen), want)
		}
	}
}

func TestValidateSticky(t *testing.T) {
	ok := Scenario{Kind: Affinity, Root: "/b/s2", Duration: time.Second, Sessions: 8, Paths: 64, OwnPercent: 90}
	tests := []struct {
		name string
		mod  func(*Scenario)
		want error
	}{
		{"valid", func(*Scenario) {}, nil},
		{"fewer paths than sessions", func(s *Scenario) { s.Paths = 4 }, ErrBadScenario},
		{"one session", func(s *Scenario) { s.Sessions = 1 }, ErrBadScenario},
		{"own above 100", func(s *Scenario) { s.OwnPercent = 101 }, ErrBadScenario},
		{"negative interval", func(s *Scenario) { s.Kind, s.Interval = ReadMostly, -time.Millisecond }, ErrBadScenario},
		{"negative hold", func(s *Scenario) { s.Kind, s.Hold = Alternate, -time.Millisecond }, ErrBadScenario},
		{"alternate", func(s *Scenario) { s.Kind, s.Hold = Alternate, 10*time.Millisecond }, nil},
	}
	for _, tt := range tests {
		s := ok
		tt.mod(&s)
		if err := s.Validate(); !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
			t.Errorf("%s: Validate() = %v, want %v", tt.name, err, tt.want)
		}
	}
}
