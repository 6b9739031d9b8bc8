package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/zkrecipes/zkrecipes/framework"

	"github.com/zkrecipes/zkrecipes/recipes"
)

// runRevoke is `zklock revoke NODE`.
func runRevoke(ctx context.Context, g *globals, args []string, io stdio) error {
	pos, err := parseInterleaved(g.flagSet("revoke"), args)
	if err != nil {
		return helpOrUsage(err, "revoke", io)
	}
	if len(pos) != 1 {
		return usageErr("revoke", "want one lock NODE, got %d arguments", len(pos))
	}
	if err := checkPaths(pos[0]); err != nil {
		return usageErr("revoke", "%v", err)
	}
	if err := recipes.CheckContender(pos[0]); err != nil {
		return usageErr("revoke", "%v; give a node that 'zklock holders' lists", err)
	}
	fw, err := g.connect(ctx, "revoke", io)
	if err != nil {
		return err
	}
	defer fw.Close()
	known, err := revocable(ctx, fw, pos[0])
	if err != nil {
		return err
	}
	if err := recipes.Revoke(ctx, fw, pos[0]); err != nil {
		if errors.Is(err, recipes.ErrNotContender) {
			return usageErr("revoke", "%v", err)
		}
		return err
	}
	if known {
		fmt.Fprintf(io.out, "asked the holder of %s to release it (its identity says it is revocable)\n", pos[0])
		return nil
	}
	fmt.Fprintf(io.out, "asked the holder of %s to release it (only a revocable holder reacts; "+
		"its data does not say whether it is one)\n", pos[0])
	return nil
}

// revocable reads the node at p before a revocation: a missing node is an error, and so is a
// holder whose zkrecipes identity says it is not revocable (it would never react). It reports
// whether the identity says the holder is revocable (false: it cannot be told, as for
// Curator's and kazoo's nodes, or ours written before identities recorded it).
func revocable(ctx context.Context, fw *framework.Framework, p string) (bool, error) {
	data, _, err := fw.Get(ctx, p)
	switch {
	case errors.Is(err, framework.ErrNoNode):
		return false, fmt.Errorf("revoke %s: the node does not exist: nothing to revoke (see zklock holders)", p)
	case err != nil:
		return false, fmt.Errorf("revoke %s: %w", p, err)
	}
	id, ok := recipes.ParseIdentity(data)
	switch {
	case !ok || id.Kind == "":
		return false, nil
	case !id.Revocable:
		return false, fmt.Errorf("revoke %s: the holder is not revocable (its zkrecipes identity says so: "+
			"taken without --revocable or recipes.WithRevocation), so it would not react: nothing written", p)
	}
	return true, nil
}
