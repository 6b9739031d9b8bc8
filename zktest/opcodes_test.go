package zktest_test

import (
	"testing"

	"github.com/zkrecipes/zkrecipes/zktest"
)

// OpName labels the counts of the bench reports: the names they printed before it (their own
// maps), and "opN" for an opcode it does not know.
func TestOpName(t *testing.T) {
	for _, tt := range []struct {
		op   int32
		want string
	}{
		{zktest.OpCreate, "create"},
		{zktest.OpGetChildren2, "getChildren2"},
		{zktest.OpCreateContainer, "createContainer"},
		{zktest.OpMulti, "multi"},
		{zktest.OpCloseSession, "closeSession"},
		{zktest.OpSetWatches2, "setWatches2"},
		{zktest.OpPing, "ping"},
		{99, "op99"},
	} {
		if got := zktest.OpName(tt.op); got != tt.want {
			t.Errorf("OpName(%d) = %q, want %q", tt.op, got, tt.want)
		}
	}
}
