package leader

import (
	"context"
	"strings"

	"github.com/zkrecipes/zkrecipes/recipes"
)

// Participant is one candidate of an election: its id (its node's data as UTF-8, invalid
// bytes replaced by U+FFFD as Java does), its node, and whether it is the leader (the first
// node in election order). The zero Participant stands for "no leader", as Curator's dummy. It
// is a snapshot: the candidate may have lost its session since it was read.
type Participant struct {
	ID       string
	Path     string
	IsLeader bool
}

// participants lists lock's candidates in election order, the first as leader. Nodes that
// vanish while they are read are left out; a missing election path is an empty list.
func participants(ctx context.Context, lock *recipes.Lock) ([]Participant, error) {
	ps, err := lock.Participants(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Participant, len(ps))
	for i, p := range ps {
		out[i] = Participant{ID: strings.ToValidUTF8(string(p.Data), "\uFFFD"), Path: p.Path, IsLeader: i == 0}
	}
	return out, nil
}

// leaderOf returns the first participant, or the zero Participant when there is none.
func leaderOf(ctx context.Context, lock *recipes.Lock) (Participant, error) {
	ps, err := participants(ctx, lock)
	if err != nil || len(ps) == 0 {
		return Participant{}, err
	}
	return ps[0], nil
}
