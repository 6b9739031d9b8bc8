package zktest

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

// Special xids in ZooKeeper frames.
const (
	xidNotification int32 = -1
	xidPing         int32 = -2
)
