package main

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/zkrecipes/zkrecipes/driver"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
)

// nodeInfo is one contender node as holders shows it.
type nodeInfo struct {
	Node string `json:"node"`
	Kind string `json:"kind"` // the recipe (see nodeKind)
	// Data is the node's data as text. Data that is not valid UTF-8 cannot be a JSON string
	// exactly (its bad bytes become U+FFFD here): DataBase64 then holds the exact bytes.
	Data       string            `json:"data"`
	DataBase64 string            `json:"data_base64,omitempty"`
	Session    string            `json:"session"` // the ephemeral owner, in hex
	Created    time.Time         `json:"created"`
	AgeSeconds float64           `json:"age_seconds"`
	Origin     recipes.Origin    `json:"origin"` // go, java or unknown from the data; python from a kazoo name
	Identity   *recipes.Identity `json:"identity,omitempty"`
	// Revocable says whether the holder honours a revocation (zklock revoke): known for zklock's
	// nodes (recorded in their data), absent for others.
	Revocable *bool `json:"revocable,omitempty"`
	// Foreign marks a node that is not ephemeral: no contender made it and no session's end
	// removes it (recipes.ErrForeignNode). The recipes refuse to queue behind it.
	Foreign bool `json:"foreign,omitempty"`
	owner   int64
	name    string
}

// holdersReport is a lock's state: holders first, then the queue.
type holdersReport struct {
	Path    string     `json:"path"`
	Kind    string     `json:"kind"` // see dirKind; kazoo for a kazoo lock
	Holders []nodeInfo `json:"holders"`
	Queue   []nodeInfo `json:"queue"`
	// Unknown are the nodes of a kind whose predicate zklock does not know (a custom lock, an
	// unrecognised name), in queue order: it claims neither that they hold nor that they wait.
	Unknown []nodeInfo `json:"unknown"`
}

// collectHolders reads the lock at p and sorts its nodes into holders and
// queue with the recipes' own predicates.
func collectHolders(ctx context.Context, fw *framework.Framework, p string, now time.Time) (holdersReport, error) {
	r := holdersReport{Path: p, Kind: "none", Holders: []nodeInfo{}, Queue: []nodeInfo{}, Unknown: []nodeInfo{}}
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
	kazoo := !rw && slices.ContainsFunc(kids, isKazooName)
	sorted := sortBySequence(kids)
	switch {
	case rw:
		sorted = driver.Sort(driver.Write(), kids)
	case kazoo:
		sorted = driver.Sort(driver.KazooLock(), kids)
	}
	nodes, err := readNodes(ctx, fw, p, sorted, now)
	if err != nil {
		return r, err
	}
	if r.Kind = dirKind(nodes); kazoo && len(nodes) > 0 {
		r.Kind = "kazoo"
	}
	names := make([]string, len(nodes))
	for i, n := range nodes {
		names[i] = n.name
	}
	for i, n := range nodes {
		switch {
		case !knownPredicate(n.Kind, kazoo):
			r.Unknown = append(r.Unknown, n)
		case kazoo && decideKazoo(names, i).Holds, !kazoo && decide(nodes, names, i).Holds:
			r.Holders = append(r.Holders, n)
		default:
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
	case recipes.KindRead:
		writer := ""
		for _, n := range nodes {
			if n.Kind == recipes.KindWrite && n.owner == nodes[i].owner &&
				driver.KeyAfter(n.name, driver.WriteLockName) == driver.KeyAfter(nodes[i].name, driver.ReadLockName) {
				writer = n.name
			}
		}
		return driver.Read(writer).Decide(v)
	case recipes.KindWrite:
		return driver.Write().Decide(v)
	}
	return driver.Exclusive().Decide(v)
}

// knownPredicate reports whether zklock knows the predicate of a node of kind: on a kazoo path
// kazoo's (decideKazoo), else the exclusive one (the first node holds; a selector is a mutex, a
// latch's leader is its first node) or a read-write lock's (decide). A semaphore is read by
// collectSemaphore.
func knownPredicate(kind string, kazoo bool) bool {
	if kazoo {
		return kind == recipes.KindKazooLock || kind == recipes.KindKazooRead
	}
	switch kind {
	case recipes.KindMutex, recipes.KindSelector, recipes.KindLatch, recipes.KindRead, recipes.KindWrite:
		return true
	}
	return false
}

// dirKind names a lock directory's recipe from its nodes' kinds: "rwlock" with any read or
// write node, the one kind they all share ("mutex" for mutexes and selectors together: Curator's
// selectors show as mutexes), "mixed" otherwise, "none" without nodes.
func dirKind(nodes []nodeInfo) string {
	kinds := map[string]bool{}
	for _, n := range nodes {
		kinds[n.Kind] = true
	}
	switch {
	case len(kinds) == 0:
		return "none"
	case kinds[recipes.KindRead] || kinds[recipes.KindWrite]:
		return "rwlock"
	case len(kinds) == 2 && kinds[recipes.KindMutex] && kinds[recipes.KindSelector]:
		return recipes.KindMutex
	case len(kinds) == 1:
		return nodes[0].Kind
	}
	return "mixed"
}

// sortBySequence orders contender names by driver.SequenceKey (their 10-digit sequence), as
// every recipe of Curator's layout does whatever its lock name; the listing's order breaks
// ties, as in the engine.
func sortBySequence(names []string) []string {
	out := slices.Clone(names)
	slices.SortStableFunc(out, func(a, b string) int { return strings.Compare(driver.SequenceKey(a), driver.SequenceKey(b)) })
	return out
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
	setKind(leases, recipes.KindLease) // the semaphore's layout says what each node is
	setKind(locks, recipes.KindSemaphoreLock)
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

func setKind(nodes []nodeInfo, kind string) {
	for i := range nodes {
		nodes[i].Kind = kind
	}
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
		Node: p, Kind: nodeKind(name, data), Data: string(data),
		Session: sessionHex(st.EphemeralOwner), Created: created.UTC(),
		AgeSeconds: max(now.Sub(created), 0).Seconds(), Origin: recipes.NodeOrigin(data),
		owner: st.EphemeralOwner, name: name, Foreign: !recipes.IsEphemeralOwner(st.EphemeralOwner),
	}
	if !utf8.Valid(data) {
		n.DataBase64 = base64.StdEncoding.EncodeToString(data)
	}
	if id, ok := recipes.ParseIdentity(data); ok {
		n.Identity = &id
		n.Revocable = zklockRevocable(data)
	}
	if driver.IsKazooNode(name) {
		n.Origin = recipes.OriginPython // data: kazoo's identifier
	}
	if framework.HasProtectedTag(name, electTag) {
		n.Origin, n.Kind = originZklock, recipes.KindSelector // data: the candidate id
	}
	return n
}

// nodeKind is the recipe of a node: the kind our Identity records in its data, else what its
// name tells (recipes.RecipeOf: a Curator node, or ours written before kinds were recorded),
// else recipes.KindUnknown.
func nodeKind(name string, data []byte) string {
	if id, ok := recipes.ParseIdentity(data); ok && id.Kind != "" {
		return id.Kind
	}
	return recipes.RecipeOf(name)
}

func sessionHex(id int64) string { return fmt.Sprintf("0x%x", uint64(id)) }

// originZklock is the origin holders shows for zklock's own elect candidates, recognised by
// electTag in their node's GUID: their data is only the candidate id (what Curator reads).
const originZklock recipes.Origin = "zklock"

// electTag begins the GUID of every node zklock elect creates ("zk lock", in hex): it marks
// them without touching their data (framework.WithProtectedTag).
const electTag = "7a6b6c6b"
