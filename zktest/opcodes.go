package zktest

import "fmt"

// ZooKeeper request opcodes, as they appear in a request header. The Proxy
// counts requests by these values.
const (
	OpNotify          int32 = 0
	OpCreate          int32 = 1
	OpDelete          int32 = 2
	OpExists          int32 = 3
	OpGetData         int32 = 4
	OpSetData         int32 = 5
	OpGetACL          int32 = 6
	OpSetACL          int32 = 7
	OpGetChildren     int32 = 8
	OpSync            int32 = 9
	OpPing            int32 = 11
	OpGetChildren2    int32 = 12
	OpCheck           int32 = 13
	OpMulti           int32 = 14
	OpCreate2         int32 = 15
	OpReconfig        int32 = 16
	OpCheckWatches    int32 = 17
	OpRemoveWatches   int32 = 18
	OpCreateContainer int32 = 19
	OpCreateTTL       int32 = 21
	OpMultiRead       int32 = 22
	OpSetAuth         int32 = 100
	OpSetWatches      int32 = 101
	OpSetWatches2     int32 = 105
	OpAddWatch        int32 = 106
	OpCloseSession    int32 = -11
)

// opNames are the opcodes' names as ZooKeeper's OpCode spells them.
var opNames = map[int32]string{
	OpNotify: "notification", OpCreate: "create", OpDelete: "delete", OpExists: "exists",
	OpGetData: "getData", OpSetData: "setData", OpGetACL: "getACL", OpSetACL: "setACL",
	OpGetChildren: "getChildren", OpSync: "sync", OpPing: "ping", OpGetChildren2: "getChildren2",
	OpCheck: "check", OpMulti: "multi", OpCreate2: "create2", OpReconfig: "reconfig",
	OpCheckWatches: "checkWatches", OpRemoveWatches: "removeWatches",
	OpCreateContainer: "createContainer", OpCreateTTL: "createTTL", OpMultiRead: "multiRead",
	OpSetAuth: "auth", OpSetWatches: "setWatches", OpSetWatches2: "setWatches2",
	OpAddWatch: "addWatch", OpCloseSession: "closeSession",
}

// OpName returns opcode op's name as ZooKeeper spells it ("getChildren2"), or "opN" for an
// opcode this list does not know: the label of a request count in a report.
func OpName(op int32) string {
	if name, ok := opNames[op]; ok {
		return name
	}
	return fmt.Sprintf("op%d", op)
}

// Special xids in ZooKeeper frames.
const (
	xidNotification int32 = -1
	xidPing         int32 = -2
)
