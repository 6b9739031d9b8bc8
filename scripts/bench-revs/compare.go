package main

import (
	"math"
	"sort"
)

// metric is one figure of a result, and which direction is better.
type metric struct {
	name         string
	f            func(result) float64
	higherBetter bool
}

var (
	mRate = metric{"acq/s", func(r result) float64 { return r.CyclesPerSec }, true}
	mP50  = metric{"p50 ms", func(r result) float64 { return r.P50Ms }, false}
	mHand = metric{"release → next acquire p50 ms", func(r result) float64 { return r.HandoffP50Ms }, false}
	mCPU  = metric{"client CPU µs/acq", func(r result) float64 { return r.CPUUsPerOp }, false}
)

// metricsOf lists the figures compared for a scenario kind (the driver's harness kinds).
func metricsOf(kind string) []metric {
	switch kind {
	case "uncontended":
		return []metric{mP50, mRate, mCPU}
	case "herd", "depth":
		return []metric{mHand, mCPU}
	}
	return []metric{mRate, mCPU}
}

// stat is a median over rounds (or repetitions) with its range and quartiles; ok is false when
// nothing was measured.
type stat struct {
	med, lo, hi float64
	q1, q3      float64 // quartiles; equal to med below 2 values
	n           int
	ok          bool
}

// summarize takes the median and range of the positive, finite values of xs.
func summarize(xs []float64) stat {
	var ys []float64
	for _, x := range xs {
		if x > 0 && !math.IsInf(x, 0) && !math.IsNaN(x) {
			ys = append(ys, x)
		}
	}
	if len(ys) == 0 {
		return stat{}
	}
	sort.Float64s(ys)
	m := ys[len(ys)/2]
	if len(ys)%2 == 0 {
		m = (ys[len(ys)/2-1] + ys[len(ys)/2]) / 2
	}
	return stat{med: m, lo: ys[0], hi: ys[len(ys)-1], q1: quartile(ys, 1, m), q3: quartile(ys, 3, m), n: len(ys), ok: true}
}

// quartile i (1 or 3) of sorted ys, interpolated between the values around the position
// i(n+1)/4: Python's statistics.quantiles(method="exclusive") from 3 values on; with 2 values
// the ends (Python extrapolates); med below 2.
func quartile(ys []float64, i int, med float64) float64 {
	n := len(ys)
	if n < 2 {
		return med
	}
	j, delta := i*(n+1)/4, i*(n+1)%4 // position j + delta/4, 1-based
	switch {
	case j < 1:
		return ys[0]
	case j >= n:
		return ys[n-1]
	}
	return (ys[j-1]*float64(4-delta) + ys[j]*float64(delta)) / 4
}

// figure is one run's value of m for a peer and scenario: the median over the run's
// repetitions (failed and unsupported ones left out); 0 when none measured it.
func (r record) figure(peer, id string, m metric) float64 {
	var xs []float64
	for _, res := range r.Results[peer+"|"+id] {
		if res.Error == "" && !res.Unsupported {
			xs = append(xs, m.f(res))
		}
	}
	return summarize(xs).med
}

// ratio is a/b, 0 when either is missing.
func ratio(a, b float64) float64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	return a / b
}

// row is one scenario and metric of the comparison. Each stat is over rounds: zkrecipes' figure
// at each side, zk.Lock's over every run, zkrecipes × zk.Lock in the same run at each side, and
// per round head/base, of the figure and of the ratio to zk.Lock.
type row struct {
	id                string
	m                 metric
	zk                [2]stat
	yard              stat
	vsYard            [2]stat
	headBase          stat
	headBaseNormalize stat
}

// byRound indexes the runs by round and side.
func byRound(runs []runRecord) map[int]*[2]*runRecord {
	out := map[int]*[2]*runRecord{}
	for i := range runs {
		r := &runs[i]
		if out[r.round] == nil {
			out[r.round] = &[2]*runRecord{}
		}
		out[r.round][r.side] = r
	}
	return out
}

// kindOf is the scenario kind of id in the runs ("" when no run has it).
func kindOf(runs []runRecord, id string) string {
	for _, r := range runs {
		for _, res := range r.Results[zkrecipesName+"|"+id] {
			if res.Kind != "" {
				return res.Kind
			}
		}
	}
	return ""
}

// rows builds the comparison's rows, in the order of ids and of each kind's metrics.
func rows(runs []runRecord, ids []string) []row {
	var out []row
	rounds := byRound(runs)
	for _, id := range ids {
		for _, m := range metricsOf(kindOf(runs, id)) {
			out = append(out, buildRow(runs, rounds, id, m))
		}
	}
	return out
}

func buildRow(runs []runRecord, rounds map[int]*[2]*runRecord, id string, m metric) row {
	w := row{id: id, m: m}
	var zk, vs [2][]float64
	var yard, hb, hbn []float64
	for _, r := range runs {
		z, y := r.figure(zkrecipesName, id, m), r.figure(yardstickName, id, m)
		zk[r.side] = append(zk[r.side], z)
		vs[r.side] = append(vs[r.side], ratio(z, y))
		yard = append(yard, y)
	}
	for _, pair := range rounds {
		b, h := pair[sideBase], pair[sideHead]
		if b == nil || h == nil {
			continue
		}
		hb = append(hb, ratio(h.figure(zkrecipesName, id, m), b.figure(zkrecipesName, id, m)))
		hbn = append(hbn, ratio(ratio(h.figure(zkrecipesName, id, m), h.figure(yardstickName, id, m)),
			ratio(b.figure(zkrecipesName, id, m), b.figure(yardstickName, id, m))))
	}
	for s := range 2 {
		w.zk[s], w.vsYard[s] = summarize(zk[s]), summarize(vs[s])
	}
	w.yard, w.headBase, w.headBaseNormalize = summarize(yard), summarize(hb), summarize(hbn)
	return w
}

// countRow is the counting pass of one scenario at one side, summed over the runs that counted:
// requests (session set-up and tear-down left out) and notifications per acquisition (per
// release for a herd), by opcode for zkrecipes.
type countRow struct {
	id, per   string
	side      int
	zkReq     float64
	zkNotif   float64
	zkByOp    map[int32]float64
	yardReq   float64
	yardNotif float64
	ok        bool
}

// countRows lists, for each id and side, the counting pass's figures (only ids that were counted).
func countRows(runs []runRecord, ids []string) []countRow {
	var out []countRow
	for _, id := range ids {
		for s := range 2 {
			zk, zn, yk, yn := perOp(runs, s, zkrecipesName+"|"+id), perNotif(runs, s, zkrecipesName+"|"+id),
				perOp(runs, s, yardstickName+"|"+id), perNotif(runs, s, yardstickName+"|"+id)
			c := countRow{id: id, side: s, zkByOp: zk, zkNotif: zn, yardNotif: yn, per: perWhat(runs, s, zkrecipesName+"|"+id)}
			for _, v := range zk {
				c.zkReq += v
			}
			for _, v := range yk {
				c.yardReq += v
			}
			c.ok = len(zk) > 0
			if c.ok {
				out = append(out, c)
			}
		}
	}
	return out
}
