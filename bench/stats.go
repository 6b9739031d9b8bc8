package main

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
)

// agg is a median over repetitions with its range; ok is false when no repetition measured it.
type agg struct {
	med, lo, hi float64
	n           int
	ok          bool
}

// aggregate takes f of every successful result (failed, unsupported and zero values are left out).
func aggregate(rs []harness.Result, f func(harness.Result) float64) agg {
	var xs []float64
	for _, r := range rs {
		if r.Error != "" || r.Unsupported {
			continue
		}
		if v := f(r); v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) {
			xs = append(xs, v)
		}
	}
	if len(xs) == 0 {
		return agg{}
	}
	sort.Float64s(xs)
	m := xs[len(xs)/2]
	if len(xs)%2 == 0 {
		m = (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
	}
	return agg{med: m, lo: xs[0], hi: xs[len(xs)-1], n: len(xs), ok: true}
}

// get aggregates one field of a peer's results under a scenario id.
func (d *runData) get(peer, id string, f func(harness.Result) float64) agg {
	return aggregate(d.results[key{peer, id}], f)
}

// sumInt adds up an integer field over every repetition (violations, intervals).
func (d *runData) sumInt(peer, id string, f func(harness.Result) int64) (int64, bool) {
	rs := d.results[key{peer, id}]
	var n int64
	ok := false
	for _, r := range rs {
		if r.Error == "" && !r.Unsupported {
			n += f(r)
			ok = true
		}
	}
	return n, ok
}

// status says why a peer has no figure for a scenario: "not run", "unsupported" or the error.
func (d *runData) status(peer, id string) string {
	rs := d.results[key{peer, id}]
	if len(rs) == 0 {
		return "not run"
	}
	for _, r := range rs {
		if r.Unsupported {
			return "unsupported"
		}
	}
	for _, r := range rs {
		if r.Error != "" {
			return "failed (see notes)"
		}
	}
	return "–"
}

// ratio of two medians; ok false when either is missing.
func ratio(a, b agg) (float64, bool) {
	if !a.ok || !b.ok || b.med == 0 {
		return 0, false
	}
	return a.med / b.med, true
}

// fmtNum prints a figure with precision that suits its size, with thousands separators.
func fmtNum(v float64) string {
	switch {
	case v >= 100:
		return thousands(int64(math.Round(v)))
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	case v >= 1:
		return fmt.Sprintf("%.2f", v)
	default:
		return fmt.Sprintf("%.3f", v)
	}
}

func thousands(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// fmtAgg prints "median [min–max]" (the range only with more than one repetition).
func fmtAgg(a agg) string {
	if !a.ok {
		return "–"
	}
	if a.n < 2 {
		return fmtNum(a.med)
	}
	return fmt.Sprintf("%s [%s–%s]", fmtNum(a.med), fmtNum(a.lo), fmtNum(a.hi))
}

// fmtRatio prints "1.23×" or "–".
func fmtRatio(v float64, ok bool) string {
	if !ok {
		return "–"
	}
	return fmt.Sprintf("%.2f×", v)
}
