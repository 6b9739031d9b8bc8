package framework_test

import (
	"errors"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// Closing the Framework from a connection-state listener (Curator's "close on Lost" pattern) must
// neither deadlock nor leave a goroutine behind.
func TestCloseFromListener(t *testing.T) {
	tests := []struct {
		name  string
		on    framework.ConnectionState
		fault func(t *testing.T, p *zktest.Proxy)
	}{
		{"lost", framework.Lost, func(t *testing.T, p *zktest.Proxy) { expire(t, p) }},
		{"suspended", framework.Suspended, func(_ *testing.T, p *zktest.Proxy) { p.DropConnections() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			zktest.CheckGoroutines(t)
			f, p, _ := proxied(t, framework.WithErrorPolicy(framework.SessionPolicy))
			closed := make(chan error, 1)
			f.AddListener(func(cs framework.ConnectionState) {
				if cs == tt.on {
					closed <- f.Close()
				}
			})
			tt.fault(t, p)
			select {
			case err := <-closed:
				if err != nil {
					t.Fatalf("Close from a listener = %v", err)
				}
			case <-time.After(bound):
				t.Fatalf("Close called from a listener on %v did not return", tt.on)
			}
			if _, err := f.Exists(testCtx(t), "/"); !errors.Is(err, framework.ErrClosed) {
				t.Fatalf("Exists after Close = %v, want ErrClosed", err)
			}
		})
	}
}
