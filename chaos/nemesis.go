package chaos

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/zkrecipes/zkrecipes/zktest"
)

// FaultKind names a fault the nemesis can inject (reliability.md §A3).
type FaultKind string

// Faults.
const (
	KillLeader   FaultKind = "kill-leader"   // SIGKILL the leader, restart it after 2 s
	KillFollower FaultKind = "kill-follower" // SIGKILL a follower, restart it after 2 s
	PauseLeader  FaultKind = "pause-leader"  // SIGSTOP the leader for 1.5 T
	QuorumLoss   FaultKind = "quorum-loss"   // SIGKILL two servers for 2 T
	Blackhole05  FaultKind = "blackhole-0.5T"
	Blackhole09  FaultKind = "blackhole-0.9T"
	Blackhole2   FaultKind = "blackhole-2T"
	Expire       FaultKind = "expire"        // closeSession of a holder's session on the server
	CutCreate    FaultKind = "cut-create"    // swallow a create's (or a creating multi's) reply and close the connection
	CutDelete    FaultKind = "cut-delete"    // the same for a delete (a release)
	ResetStorm   FaultKind = "reset-storm"   // drop a random client's connections every 200 ms
	Latency      FaultKind = "latency"       // 0..T/2 of delay with jitter, for 3 s
	ResumeClient FaultKind = "resume-client" // SIGCONT of a holder process stopped for 2 T
	// Reset drops a holder's connections once (a blip: it reconnects at once, its session lives).
	Reset FaultKind = "reset"
	// BlackholeBrief blackholes a holder's proxies for 0.4 T, then drops the connections: the
	// client is told at the drop, well before its session could expire.
	BlackholeBrief FaultKind = "blackhole-0.4T"
)

// notifies reports whether a holder hit by the fault must see Done close,
// and the §A3.7 bound after the fault's start (strict: checked in full runs).
func (k FaultKind) notifies(T time.Duration) (bool, time.Duration) {
	switch k {
	case Blackhole09, Blackhole2, PauseLeader:
		return true, 2*T/3 + T/3 // Disconnected after 2T/3 without traffic, plus ε
	case KillLeader, KillFollower, QuorumLoss, Expire:
		return true, T / 3 // the server closes the connection: at once, plus ε
	case ResumeClient:
		return true, time.Second // §A4 row 7's target: resume → Lost within 1 s
	case Reset:
		return true, T / 3 // the connection closes: at once, plus ε
	case BlackholeBrief:
		return true, 2*T/5 + T/3 // told when the blackhole ends and drops the connection
	}
	return false, 0
}

// nemesis injects faults into an Env.
type nemesis struct {
	e   *Env
	rng *rand.Rand
	mu  sync.Mutex
}

// inject runs one fault to its end (heal included).
func (n *nemesis) inject(ctx context.Context, k FaultKind) error {
	switch k {
	case KillLeader, KillFollower:
		return n.kill(ctx, k)
	case PauseLeader:
		return n.pauseLeader(ctx)
	case QuorumLoss:
		return n.quorumLoss(ctx)
	case Blackhole05, Blackhole09, Blackhole2, BlackholeBrief:
		return n.blackhole(ctx, k)
	case Reset:
		return n.reset(ctx)
	case Expire:
		return n.expire(ctx)
	case CutCreate:
		// A transaction that creates (a transactional multi-lock queueing its set) is a create
		// too; one that begins with a check (a guarded write) or a delete is spared.
		return n.cut(ctx, k, []int32{zktest.OpCreate}, zktest.OpCreate, zktest.OpCreate2)
	case CutDelete:
		return n.cut(ctx, k, nil, zktest.OpDelete)
	case ResetStorm:
		return n.storm(ctx)
	case Latency:
		return n.latency(ctx)
	}
	return fmt.Errorf("chaos: unknown fault %q", k)
}

// record logs the fault once per affected client (Proc), after pinning one
// current holder among them so that a notification can be measured.
func (n *nemesis) record(k FaultKind, affected []*Client) {
	if ok, _ := k.notifies(n.e.T); ok {
		n.pinOne(affected)
	}
	n.log(k, affected, 0)
}

