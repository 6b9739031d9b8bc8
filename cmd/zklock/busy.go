package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
)

// heldByTimeout bounds the read of a busy lock's holders for the message.
const heldByTimeout = 2 * time.Second

// heldBy returns ": held by ..." naming the holders of the lock at p as zklock holders does
// (name, host and pid of a Go holder; the data of another), or "" when they cannot be read:
// the message of a busy --try says who to ask (issue 26.6).
func heldBy(ctx context.Context, fw *framework.Framework, p string) string {
	ctx, cancel := context.WithTimeout(ctx, heldByTimeout)
	defer cancel()
	r, err := collectHolders(ctx, fw, p, time.Now())
	if err != nil || len(r.Holders) == 0 {
		return ""
	}
	who := make([]string, 0, len(r.Holders))
	for _, n := range r.Holders {
		who = append(who, describeHolder(n))
	}
	return ": held by " + strings.Join(who, "; ")
}

// describeHolder names one holder node in a line. Its name, host and data are any client's
// choice: they are escaped (safeText), so that they cannot forge or hide a line of stderr.
func describeHolder(n nodeInfo) string {
	var b strings.Builder
	if id := n.Identity; id != nil {
		if id.Name != "" {
			fmt.Fprintf(&b, "%q ", id.Name)
		}
		fmt.Fprintf(&b, "pid %d on %s", id.PID, safeText(id.Host))
	} else if n.Data != "" {
		fmt.Fprintf(&b, "%s (%s)", safeText(n.Data), n.Origin)
	} else {
		fmt.Fprintf(&b, "session %s", n.Session)
	}
	fmt.Fprintf(&b, ", node %s, for %v", safeText(n.Node), time.Duration(n.AgeSeconds*float64(time.Second)).Round(time.Second))
	return b.String()
}
