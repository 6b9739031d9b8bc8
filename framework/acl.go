package framework

import "github.com/go-zookeeper/zk"

// ACLProvider chooses the ACL of each node the Framework creates (including container parents).
// Implementations must be safe for concurrent use.
type ACLProvider interface {
	// ForPath returns the ACL for the node at the full (namespaced) path.
	ForPath(path string) []ACL
}

// ACLProviderFunc adapts a function to ACLProvider.
type ACLProviderFunc func(path string) []ACL

// ForPath calls f.
func (f ACLProviderFunc) ForPath(path string) []ACL { return f(path) }

// OpenACL is world:anyone with all permissions (ZooKeeper's OPEN_ACL_UNSAFE), the default.
func OpenACL() []ACL { return zk.WorldACL(zk.PermAll) }

// DefaultACLProvider returns OpenACL for every path.
// It returns one shared slice, which go-zookeeper only reads: no allocation per create.
func DefaultACLProvider() ACLProvider {
	open := OpenACL()
	return ACLProviderFunc(func(string) []ACL { return open })
}

// DigestACL is all permissions for the digest user (use with WithDigestAuth).
func DigestACL(user, password string) []ACL { return zk.DigestACL(zk.PermAll, user, password) }
