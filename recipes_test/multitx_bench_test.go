package recipes_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// BenchmarkMultiLock measures uncontended acquire+release cycles of a multi-lock over k paths
// (k = 1, 2, 4, 8), transactional (one multi + k listings in flight together, one multi to
// release) against sequential (k create+list round trips, k deletes), and a single mutex as the
// baseline. Besides ns/op (the mean cycle) it reports p50-acquire-ns and p50-cycle-ns: the
// target is a transactional k=4 acquire at most 1.5x a single lock's.
func BenchmarkMultiLock(b *testing.B) {
	b.Run("single", func(b *testing.B) {
		m := mustMutex(b, benchClient(b), lockPath(b))
		benchCycles(b, func(ctx context.Context) (func(context.Context) error, error) {
			l, err := m.Acquire(ctx)
			if err != nil {
				return nil, err
			}
			return l.Release, nil
		})
	})
	for _, mode := range []string{"tx", "seq"} {
		for _, k := range []int{1, 2, 4, 8} {
			b.Run(fmt.Sprintf("mode=%s/k=%d", mode, k), func(b *testing.B) {
				fw, p := benchClient(b), lockPath(b)
				paths := make([]string, k)
				for i := range paths {
					paths[i] = fmt.Sprintf("%s/p%d", p, i)
				}
				newMulti := recipes.NewMultiMutex
				if mode == "tx" {
					newMulti = recipes.NewTxMultiMutex
				}
				m, err := newMulti(fw, paths...)
				if err != nil {
					b.Fatal(err)
				}
				benchCycles(b, func(ctx context.Context) (func(context.Context) error, error) {
					l, err := m.Acquire(ctx)
					if err != nil {
						return nil, err
					}
					return l.Release, nil
				})
			})
		}
	}
}

// benchClient connects a client with a 10 s session.
func benchClient(b *testing.B) *framework.Framework {
	return zktest.Connect(b, shared, framework.WithSessionTimeout(10*time.Second))
}

// benchCycles runs b.N acquire+release cycles (after one warm-up that creates the parents) and
// reports the medians of the acquire and of the whole cycle.
func benchCycles(b *testing.B, acquire func(context.Context) (func(context.Context) error, error)) {
	ctx := context.Background()
	cycle := func() (time.Duration, time.Duration) {
		start := time.Now()
		release, err := acquire(ctx)
		if err != nil {
			b.Fatal(err)
		}
		acquired := time.Since(start)
		if err := release(ctx); err != nil {
			b.Fatal(err)
		}
		return acquired, time.Since(start)
	}
	cycle()
	acq, all := make([]time.Duration, 0, b.N), make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		a, c := cycle()
		acq, all = append(acq, a), append(all, c)
	}
	b.StopTimer()
	slices.Sort(acq)
	slices.Sort(all)
	b.ReportMetric(float64(acq[len(acq)/2]), "p50-acquire-ns")
	b.ReportMetric(float64(all[len(all)/2]), "p50-cycle-ns")
}
