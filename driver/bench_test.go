package driver

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// contenders returns n shuffled protected mutex names (seeded) and the last one in order.
func contenders(n int, lockName string) ([]string, string) {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("_c_%08x-9423-4e0c-a7b5-9f819e3ec2e1-%s%010d", i*2654435761%(1<<32), lockName, i)
	}
	last := names[n-1]
	r := rand.New(rand.NewPCG(1, 2))
	r.Shuffle(n, func(i, j int) { names[i], names[j] = names[j], names[i] })
	return names, last
}

func BenchmarkEvaluate(b *testing.B) {
	for _, n := range []int{10, 64, 10000} {
		for _, tc := range []struct {
			name string
			d    Driver
			lock string
		}{
			{"Exclusive", Exclusive(), MutexLockName},
			{"Read", Read(""), ReadLockName},
			{"Semaphore", Semaphore(n / 2), LeaseLockName},
		} {
			children, our := contenders(n, tc.lock)
			b.Run(fmt.Sprintf("%s/n=%d", tc.name, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, _, err := Evaluate(tc.d, children, our, nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
