package main

import (
	"context"
	"errors"
	"fmt"

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
	if err := recipes.Revoke(ctx, fw, pos[0]); err != nil {
		if errors.Is(err, recipes.ErrNotContender) {
			return usageErr("revoke", "%v", err)
		}
		return err
	}
	fmt.Fprintf(io.out, "asked the holder of %s to release it (only a revocable holder reacts)\n", pos[0])
	return nil
}
