package chaos

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
)

// Row 30 (issue 28, "Safety"): sticky leases under faults. The lock paths are split in two: the
// first half are mutexes, the second half read-write locks. Each sticky client (the first
// Clients-Plain sessions) owns one path of each half and takes Own % of its acquisitions there,
// the rest on the others' paths, through sticky locks (recipes.WithSticky): one lock object per
// path and client, shared by the client's workers, so that goroutines of one process re-use an
// idle node. The last Plain sessions contend with plain (non-sticky) locks on every path, and
// Curator JVMs (curator.go) with Curator's InterProcessMutex and InterProcessReadWriteLock:
// every one of them is a conflicting contender that must make a sticky idle node go.
//
// A local re-grant keeps the node, hence its fencing token (its czxid): the token separates the
// nodes, that is processes, not the goroutines of one process that re-use a node. The workers
// of this row therefore fence per node (OpSpec.FenceByNode): every hold on one node is one
// fencing epoch, and the fence checker, unchanged, requires tokens to grow strictly from one
// node to the next. A re-grant after the node went (a broken sticky lock) writes with the old,
// smaller token after the next holder's: the fence refuses it, and belief sees two believers.

// StickyIdle is how long row 30's sticky locks keep an idle node that nobody else asks for:
// short, so that the idle expiry is exercised too while a client's workers are on its other
// lock, and the idle nodes are gone well within the live-orphan check's 3 T.
const StickyIdle = 500 * time.Millisecond

// stickyRow is row 30's workload at size s: Small sessions (one of them plain) of two workers
// each, one Curator JVM, two paths per sticky client (one mutex, one read-write lock: its own),
// 90 % of a sticky client's acquisitions on its own two locks; holders stop within 0.5-2 s once
// told, so the handoff checker's margin rule applies.
func stickyRow(s Size) WorkloadSpec {
	const plain = 1
	return WorkloadSpec{Kind: WSticky, Clients: s.Small, Workers: 2, Plain: plain, Curator: 1, Paths: 2 * (s.Small - plain),
		Own: 90, CS: s.CS, StopMin: StopMin, StopMax: StopMax}
}

// stickyFaults are row 30's faults: resets, short and long blackholes, expiries, server kills
// and lost replies.
var stickyFaults = []FaultKind{Reset, BlackholeBrief, Blackhole2, Expire, KillLeader, KillFollower, CutCreate, CutDelete}

// stickyPath is one lock path of row 30 with its lockers for one client.
type stickyPath struct {
	res     string
	rw      bool
	x, r, w Locker // x for a mutex path; r and w for a read-write path
}

// stickyPicker builds client c's lockers on every path (sticky unless c is one of the last
// Plain clients) and returns how its workers choose: a sticky client Own % on its own paths.
func (s WorkloadSpec) stickyPicker(e *Env, c *Client) (Picker, error) {
	idx := len(e.clients) - 1 // c was just added
	sticky := idx < s.Clients-s.Plain
	var opts []recipes.LockOption
	if sticky {
		opts = append(opts, recipes.WithSticky(StickyIdle))
	}
	paths, err := stickyLockers(c.FW, s.lockPaths(e), opts)
	if err != nil {
		return nil, err
	}
	half := len(paths) / 2
	own := []int{idx % half, half + idx%half}
	long := 8 * e.T
	return func(rng *rand.Rand) OpSpec {
		i := rng.IntN(len(paths))
		if sticky && rng.IntN(100) < s.Own {
			i = own[rng.IntN(len(own))]
		}
		p := paths[i]
		spec := OpSpec{Locker: p.x, Res: p.res, Mode: "x", Deadline: long, Write: true, FenceByNode: sticky}
		if p.rw && rng.IntN(100) < 70 {
			spec.Locker, spec.Mode, spec.Write = p.r, "r", false
		} else if p.rw {
			spec.Locker, spec.Mode = p.w, "w"
		}
		return spec
	}, nil
}

// stickyLockers makes one lock object per path with opts: mutexes on the first half of paths,
// read-write locks on the second.
func stickyLockers(fw *framework.Framework, paths []string, opts []recipes.LockOption) ([]stickyPath, error) {
	out := make([]stickyPath, len(paths))
	for i, p := range paths {
		out[i] = stickyPath{res: p, rw: i >= len(paths)/2}
		if !out[i].rw {
			m, err := recipes.NewMutex(fw, p, opts...)
			if err != nil {
				return nil, fmt.Errorf("chaos: sticky mutex %s: %w", p, err)
			}
			out[i].x = lockOf(p, m.Lock)
			continue
		}
		rw, err := recipes.NewReadWriteLock(fw, p, opts...)
		if err != nil {
			return nil, fmt.Errorf("chaos: sticky read-write lock %s: %w", p, err)
		}
		out[i].r, out[i].w = lockOf(p, rw.ReadLock().Lock), lockOf(p, rw.WriteLock().Lock)
	}
	return out, nil
}

// nodeHold returns the fencing identity of a hold on node: the first op that held it. Node
// names are unique (a GUID and a sequence), so holds share an identity only when they re-use
// one node, which only its own session can.
func (e *Env) nodeHold(node string, op int64) int64 {
	v, _ := e.nodeHolds.LoadOrStore(node, op)
	return v.(int64)
}
