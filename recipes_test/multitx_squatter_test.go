package recipes_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/recipes"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// A squatter in one directory of a transactional multi-lock (lockSquatters: a persistent node
// with a lock's name or a junk name, an ephemeral one with no lock name) is a foreign node, as for a single lock (TestSquatterIsAForeignNode):
// Acquire and TryAcquire fail at once with ErrForeignNode naming it, wherever it sits in the set,
// and the set we queued is deleted: the squatter is the only node left in any directory.
// TryAcquire used to say ErrLocked ("by another contender") for a squatter with a lock's name.
func TestTxMultiLockSquatterIsAForeignNode(t *testing.T) {
	zk := shared
	fw := zktest.Connect(t, zk)
	type tc struct {
		name, node string
		mode       framework.Mode
		at         int // the directory of the three that holds the squatter
		try        bool
	}
	var cases []tc
	for _, n := range lockSquatters {
		for _, at := range []int{0, 2} {
			for _, try := range []bool{false, true} {
				cases = append(cases, tc{n.name, n.node, n.mode, at, try})
			}
		}
	}
	for _, tt := range cases {
		name := tt.name + map[int]string{0: "/first", 2: "/later"}[tt.at] + map[bool]string{false: "/Acquire", true: "/TryAcquire"}[tt.try]
		t.Run(name, func(t *testing.T) {
			p := lockPath(t)
			dirs := []string{p + "/a", p + "/b", p + "/c"}
			squat := dirs[tt.at] + "/" + tt.node
			if _, err := fw.Create(ctxFor(t, 10*time.Second), squat, nil, framework.WithMode(tt.mode), framework.CreatingParents()); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { fw.Delete(context.Background(), squat) })
			m := mustTx(t, fw, dirs...)
			acquire := m.Acquire
			if tt.try {
				acquire = m.TryAcquire
			}
			l, err := acquire(ctxFor(t, 20*time.Second))
			if err == nil {
				releaseMulti(t, l)
				t.Fatal("acquired beside a squatter")
			}
			var fe *recipes.ForeignNodeError
			if !errors.Is(err, recipes.ErrForeignNode) || !errors.As(err, &fe) || fe.Path != squat || !strings.Contains(err.Error(), squat) {
				t.Fatalf("%v, want ErrForeignNode naming %s", err, squat)
			}
			want := []int{0, 0, 0}
			want[tt.at] = 1
			zktest.Eventually(t, 10*time.Second, "only the squatter left", func() bool {
				return slices.Equal(countNodes(t, fw, dirs...), want) &&
					slices.Equal(zktest.Children(t, fw, dirs[tt.at]), []string{tt.node})
			})
		})
	}
}
