package leader

import (
	"fmt"
	"time"

	"github.com/zkrecipes/zkrecipes/recipes"
)

// CloseMode says whether closing a latch that leads tells its listeners (Curator's CloseMode).
type CloseMode int

const (
	// CloseSilent (the default) closes without calling any listener.
	CloseSilent CloseMode = iota
	// CloseNotifyLeader calls NotLeader on the listeners if the latch led when it was closed.
	CloseNotifyLeader
)

// State is the life cycle of a latch or selector: Latent, then Started, then Closed. Session
// loss never changes it: a started recipe stays started and re-enters.
type State int

// States.
const (
	Latent  State = iota // created, not started
	Started              // taking part in the election
	Closed               // closed; it cannot be started again
)

// String names the state as Curator does.
func (s State) String() string {
	switch s {
	case Latent:
		return "LATENT"
	case Started:
		return "STARTED"
	case Closed:
		return "CLOSED"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// Option configures a LeaderLatch or a LeaderSelector; options do no I/O.
type Option func(*options)

type options struct {
	id          string
	idSet       bool
	closeMode   CloseMode
	modeSet     bool
	autoRequeue bool
	grace       time.Duration
	graceSet    bool
	err         error
}

func (o *options) fail(format string, args ...any) {
	if o.err == nil {
		o.err = fmt.Errorf("%w: "+format, append([]any{ErrInvalidArgument}, args...)...)
	}
}

// WithID sets the candidate's id, stored as the data of its node and shown by Participants
// and Leader (default ""; a selector with an empty id stores the framework's default data).
func WithID(id string) Option {
	return func(o *options) { o.id, o.idSet = id, true }
}

// WithCloseMode sets a latch's close mode (default CloseSilent). A selector refuses it.
func WithCloseMode(m CloseMode) Option {
	return func(o *options) {
		if m != CloseSilent && m != CloseNotifyLeader {
			o.fail("close mode %d", int(m))
		}
		o.closeMode, o.modeSet = m, true
	}
}

// WithAutoRequeue makes a selector re-enter the election every time its takeover returns or
// its leadership is lost, until it is closed (Curator's autoRequeue). A latch refuses it: it
// always re-enters.
func WithAutoRequeue() Option {
	return func(o *options) { o.autoRequeue = true }
}

// WithLossGrace sets how long the node of a selector's lost term is kept, while its session
// lives, for the takeover function to return (default: the framework's session timeout; see
// recipes.WithLossGrace). The term's context is cancelled at the loss either way; the grace
// only bounds how long the next candidate waits for a takeover that does not return. A latch
// refuses it: it deletes a lost term's node at once and re-enters, as Curator's reset does. A
// negative grace is ErrInvalidArgument.
func WithLossGrace(d time.Duration) Option {
	return func(o *options) {
		if d < 0 {
			o.fail("loss grace %v, want >= 0", d)
		}
		o.grace, o.graceSet = d, true
	}
}

// lockOptions are the lock options o asks for, for a lock of the recipe kind.
func (o *options) lockOptions(kind string) []recipes.LockOption {
	opts := []recipes.LockOption{recipes.WithKind(kind)}
	if o.graceSet {
		opts = append(opts, recipes.WithLossGrace(o.grace))
	}
	return opts
}

// build applies opts and refuses nil ones.
func build(opts []Option) (options, error) {
	var o options
	for _, opt := range opts {
		if opt == nil {
			return o, fmt.Errorf("%w: nil option", ErrInvalidArgument)
		}
		opt(&o)
	}
	return o, o.err
}
