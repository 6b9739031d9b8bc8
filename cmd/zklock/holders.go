package main

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/zkrecipes/zkrecipes/driver"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
)

// nodeInfo is one contender node as holders shows it.
type nodeInfo struct {
	Node       string            `json:"node"`
	Kind       string            `json:"kind"` // lock, read, write, lease (kazoo: lock or read)
	Data       string            `json:"data"`
	Session    string            `json:"session"` // the ephemeral owner, in hex
	Created    time.Time         `json:"created"`
	AgeSeconds float64           `json:"age_seconds"`
	Origin     recipes.Origin    `json:"origin"` // go, java or unknown from the data; python from a kazoo name
	Identity   *recipes.Identity `json:"identity,omitempty"`
	owner      int64
	name       string
}

// holdersReport is a lock's state: holders first, then the queue.
type holdersReport struct {
	Path    string     `json:"path"`
	Kind    string     `json:"kind"` // mutex, rwlock, semaphore, kazoo, or none
	Holders []nodeInfo `json:"holders"`
	Queue   []nodeInfo `json:"queue"`
}

// collectHolders reads the lock at p and sorts its nodes into holders and
// queue with the recipes' own predicates.
func collectHolders(ctx context.Context, fw *framework.Framework, p string, now time.Time) (holdersReport, error) {
	r := holdersReport{Path: p, Kind: "none", Holders: []nodeInfo{}, Queue: []nodeInfo{}}
	kids, err := listChildren(ctx, fw, p)
	if err != nil || len(kids) == 0 {
		return r, err
	}
	if slices.Contains(kids, "leases") || slices.Contains(kids, "locks") {
		r.Kind = "semaphore"
		return r, collectSemaphore(ctx, fw, &r, now)
	}
	rw := slices.ContainsFunc(kids, func(k string) bool {
		return strings.Contains(k, driver.ReadLockName) || strings.Contains(k, driver.WriteLockName)
	})
	drv := driver.Exclusive()
	if r.Kind = "mutex"; rw {
		r.Kind, drv = "rwlock", driver.Write()
	} else if slices.ContainsFunc(kids, isKazooName) {
		r.Kind, drv = "kazoo", driver.KazooLock()
	}
	nodes, err := readNodes(ctx, fw, p, driver.Sort(drv, kids), now)
	if err != nil {
		return r, err
	}
	names := make([]string, len(nodes))
	for i, n := range nodes {
		names[i] = n.name
	}
	for i, n := range nodes {
		dec := decide(nodes, names, i)
		if r.Kind == "kazoo" {
			dec = decideKazoo(names, i)
		}
		if dec.Holds {
			r.Holders = append(r.Holders, n)
		} else {
			r.Queue = append(r.Queue, n)
		}
	}
	return r, nil
}

// decide applies the predicate of node i's kind. A reader with the sequence
// and the session of a listed writer is that writer's downgrade.
func decide(nodes []nodeInfo, names []string, i int) driver.Decision {
	v := driver.View{Sorted: names, Index: i}
	switch nodes[i].Kind {
	case "read":
		writer := ""
		for _, n := range nodes {
			if n.Kind == "write" && n.owner == nodes[i].owner &&
				driver.KeyAfter(n.name, driver.WriteLockName) == driver.KeyAfter(nodes[i].name, driver.ReadLockName) {
				writer = n.name
			}
		}
		return driver.Read(writer).Decide(v)
	case "write":
		return driver.Write().Decide(v)
	}
	return driver.Exclusive().Decide(v)
}

// isKazooName reports whether name is a node of a kazoo lock: kazoo's own, or ours (--kazoo).
func isKazooName(name string) bool {
	return strings.Contains(name, driver.KazooLockName) || driver.IsKazooReader(name)
}

