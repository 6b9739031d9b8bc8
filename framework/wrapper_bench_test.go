package framework_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/zkrecipes/zkrecipes/framework"
)

// BenchmarkRequestWrapper prices what every request passes through besides go-zookeeper's call
// (issue 27): the trace hook, the path check, the retry policy and its gates, Close's count,
// error mapping, and under a context that can end the hand-off to a goroutine beside the
// caller. The request sends nothing. ctx is the caller's: background (no hand-off), cancellable
// (a hand-off), or cancellable and marked Inline (a burst of the acquire loop: no hand-off);
// none runs no request, the baseline.
// cold touches 8 MB between requests, as the other processes of a contended run do between two
// of ours: the pair runs price the wrapper at 1–2 % of a contended acquisition per request,
// 3–6 µs, far above its warm cost.
func BenchmarkRequestWrapper(b *testing.B) {
	f, err := framework.New(shared.Servers())
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	wctx, cancelW := context.WithTimeout(context.Background(), bound)
	defer cancelW()
	if err := f.WaitConnected(wctx); err != nil {
		b.Fatal(err)
	}
	live, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, c := range []struct {
		name string
		ctx  context.Context
	}{
		{"none", nil}, // the loop alone, and the cold sweep's own cost: the baseline
		{"background", context.Background()},
		{"cancellable", live},
		{"inline", framework.Inline(live)},
	} {
		for _, cold := range []bool{false, true} {
			b.Run(fmt.Sprintf("ctx=%s/cold=%v", c.name, cold), func(b *testing.B) {
				var junk []byte
				if cold {
					junk = make([]byte, 8<<20)
				}
				const p = "/locks/orders"
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
					if c.ctx == nil {
						continue
					}
					if err := framework.StubRequest(f, c.ctx, p); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
