package harness

import (
	"errors"
	"testing"
	"time"
)

func TestValidate(t *testing.T) {
	ok := Scenario{Kind: Contended, Root: "/b/x", Duration: time.Second}
	tests := []struct {
		name string
		mod  func(*Scenario)
		want error
	}{
		{"valid", func(*Scenario) {}, nil},
		{"no kind", func(s *Scenario) { s.Kind = "" }, ErrBadScenario},
		{"relative root", func(s *Scenario) { s.Root = "b" }, ErrBadScenario},
		{"trailing slash", func(s *Scenario) { s.Root = "/b/" }, ErrBadScenario},
		{"no duration", func(s *Scenario) { s.Duration = 0 }, ErrBadScenario},
		{"herd needs no duration", func(s *Scenario) { s.Kind, s.Duration = Herd, 0 }, nil},
		{"negative sessions", func(s *Scenario) { s.Sessions = -1 }, ErrBadScenario},
		{"read pct", func(s *Scenario) { s.ReadPercent = 101 }, ErrBadScenario},
		{"multi", func(s *Scenario) { s.Kind, s.Paths, s.Mode, s.SetMin, s.SetMax = MultiContended, 8, MultiTx, 2, 4 }, nil},
		{"multi without paths", func(s *Scenario) { s.Kind, s.Mode = MultiUncontended, MultiTx }, ErrBadScenario},
		{"multi without mode", func(s *Scenario) { s.Kind, s.Paths = MultiUncontended, 4 }, ErrBadScenario},
		{"multi set above the pool", func(s *Scenario) { s.Kind, s.Paths, s.Mode, s.SetMax = MultiContended, 3, MultiTx, 4 }, ErrBadScenario},
	}
	for _, tt := range tests {
		s := ok
		tt.mod(&s)
		if err := s.Validate(); !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
			t.Errorf("%s: Validate() = %v, want %v", tt.name, err, tt.want)
		}
	}
}

func TestPercentileMs(t *testing.T) {
	ms := func(xs ...int) []time.Duration {
		out := make([]time.Duration, len(xs))
		for i, x := range xs {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	tests := []struct {
		in   []time.Duration
		q    float64
		want float64
	}{
		{nil, 0.5, 0},
		{ms(3, 1, 2), 0.5, 2},
		{ms(5, 1, 4, 2, 3), 0.99, 5},
		{ms(5, 1, 4, 2, 3), 0, 1},
	}
	for _, tt := range tests {
		if got := percentileMs(tt.in, tt.q); got != tt.want {
			t.Errorf("percentileMs(%v, %v) = %v, want %v", tt.in, tt.q, got, tt.want)
		}
	}
}