// decideKazoo applies kazoo's predicates to node i of a kazoo lock: a reader waits for earlier
// non-readers, any other node for every earlier node.
func decideKazoo(names []string, i int) driver.Decision {
	v := driver.View{Sorted: names, Index: i}
	if driver.IsKazooReader(names[i]) {
		return driver.KazooRead().Decide(v)
	}
	return driver.KazooLock().Decide(v)
}

// collectSemaphore splits a semaphore's leases: the newest lease of the
// session that holds the internal lock is still waiting (the holder of that
// lock waits until the leases fit the maximum), the others are held; the
// other contenders of the internal lock queue behind it.
func collectSemaphore(ctx context.Context, fw *framework.Framework, r *holdersReport, now time.Time) error {
	leaseDir, lockDir := path.Join(r.Path, "leases"), path.Join(r.Path, "locks")
	leases, err := readDir(ctx, fw, leaseDir, driver.Semaphore(1), now)
	if err != nil {
		return err
	}
	locks, err := readDir(ctx, fw, lockDir, driver.Exclusive(), now)
	if err != nil {
		return err
	}
	waiting := -1
	if len(locks) > 0 {
		for i, l := range leases {
			if l.owner == locks[0].owner {
				waiting = i
			}
		}
	}
	for i, l := range leases {
		if i != waiting {
			r.Holders = append(r.Holders, l)
		}
	}
	switch {
	case waiting >= 0:
		r.Queue = append(r.Queue, leases[waiting])
	case len(locks) > 0:
		r.Queue = append(r.Queue, locks[0])
	}
	if len(locks) > 1 {
		r.Queue = append(r.Queue, locks[1:]...)
	}
	return nil
}

// readDir lists dir and reads its nodes in drv's order.
func readDir(ctx context.Context, fw *framework.Framework, dir string, drv driver.Driver, now time.Time) ([]nodeInfo, error) {
	kids, err := listChildren(ctx, fw, dir)
	if err != nil {
		return nil, err
	}
	return readNodes(ctx, fw, dir, driver.Sort(drv, kids), now)
}

// listChildren lists p; a missing p has no children.
func listChildren(ctx context.Context, fw *framework.Framework, p string) ([]string, error) {
	kids, _, err := fw.Children(ctx, p)
	if errors.Is(err, framework.ErrNoNode) {
		return nil, nil
	}
	return kids, err
}

// readNodes reads each named child of dir, in order, leaving out those that
// vanished since the listing.
func readNodes(ctx context.Context, fw *framework.Framework, dir string, names []string, now time.Time) ([]nodeInfo, error) {
	out := make([]nodeInfo, 0, len(names))
	for _, name := range names {
		p := path.Join(dir, name)
		data, st, err := fw.Get(ctx, p)
		if errors.Is(err, framework.ErrNoNode) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, describeNode(p, name, data, st, now))
	}
	return out, nil
}

// describeNode builds a nodeInfo from a node's data and stat.
func describeNode(p, name string, data []byte, st *framework.Stat, now time.Time) nodeInfo {
	created := time.UnixMilli(st.Ctime)
	n := nodeInfo{
		Node: p, Kind: nodeKind(name), Data: string(data),
		Session: sessionHex(st.EphemeralOwner), Created: created.UTC(),
		AgeSeconds: max(now.Sub(created), 0).Seconds(), Origin: recipes.NodeOrigin(data),
		owner: st.EphemeralOwner, name: name,
	}
	if id, ok := recipes.ParseIdentity(data); ok {
		n.Identity = &id
	}
	if driver.IsKazooNode(name) {
		n.Origin = recipes.OriginPython // data: kazoo's identifier
	}
	return n
}

func nodeKind(name string) string {
	switch {
	case strings.Contains(name, driver.ReadLockName), driver.IsKazooReader(name):
		return "read"
	case strings.Contains(name, driver.WriteLockName):
		return "write"
	case strings.Contains(name, driver.LeaseLockName):
		return "lease"
	}
	return "lock"
}

func sessionHex(id int64) string { return fmt.Sprintf("0x%x", uint64(id)) }
