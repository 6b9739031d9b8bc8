// Package zkpeers holds the benchmark peers built directly on go-zookeeper v1.0.4: the raw
// request floor (plain ZooKeeper operations, no recipe) and go-zookeeper's own zk.Lock.
package zkpeers