// log records the fault's start once per affected client, naming the session it closes (0: none).
func (n *nemesis) log(k FaultKind, affected []*Client, sess int64) {
	t := Now()
	for _, c := range affected {
		n.e.H.Add(Event{T: t, Proc: c.Name, Kind: Fault, Detail: string(k), Sess: sess})
	}
	if len(affected) == 0 {
		n.e.H.Add(Event{T: t, Kind: Fault, Detail: string(k)})
	}
}

func (n *nemesis) heal(k FaultKind) { n.e.H.Add(Event{Kind: Heal, Detail: string(k)}) }

// pinOne pins one worker that holds now, if any.
func (n *nemesis) pinOne(cs []*Client) {
	for _, i := range n.rng.Perm(len(cs)) {
		for _, w := range cs[i].workers {
			if w.pin() {
				return
			}
		}
	}
}

// holder returns a client with a worker that holds now, else a random one.
func (n *nemesis) holder() *Client {
	cs := n.e.clients
	for _, i := range n.rng.Perm(len(cs)) {
		for _, w := range cs[i].workers {
			if w.state.Load() == holding {
				return cs[i]
			}
		}
	}
	return cs[n.rng.IntN(len(cs))]
}

// target picks the client a one-client fault of kind k hits. For a fault that must notify it
// pins a holder first (one that holds now, else the first to begin a hold within T) and
// returns that holder's client with the pinned worker, so the fault always finds the holder it
// is aimed at; else (or when nobody held within T) it is holder's choice, with no pin.
func (n *nemesis) target(ctx context.Context, k FaultKind) (*Client, *worker) {
	if ok, _ := k.notifies(n.e.T); ok {
		if w := n.e.pins.pinHolder(ctx, n.e.clients, n.rng, n.e.T); w != nil {
			return w.c, w
		}
	}
	return n.holder(), nil
}

// leader returns the index of the member that leads, or -1.
func (n *nemesis) leader(ctx context.Context) int {
	for i := range n.e.Cluster.Size() {
		if mode, err := n.e.Cluster.Member(i).Mode(ctx); err == nil && mode == "leader" {
			return i
		}
	}
	return -1
}

// onMember returns the clients connected to member i now.
func (n *nemesis) onMember(i int) []*Client {
	var out []*Client
	for _, c := range n.e.clients {
		if c.connectedTo(i) {
			out = append(out, c)
		}
	}
	return out
}

// kill SIGKILLs the leader or a follower and restarts it after 2 s.
func (n *nemesis) kill(ctx context.Context, k FaultKind) error {
	lead := n.leader(ctx)
	if lead < 0 {
		return errors.New("chaos: no leader")
	}
	victim, affected := lead, n.e.clients // a leader's death drops every client
	if k == KillFollower {
		victim = (lead + 1 + n.rng.IntN(n.e.Cluster.Size()-1)) % n.e.Cluster.Size()
		affected = n.onMember(victim)
	}
	m := n.e.Cluster.Member(victim)
	n.record(k, affected)
	if err := m.Kill(); err != nil {
		return err
	}
	sleepCtx(ctx, 2*time.Second)
	err := m.Restart(context.WithoutCancel(ctx))
	n.heal(k)
	return err
}

// pauseLeader SIGSTOPs the leader for 1.5 T.
func (n *nemesis) pauseLeader(ctx context.Context) error {
	lead := n.leader(ctx)
	if lead < 0 {
		return errors.New("chaos: no leader")
	}
	m := n.e.Cluster.Member(lead)
	n.record(PauseLeader, n.e.clients)
	if err := m.Pause(); err != nil {
		return err
	}
	sleepCtx(ctx, 3*n.e.T/2)
	err := m.Resume()
	n.heal(PauseLeader)
	return err
}

// quorumLoss SIGKILLs two servers for 2 T and restarts them together.
func (n *nemesis) quorumLoss(ctx context.Context) error {
	perm := n.rng.Perm(n.e.Cluster.Size())[:2]
	n.record(QuorumLoss, n.e.clients)
	for _, i := range perm {
		if err := n.e.Cluster.Member(i).Kill(); err != nil {
			return err
		}
	}
	sleepCtx(ctx, 2*n.e.T)
	errs := make([]error, len(perm))
	var wg sync.WaitGroup
	for j, i := range perm {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[j] = n.e.Cluster.Member(i).Restart(context.WithoutCancel(ctx))
		}()
	}
	wg.Wait()
	n.heal(QuorumLoss)
	return errors.Join(errs...)
}

