package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/zkrecipes/zkrecipes/framework"
)

// printSets names every set (nodes sharing one protected GUID: one transaction of zklock exec
// PATH1 PATH2 ..., or of recipes.NewTxMultiLock) with a node in more than one of reports' paths.
func printSets(w io.Writer, reports []holdersReport) {
	var guids []string
	paths := map[string][]string{}
	for _, r := range reports {
		for _, n := range slices.Concat(r.Holders, r.Queue, r.Unknown) {
			name := n.Node[strings.LastIndexByte(n.Node, '/')+1:]
			if !framework.IsProtected(name) {
				continue
			}
			g := name[:40]
			if paths[g] == nil {
				guids = append(guids, g)
			}
			paths[g] = append(paths[g], r.Path)
		}
	}
	for _, g := range guids {
		if len(paths[g]) > 1 {
			fmt.Fprintf(w, "set %s: %s\n", safeText(g), safeText(strings.Join(paths[g], " ")))
		}
	}
}
