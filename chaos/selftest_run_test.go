package chaos

import (
	"context"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/zktest"
)

// A self-test (row 21's way) runs scenarios on deliberately broken locks, each of which some
// checker must report, beside controls on the real locks, which must pass. selftest_test.go and
// selftest_sticky_test.go share the set-up and the run here; each only lists its cases.

// selfTest is one case of a self-test.
type selfTest struct {
	name  string
	sc    Scenario
	want  []string      // checkers that must report (see wantMode); none: the control, which must pass
	phase time.Duration // the faults' phase, when not the default (12 s with faults, else the config's)
}

// wantMode says how a broken case's checkers must report.
type wantMode int

const (
	wantEach wantMode = iota // every checker named must report
	wantAny                  // at least one of them: they judge the same violation in different ways
)

// selfTestEnv is what every case of a self-test runs with: one ensemble, one seed, one config.
type selfTestEnv struct {
	cluster *zktest.Cluster
	seed    uint64
	cfg     Config
}

// newSelfTestEnv skips a self-test in the full table (the self-tests run in the fast suite) and
// starts the ensemble the cases share.
func newSelfTestEnv(t *testing.T) selfTestEnv {
	t.Helper()
	if *flagFull {
		t.Skip("the self-tests run in the fast suite")
	}
	cluster := ensemble(t)
	s := seed(t)
	return selfTestEnv{cluster: cluster, seed: s,
		cfg: Config{Seed: s, T: 3 * time.Second, Phase: 4 * time.Second, HistoryDir: t.TempDir()}}
}

// run runs every case as a subtest: a control must pass every checker, a broken case must be
// reported as mode says.
func (e selfTestEnv) run(t *testing.T, mode wantMode, tests []selfTest) {
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			cfg := e.cfg
			switch {
			case tt.phase > 0:
				cfg.Phase = tt.phase
			case len(tt.sc.Faults) > 0:
				cfg.Phase = 12 * time.Second // room for a few partitions
			}
			r, err := Run(ctx, e.cluster, tt.sc, cfg)
			if err != nil {
				t.Fatalf("seed=%d: %v", e.seed, err)
			}
			if tt.want == nil {
				t.Logf("%s: %d grants, %d of them on a node an earlier grant held", tt.name, r.Ops, r.Reused)
				report(t, r)
				return
			}
			e.judge(t, mode, tt, r)
			t.Logf("%s: violations found as required, after %d grants: %v (samples: %v)", tt.name, r.Ops, r.Verdict.Counts, r.Verdict.Samples)
		})
	}
}

// judge fails t unless the checkers of a broken case reported as mode says.
func (e selfTestEnv) judge(t *testing.T, mode wantMode, tt selfTest, r *Result) {
	t.Helper()
	n := 0
	for _, c := range tt.want {
		n += r.Verdict.Counts[c]
		if mode == wantEach && r.Verdict.Counts[c] == 0 {
			t.Errorf("seed=%d: checker %s reported nothing against %s (counts %v)", e.seed, c, tt.name, r.Verdict.Counts)
		}
	}
	if mode == wantAny && n == 0 {
		t.Errorf("seed=%d: checkers %v reported nothing against %s (counts %v)", e.seed, tt.want, tt.name, r.Verdict.Counts)
	}
}