// blackhole partitions one holder's client for a fraction of T.
func (n *nemesis) blackhole(ctx context.Context, k FaultKind) error {
	frac := map[FaultKind]float64{Blackhole05: 0.5, Blackhole09: 0.9, Blackhole2: 2, BlackholeBrief: 0.4}[k]
	c, _ := n.target(ctx, k)
	n.log(k, []*Client{c}, 0)
	for _, p := range c.proxies {
		p.Blackhole(true)
	}
	sleepCtx(ctx, time.Duration(frac*float64(n.e.T)))
	for _, p := range c.proxies {
		p.Blackhole(false)
	}
	n.heal(k)
	return nil
}

// reset drops a holder's connections once: the client reconnects at once on the same session.
func (n *nemesis) reset(ctx context.Context) error {
	c, _ := n.target(ctx, Reset)
	n.log(Reset, []*Client{c}, 0)
	for _, p := range c.proxies {
		p.DropConnections()
	}
	n.heal(Reset)
	return nil
}

// expire closes a holder's session on the server.
func (n *nemesis) expire(ctx context.Context) error {
	c, pinned := n.target(ctx, Expire)
	id, pw, ok := c.session()
	if !ok {
		if pinned != nil {
			pinned.unpin()
		}
		return nil // reconnecting: no session to expire now
	}
	n.log(Expire, []*Client{c}, id)
	err := zktest.ExpireSession(ctx, n.e.Cluster.Member(n.rng.IntN(n.e.Cluster.Size())).Addr(), id, pw)
	n.heal(Expire)
	if errors.Is(err, zktest.ErrNoSession) || ctx.Err() != nil {
		return nil
	}
	return err
}

// cutFired ends the Note that says a cut hit a request (recorded when the cut is disarmed).
const cutFired = " fired"

// cut arms a one-shot reply cut on a random client's proxies for up to 2 s: requests with one of
// ops, and transactions whose first operation is one of multiFirst. A cut that fired is noted.
func (n *nemesis) cut(ctx context.Context, k FaultKind, multiFirst []int32, ops ...int32) error {
	c := n.e.clients[n.rng.IntN(len(n.e.clients))]
	n.record(k, []*Client{c})
	var before int64
	for _, p := range c.proxies {
		before += p.Cuts()
		p.CutReplyAfter(ops...)
		p.CutReplyAfterMulti(multiFirst...)
	}
	sleepCtx(ctx, 2*time.Second)
	var after int64
	for _, p := range c.proxies {
		p.CutReplyAfter()
		p.CutReplyAfterMulti()
		after += p.Cuts()
	}
	if after > before {
		n.e.H.Add(Event{Proc: c.Name, Kind: Note, Detail: string(k) + cutFired})
	}
	n.heal(k)
	return nil
}

// storm drops a random client's connections every 200 ms for 3 s.
func (n *nemesis) storm(ctx context.Context) error {
	n.record(ResetStorm, nil)
	for range 15 {
		c := n.e.clients[n.rng.IntN(len(n.e.clients))]
		for _, p := range c.proxies {
			p.DropConnections()
		}
		sleepCtx(ctx, 200*time.Millisecond)
	}
	n.heal(ResetStorm)
	return nil
}

// latency sets a random delay of 0..T/2 on every proxy every 200 ms for 3 s.
func (n *nemesis) latency(ctx context.Context) error {
	n.record(Latency, nil)
	for range 15 {
		for _, c := range n.e.clients {
			for _, p := range c.proxies {
				p.Delay(time.Duration(n.rng.Int64N(int64(n.e.T / 2))))
			}
		}
		sleepCtx(ctx, 200*time.Millisecond)
	}
	n.healAll()
	n.heal(Latency)
	return nil
}

// healAll undoes every client-side fault and brings every member back.
func (n *nemesis) healAll() {
	for _, c := range n.e.clients {
		for _, p := range c.proxies {
			p.Blackhole(false)
			p.Delay(0)
			p.CutReplyAfter()
			p.CutReplyAfterMulti()
		}
	}
}

// healServers resumes and restarts every member that is not serving.
func (n *nemesis) healServers(ctx context.Context) error {
	var errs []error
	for i := range n.e.Cluster.Size() {
		m := n.e.Cluster.Member(i)
		_ = m.Resume()
		if !m.Running() {
			errs = append(errs, m.Restart(ctx))
		}
	}
	return errors.Join(errs...)
}
