package framework_test

import (
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// discardZKLog is a go-zookeeper logger of the user's own that prints nothing.
type discardZKLog struct{}

func (discardZKLog) Printf(string, ...any) {}

// The negotiated session timeout is the one the server sent in its ConnectResponse, whatever
// logger or go-zookeeper options the user passes: a server that forces every session to 2 s
// (its minSessionTimeout and maxSessionTimeout) moves a request of 6 s down and one of 1 s up,
// and the epoch's deadline (SessionPolicy: the whole session timeout) follows the negotiated
// value. Before, the framework read it from go-zookeeper's "authenticated" log line: with
// that line silenced it ran every timer on the requested timeout (a lease 6 s past a 2 s
// session looked live; an idle 1-s lease on a 2-s session looked lost).
func TestNegotiatedTimeoutFromConnectResponse(t *testing.T) {
	const forced = 2 * time.Second
	srv := zktest.Start(t, zktest.WithSessionTimeouts(forced, forced))
	quiet := framework.WithZKOptions(zk.WithLogInfo(false))
	ownLogger := framework.WithZKOptions(zk.WithLogger(discardZKLog{}))
	tests := []struct {
		name    string
		ask     time.Duration
		opts    []framework.Option
		silence time.Duration // how long the connection looks silent
		lost    bool          // whether the epoch must end (silence past the negotiated 2 s)
	}{
		{"down, quiet logger", 6 * time.Second, []framework.Option{quiet}, 3 * time.Second, true},
		{"down, own logger", 6 * time.Second, []framework.Option{ownLogger}, 3 * time.Second, true},
		{"up, quiet logger", time.Second, []framework.Option{quiet}, 1500 * time.Millisecond, false},
		{"up, own logger", time.Second, []framework.Option{ownLogger}, 1500 * time.Millisecond, false},
		{"down, default logger", 6 * time.Second, nil, 3 * time.Second, true},
		{"up, default logger", time.Second, nil, 1500 * time.Millisecond, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := append([]framework.Option{framework.WithSessionTimeout(tt.ask),
				framework.WithErrorPolicy(framework.SessionPolicy)}, tt.opts...)
			f := newFW(t, srv.Servers(), opts...)
			if got := f.SessionTimeout(); got != forced {
				t.Fatalf("SessionTimeout = %v, want the server's %v (asked %v)", got, forced, tt.ask)
			}
			epoch := f.Session()
			framework.SetSilence(f, tt.silence)
			if err := epoch.Err(); (err != nil) != tt.lost {
				t.Fatalf("after a silence of %v on a %v session: Err = %v, want lost=%v", tt.silence, forced, err, tt.lost)
			}
		})
	}
}
