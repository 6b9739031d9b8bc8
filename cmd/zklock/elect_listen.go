package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/leader"
	"github.com/zkrecipes/zkrecipes/retry"
)

// leaderView is what listen prints of a leader: its id, node and term's token (the node's
// czxid); the zero leaderView is "no leader".
type leaderView struct {
	id, node string
	token    int64
}

func (v leaderView) String() string {
	if v.node == "" {
		return "no leader"
	}
	// The id is any candidate's node data: escaped, so that it cannot forge a line or a field.
	return fmt.Sprintf("leader=%s node=%s token=%d", safeText(v.id), safeText(v.node), v.token)
}

// runListen is `zklock elect --listen PATH`: print the leader of the election at PATH, then
// every change, until a signal (exit 0), without taking part.
func runListen(ctx context.Context, g *globals, o electOptions, io stdio) error {
	fw, err := g.connect(ctx, "elect", io)
	if err != nil {
		return err
	}
	defer fw.Close() // the session's watches end with it
	// A selector that is never started only reads the election, in LeaderSelector's order.
	sel, err := leader.NewSelector(fw, o.path, func(context.Context, *leader.Term) error { return nil })
	if err != nil {
		return fmt.Errorf("elect --listen %s: %w", o.path, err)
	}
	err = listen(ctx, fw, sel, io.out)
	if ctx.Err() != nil {
		return nil
	}
	return fmt.Errorf("elect --listen %s: %w", o.path, err)
}

// listen prints the leader on w, then each change, until ctx ends or an error that is not the
// connection's. It waits on a children watch of the election path, or, while the path does not
// exist, on an exists watch (a container path is reaped when the last candidate leaves); no
// polling. A leader that lasted less than one re-read may be missed.
func listen(ctx context.Context, fw *framework.Framework, sel *leader.LeaderSelector, w io.Writer) error {
	var last *leaderView
	pace := retry.NewPacer(fw.RetryPolicy()) // a watch that keeps failing is set again at the policy's pace
	for ctx.Err() == nil {
		changed, err := watchElection(ctx, fw, sel.Path())
		var v leaderView
		if err == nil {
			v, err = currentLeader(ctx, fw, sel)
		}
		if err != nil {
			if ctx.Err() != nil || !connectionErr(err) {
				return err
			}
			if err := fw.WaitConnected(ctx); err != nil && !errors.Is(err, framework.ErrNoServer) {
				return err
			}
			select {
			case <-time.After(pace.Next()):
			case <-ctx.Done():
			}
			continue
		}
		pace.Reset()
		if last == nil || *last != v {
			fmt.Fprintln(w, v)
			last = &v
		}
		if _, err := changed.Wait(ctx); err != nil && !errors.Is(err, framework.ErrSessionInterrupted) {
			return err
		}
	}
	return ctx.Err()
}

// watchElection sets a watch that fires when the election at p changes: on its children, or,
// while p does not exist, on its creation.
func watchElection(ctx context.Context, fw *framework.Framework, p string) (*framework.Watch, error) {
	for {
		_, _, w, err := fw.ChildrenW(ctx, p)
		if err == nil {
			return w, nil
		}
		if !errors.Is(err, framework.ErrNoNode) {
			return nil, err
		}
		st, ew, err := fw.ExistsW(ctx, p)
		if err != nil {
			return nil, err
		}
		if st == nil {
			return ew, nil
		}
		// created between the two: its exists watch fires at its next change; list it now
	}
}

// currentLeader reads the leader of sel's election and its token (its node's czxid).
func currentLeader(ctx context.Context, fw *framework.Framework, sel *leader.LeaderSelector) (leaderView, error) {
	for {
		p, err := sel.Leader(ctx)
		if err != nil || p.Path == "" {
			return leaderView{}, err
		}
		st, err := fw.Exists(ctx, p.Path)
		if err != nil {
			return leaderView{}, err
		}
		if st != nil {
			return leaderView{id: p.ID, node: p.Path, token: st.Czxid}, nil
		}
		// the leader left while we read it: read again
	}
}

// connectionErr reports whether err is the connection's (retryable, or the session lost).
func connectionErr(err error) bool {
	return framework.Classify(err) == retry.Retryable || errors.Is(err, framework.ErrSessionLost) ||
		errors.Is(err, framework.ErrSessionInterrupted)
}
