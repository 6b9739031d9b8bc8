package watchmgr

import (
	"context"
	"fmt"
	"testing"

	"github.com/go-zookeeper/zk"
)

// BenchmarkWatchLife prices the manager's books for one watch as a contended lock uses it
// (issue 27): Reserve a data watch on the node ahead, Track go-zookeeper's channel, OnFire,
// the node's deletion told by NodeEvent, the event read by Wait, and the watch forgotten by
// a later Track. live is how many other watches stay set meanwhile (a process's other
// waiters); cold touches 8 MB between cycles, as the other processes of a contended run do
// between two of ours.
func BenchmarkWatchLife(b *testing.B) {
	for _, live := range []int{0, 64} {
		for _, cold := range []bool{false, true} {
			b.Run(fmt.Sprintf("live=%d/cold=%v", live, cold), func(b *testing.B) {
				m := New(nil)
				defer m.Close()
				ctx := context.Background()
				for i := range live {
					m.Track(Data, fmt.Sprintf("/lock/_c_%036d-lock-%010d", i, i), make(chan zk.Event, 1))
				}
				paths := make([]string, 1024)
				for i := range paths {
					paths[i] = fmt.Sprintf("/lock/_c_2b6fba0c-6a7d-4c52-9d3c-%012d-lock-%010d", i, 1000+i)
				}
				var junk []byte
				if cold {
					junk = make([]byte, 8<<20)
				}
				raw := make([]chan zk.Event, len(paths))
				for i := range raw {
					raw[i] = make(chan zk.Event, 1)
				}
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if cold {
						b.StopTimer()
						for j := 0; j < len(junk); j += 64 {
							junk[j]++
						}
						b.StartTimer()
					}
					p := paths[i%len(paths)]
					ch := raw[i%len(raw)]
					_, r, err := m.Reserve(ctx, Data, p)
					if err != nil || r == nil {
						b.Fatalf("Reserve = %v, %v", r, err)
					}
					w := r.Track(ch)
					if _, now := w.OnFire(func(zk.Event) {}); now {
						b.Fatal("news before the event")
					}
					m.NodeEvent(zk.EventNodeDeleted, p)
					ch <- zk.Event{Type: zk.EventNodeDeleted, Path: p}
					if _, err := w.Wait(ctx); err != nil {
						b.Fatal(err)
					}
					if i%len(raw) == len(raw)-1 { // the channels go back to the next round
						for j := range raw {
							raw[j] = make(chan zk.Event, 1)
						}
					}
				}
			})
		}
	}
}
