package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
)

// zklockIdentity is the data of zklock's lock and lease nodes: the identity every node
// carries, plus what holders and later zklocks need to know: for a semaphore lease the maximum
// this holder counts against, so that a zklock with another --semaphore N is refused (the
// maximum is otherwise a convention each process keeps alone); for a lock whether it honours
// revocation (holders shows it). ParseIdentity still reads it (extra JSON fields are ignored).
type zklockIdentity struct {
	recipes.Identity
	Max       int   `json:"semaphore_max,omitempty"`
	Revocable *bool `json:"revocable,omitempty"`
}

// nodeData is the node data of the lock or lease o takes (one kind: a set of mutexes or of
// --read/--write locks shares it).
func nodeData(o execOptions) []byte {
	id := zklockIdentity{Identity: recipes.NewIdentity(o.name), Max: o.semaphore}
	if o.semaphore == 0 {
		id.Revocable = &o.revocable
	}
	id.Kind = kindOf(o) // set: the recipe would re-encode an Identity without one, dropping ours
	b, _ := json.Marshal(id)
	return b
}

// kindOf is the recipe kind of the nodes o creates, as the recipe records it.
func kindOf(o execOptions) string {
	switch {
	case o.semaphore > 0:
		return recipes.KindLease
	case o.kazoo && o.read:
		return recipes.KindKazooRead
	case o.kazoo:
		return recipes.KindKazooLock
	case o.read:
		return recipes.KindRead
	case o.write:
		return recipes.KindWrite
	}
	return recipes.KindMutex
}

// zklockRevocable reads what zklockIdentity records of revocation in data, nil for other data.
func zklockRevocable(data []byte) *bool {
	var id zklockIdentity
	if _, ok := recipes.ParseIdentity(data); !ok || json.Unmarshal(data, &id) != nil {
		return nil
	}
	return id.Revocable
}

// checkLayout refuses, with a usage error, a lock whose PATH holds nodes of another recipe
// than the one o takes, saying which flags fit the path: each recipe would misread the other's
// nodes (issue 26.5, 26.6). For a semaphore it also refuses a maximum other than its holders'.
// It is one listing per path (and one read per lease for a semaphore), before our node exists.
func checkLayout(ctx context.Context, fw *framework.Framework, o execOptions) error {
	for _, p := range o.paths {
		kids, err := listChildren(ctx, fw, p)
		if err != nil {
			return err
		}
		if why := layoutConflict(o, kids); why != "" {
			return usageErr("exec", "%s %s", p, why)
		}
		if o.semaphore > 0 && slices.Contains(kids, "leases") {
			if err := checkSemaphoreMax(ctx, fw, p, o.semaphore); err != nil {
				return err
			}
		}
	}
	return nil
}

// layoutConflict says why the nodes kids of a lock path do not fit the lock o takes, or "".
func layoutConflict(o execOptions, kids []string) string {
	semaphore := slices.Contains(kids, "leases") || slices.Contains(kids, "locks")
	switch {
	case o.semaphore > 0 && !semaphore && hasKind(kids, allKinds...):
		return fmt.Sprintf("holds %s nodes, not a semaphore's: run without --semaphore%s", firstKind(kids), flagHint(kids))
	case o.semaphore > 0:
		return ""
	case semaphore:
		return "is a semaphore (it holds leases/ and locks/): take a lease with --semaphore N"
	case o.kazoo && hasKind(kids, curatorKinds...):
		return fmt.Sprintf("holds %s nodes, Curator's layout: run without --kazoo%s", firstKind(kids), flagHint(kids))
	case o.kazoo:
		return ""
	case hasKind(kids, recipes.KindKazooLock, recipes.KindKazooRead):
		return fmt.Sprintf("holds %s nodes: add --kazoo (with --read for kazoo's ReadLock)", firstKind(kids))
	case (o.read || o.write) && hasKind(kids, recipes.KindMutex, recipes.KindLatch):
		return fmt.Sprintf("holds %s nodes, not a read-write lock's: run without --read/--write", firstKind(kids))
	case !o.read && !o.write && hasKind(kids, recipes.KindRead, recipes.KindWrite):
		return fmt.Sprintf("holds %s nodes, a read-write lock's: add --read or --write", firstKind(kids))
	case hasKind(kids, recipes.KindLatch):
		return fmt.Sprintf("holds %s nodes (a LeaderLatch's election), not a lock", firstKind(kids))
	}
	return ""
}

var (
	curatorKinds = []string{recipes.KindMutex, recipes.KindLatch, recipes.KindRead, recipes.KindWrite}
	allKinds     = append(slices.Clone(curatorKinds), recipes.KindKazooLock, recipes.KindKazooRead)
)

// hasKind reports whether a node of kids is of one of kinds (by its name, RecipeOf).
func hasKind(kids []string, kinds ...string) bool {
	return slices.ContainsFunc(kids, func(k string) bool { return slices.Contains(kinds, recipes.RecipeOf(k)) })
}

// firstKind names the recipe of the first contender node of kids, with the node (escaped: any
// client names nodes).
func firstKind(kids []string) string {
	for _, k := range kids {
		if kind := recipes.RecipeOf(k); kind != recipes.KindUnknown {
			return fmt.Sprintf("%s (%s)", kind, safeText(k))
		}
	}
	return "other"
}

// flagHint suggests the flags that fit kids, after a refusal.
func flagHint(kids []string) string {
	switch {
	case hasKind(kids, recipes.KindKazooLock, recipes.KindKazooRead):
		return ", with --kazoo"
	case hasKind(kids, recipes.KindRead, recipes.KindWrite):
		return ", with --read or --write"
	}
	return ""
}

// checkSemaphoreMax refuses --semaphore max when a lease of the semaphore at p was taken by a
// zklock counting against another maximum. The lease's name and host, any client's choice,
// are escaped in the message.
func checkSemaphoreMax(ctx context.Context, fw *framework.Framework, p string, max int) error {
	dir := path.Join(p, "leases")
	leases, err := listChildren(ctx, fw, dir)
	if err != nil {
		return err
	}
	for _, l := range leases {
		data, _, err := fw.Get(ctx, path.Join(dir, l))
		if errors.Is(err, framework.ErrNoNode) {
			continue
		} else if err != nil {
			return err
		}
		var id zklockIdentity
		if json.Unmarshal(data, &id) == nil && id.Max > 0 && id.Max != max {
			return usageErr("exec", "%s is a semaphore of %d holders (lease %s, pid %d on %s took it with --semaphore %d): "+
				"--semaphore %d contradicts it", p, id.Max, safeText(l), id.PID, safeText(id.Host), id.Max, max)
		}
	}
	return nil
}
