package main

import (
	"fmt"

	"github.com/zkrecipes/zkrecipes/bench/internal/harness"
)

// Per-acquisition figures of the counting pass.
var (
	cWrites     = func(c countResult) float64 { return c.perOp(c.lockWrites()) }
	sFsyncs     = func(s serverCounters) int64 { return s.Fsyncs }
	sTxns       = func(s serverCounters) int64 { return s.ClientWrites }
	opcodesNote = "Write transactions and fsyncs are the changes of the server's own counters (mntr) over each " +
		"scenario; see the Method."
)

// serverPerOp is a server counter per acquisition (or release); ok is false when the counters
// were not read or nothing was acquired.
func (c countResult) serverPerOp(f func(serverCounters) int64) (float64, bool) {
	if c.Server == nil || c.Per <= 0 {
		return 0, false
	}
	return c.perOp(f(*c.Server)), true
}

// serverCell renders a server counter per acquisition, "–" without one.
func serverCell(c countResult, f func(serverCounters) int64) string {
	v, ok := c.serverPerOp(f)
	if !ok {
		return "–"
	}
	return fmt.Sprintf("%.2f", v)
}

// groupCell renders the transactions one fsync covered, and the server's own transactions
// (container reaping, session expiry) when some fell in the scenario: its fsyncs are counted too.
func groupCell(c countResult) string {
	if c.Server == nil {
		return "–"
	}
	g, ok := c.Server.perFsync()
	if !ok {
		return "– (no fsync)"
	}
	s := fmt.Sprintf("%.2f", g)
	if own := c.Server.serverOwn(); own > 0 {
		s += fmt.Sprintf(" (%d of the server's own)", own)
	}
	return s
}

func writeOpcodes(m *md, d *runData) {
	m.f("\n## Requests by opcode (counting pass through the decoding proxy)\n")
	if d.countErr != "" {
		m.f("\nThe counting pass failed: %s\n", d.countErr)
	}
	m.f("\n%s\n", opcodesNote)
	m.table("scenario", "peer", "per", "requests by opcode", "notifications", "write transactions (server)", "fsyncs (server)")
	for _, s := range d.plan.Count {
		for _, p := range d.countedPeers() {
			c, ok := d.counts[key{p, s.ID}]
			if !ok {
				continue
			}
			if c.Err != "" || c.Per <= 0 {
				m.row(s.ID, peerCell(p), c.PerWhat, "– ("+shortErr(c.Err)+")", "–", "–", "–")
				continue
			}
			m.row(s.ID, peerCell(p), c.PerWhat, c.byOpcode(), fmt.Sprintf("%.2f", cNotif(c)),
				serverCell(c, sTxns), serverCell(c, sFsyncs))
		}
	}
}

// writeMultiCounts is the m section's table of requests, writes and fsyncs per acquisition
// from the counting pass.
func writeMultiCounts(m *md, d *runData) {
	var ids []spec
	for _, s := range d.plan.Count {
		if s.Kind == harness.MultiUncontended || s.Kind == harness.MultiContended {
			ids = append(ids, s)
		}
	}
	if len(ids) == 0 {
		return
	}
	m.f("\nRequests, writes and fsyncs per acquisition (the counting pass: short runs through the decoding proxy, " +
		"forceSync=yes; uncontended k paths, or contended as above). An uncontended row counts from the end of the " +
		"session's first acquisition to the end of its window, per acquisition in between: the session's set-up, " +
		"its first acquisition (which makes the parents) and its tear-down are left out, as they would otherwise " +
		"weigh on every figure of a short window. A contended row counts the whole run, the sessions' createSession " +
		"and closeSession included. A write request is one create, delete or multi the proxy saw; a write " +
		"transaction is one the server logged for a client; ZooKeeper groups commits, so one fsync can cover " +
		"several transactions.\n")
	m.table("scenario", "multi-lock", "requests/acq", "write requests/acq (proxy)", "write transactions/acq (server)",
		"fsyncs/acq (server)", "transactions per fsync")
	for _, s := range ids {
		for _, p := range []string{zkrecipesName, curatorName} {
			c, ok := d.counts[key{p, s.ID}]
			if !ok {
				continue
			}
			label := multiLabel(p, s.Mode)
			if s.Kind == harness.MultiUncontended {
				if a, ok := c.afterFirst(); ok {
					c = a
				} else if c.Err == "" {
					label += " (whole run: no marks)"
				}
			}
			if c.Err != "" || c.Per <= 0 {
				m.row(s.ID, label, "– ("+shortErr(c.Err)+")", "–", "–", "–", "–")
				continue
			}
			m.row(s.ID, label, fmt.Sprintf("%.2f", cReq(c)), fmt.Sprintf("%.2f", cWrites(c)), serverCell(c, sTxns),
				serverCell(c, sFsyncs), groupCell(c))
		}
	}
}

// multiLabel names a peer's multi-lock in a mode, briefly.
func multiLabel(p, mode string) string {
	switch {
	case p == curatorName:
		return "Curator InterProcessMultiLock"
	case mode == harness.MultiTx:
		return "**zkrecipes** transactional"
	case mode == harness.MultiSeq:
		return "**zkrecipes** sequential"
	}
	return p + " " + mode
}
