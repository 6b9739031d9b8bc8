package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// stickyPeers are the peers of the s tables: non-sticky zkrecipes, the sticky configuration,
// zk.Lock and Curator (kazoo does not run s).
func (d *runData) stickyPeers() []string {
	var out []string
	for _, p := range []string{zkrecipesName, zkrecipesStickyName, goLockName, curatorName} {
		if d.hasPeer(p) {
			out = append(out, p)
		}
	}
	return out
}

// countedPeers are every peer with counting-pass figures, in table order.
func (d *runData) countedPeers() []string {
	var out []string
	for _, p := range d.peers {
		if p != rawName {
			out = append(out, p)
		}
	}
	return out
}

// stickyHeadline is each s scenario's figure: its name in the table and whether it is a rate.
var stickyHeadline = map[string]struct {
	what string
	rate bool
}{
	idS1: {"acq/s", true}, idS2: {"acq/s", true}, idS3: {"acquire p50 ms", false},
	idS4: {"acq/s", true}, idS5: {"reads/s", true}, idS5W: {"acquire+release p50 ms", false},
}

var stickyNames = map[string]string{
	idS1: "s1 re-acquire (1 session, 1 lock)", idS2: "s2 affinity (8 sessions, 64 locks, 90 % own)",
	idS3: "s3 handover (idle at the other session)", idS4: "s4 ping-pong (2 sessions alternating)",
	idS5: "s5 read-mostly (8 readers, a write every 100 ms)", idS5W: "s5-w uncontended write lock",
}

func writeSticky(m *md, d *runData) {
	if len(d.plan.Sticky) == 0 {
		return
	}
	m.f("\n## s. Sticky leases (issue 28)\n")
	m.f("\n**zkrecipes sticky** is zkrecipes with `recipes.WithSticky(0)` on every mutex and read/write lock; " +
		"**zkrecipes** is the same library without it. p50 is the whole acquire+release cycle in s1 and s5-w, the " +
		"acquire call in s3 and s4, and the writer's acquire call in s5. Counts per acquisition come from the " +
		"counting pass (short runs through the decoding proxy): every request of the scenario, session set-up " +
		"included, over every acquisition (s5: reads and writes).\n")
	m.table("scenario", "peer", "headline", "× Curator", "× zkrecipes", "acq/s (s5: reads/s)", "p50 ms", "p99 ms",
		"requests/acq", "write requests/acq (proxy)", "write transactions/acq (server)", "notifications/acq",
		"ME violations / acquisitions", "client CPU µs/acq")
	for _, s := range d.plan.Sticky {
		h := stickyHeadline[s.ID]
		f := fP50
		if h.rate {
			f = fRate
		}
		for _, p := range d.stickyPeers() {
			if stickyUnsupported(p, s.ID) {
				m.row(stickyNames[s.ID], stickyPeerCell(p), "no read/write lock", "", "", "", "", "", "", "", "", "", "", "")
				continue
			}
			a := d.get(p, s.ID, f)
			viol, ok := d.sumInt(p, s.ID, func(r harness.Result) int64 { return r.Violations })
			acq, _ := d.sumInt(p, s.ID, func(r harness.Result) int64 { return r.TotalCycles })
			me := "–"
			if ok {
				me = fmt.Sprintf("%d / %s", viol, thousands(acq))
			}
			m.row(stickyNames[s.ID], stickyPeerCell(p), h.what+" "+d.cell(p, s.ID, a),
				fmtRatio(ratio(a, d.get(curatorName, s.ID, f))), fmtRatio(ratio(a, d.get(zkrecipesName, s.ID, f))),
				fmtAgg(d.get(p, s.ID, fRate)), fmtAgg(d.get(p, s.ID, fP50)), fmtAgg(d.get(p, s.ID, fP99)),
				d.countCell(p, s.ID, cReq), d.countCell(p, s.ID, cWrites), d.serverCountCell(p, s.ID, sTxns),
				d.countCell(p, s.ID, cNotif), me, fmtAgg(d.get(p, s.ID, fCPU)))
		}
	}
	writeStickyFirst(m, d)
	writeStickyPerWrite(m, d)
	m.f(`
s1 and s5-w: %s warm-up cycles, then a timed window. s2: each session has its own 8 of the 64
locks (one mutex object per lock per session) and takes 90 %% of its acquisitions there, 10 %% on the
other 56, chosen at random; empty critical section. s3: two sessions take turns on one lock, one
goroutine driving both; in its turn a session takes the lock %d times, and the lock lies idle %v at
the session that released it before the other takes its turn; p50 is the first acquire of each
turn, a handover of a node the other session re-used (with a sticky lock: idle there). s4: the same
with one acquisition per turn and no idle time, so every acquisition finds the other session's
node (with a sticky lock: one never re-used, which its adaptive off-switch stops caching). No
two acquisitions of s3 or s4 overlap by construction. s5: 8 sessions loop on the read side of one
read/write lock, a 9th takes the write side after each 100 ms pause. zk.Lock has no read/write
lock (no s5, s5-w); kazoo does not run s.
`, thousands(int64(d.stickyWarmCycles())), handoverBurst, handoverIdle)
}

// stickyRatios are the ratios of the sticky configuration's headline figures to every other
// peer's in the s scenarios (the run history compares them run to run).
func (d *runData) stickyRatios() []ratioEntry {
	var out []ratioEntry
	for _, s := range d.plan.Sticky {
		h, f, better := stickyHeadline[s.ID], fP50, "lower"
		if h.rate {
			f, better = fRate, "higher"
		}
		for _, p := range d.stickyPeers() {
			if p == zkrecipesStickyName {
				continue
			}
			if v, ok := ratio(d.get(zkrecipesStickyName, s.ID, f), d.get(p, s.ID, f)); ok {
				out = append(out, ratioEntry{Name: fmt.Sprintf("%s %s sticky × %s", s.ID, h.what, p), Value: v, Better: better})
			}
		}
	}
	return out
}

// stickyPeerCell names a peer, in bold for ours.
func stickyPeerCell(p string) string {
	if p == zkrecipesStickyName {
		return "**" + p + "**"
	}
	return peerCell(p)
}

// serverCountCell renders a server counter per acquisition of the counting pass.
func (d *runData) serverCountCell(p, id string, f func(serverCounters) int64) string {
	c, ok := d.counts[key{p, id}]
	if !ok {
		return "not counted"
	}
	return serverCell(c, f)
}

// writeStickyFirst: s1's requests split at the first acquisition (counting pass).
func writeStickyFirst(m *md, d *runData) {
	m.f("\ns1 in the counting pass, split at the first acquisition: the session's set-up and first acquire+release, " +
		"then every request up to the end of the window (the session's tear-down left out), per acquisition after the first.\n")
	m.table("peer", "first acquisition: requests", "after the first: acquisitions", "requests/acq", "by opcode",
		"notifications/acq", "write transactions/acq (server)")
	for _, p := range d.stickyPeers() {
		c, ok := d.counts[key{p, idS1}]
		if !ok {
			continue
		}
		a, ok := c.afterFirst()
		if !ok {
			m.row(stickyPeerCell(p), "– ("+shortErr(c.Err)+")", "–", "–", "–", "–", "–")
			continue
		}
		by := a.byOpcode()
		if by == "" {
			by = "none"
		}
		m.row(stickyPeerCell(p), c.firstByOpcode(), thousands(a.Per), fmt.Sprintf("%.4f", cReq(a)), by,
			fmt.Sprintf("%.4f", cNotif(a)), serverCell(a, sTxns))
	}
}

// writeStickyPerWrite: s5's counts per write (counting pass). With sticky readers nearly every
// request of s5 is caused by a write, which figures per acquisition hide among the reads.
func writeStickyPerWrite(m *md, d *runData) {
	m.f("\ns5 in the counting pass, per write: every request of the scenario (readers' included, session set-up too) " +
		"divided by the writer's acquisitions.\n")
	m.table("peer", "writes / reads", "requests per write", "write requests per write (proxy)",
		"write transactions per write (server)", "notifications per write")
	for _, p := range d.stickyPeers() {
		c, ok := d.counts[key{p, idS5}]
		if !ok || c.Err != "" || c.Writes <= 0 {
			continue
		}
		w := countResult{Requests: c.Requests, Notifications: c.Notifications, Server: c.Server, Per: c.Writes}
		m.row(stickyPeerCell(p), fmt.Sprintf("%s / %s", thousands(c.Writes), thousands(c.Per-c.Writes)),
			fmt.Sprintf("%.1f", cReq(w)), fmt.Sprintf("%.1f", cWrites(w)), serverCell(w, sTxns), fmt.Sprintf("%.1f", cNotif(w)))
	}
}

// firstByOpcode renders the requests up to the "first" mark, e.g. "create 1, getChildren2 1"
// (closeSession and the session's watch re-registration left out, as in every count).
func (c countResult) firstByOpcode() string {
	if c.First == nil {
		return "–"
	}
	var parts []string
	for op, n := range c.First.Requests {
		if op == zktest.OpCloseSession || op == zktest.OpSetWatches || op == zktest.OpSetWatches2 {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %d", zktest.OpName(op), n))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// stickyWarmCycles is s1's warm-up (0 when s1 is not run).
func (d *runData) stickyWarmCycles() int {
	for _, s := range d.plan.Sticky {
		if s.ID == idS1 {
			return s.WarmCycles
		}
	}
	return 0
}
