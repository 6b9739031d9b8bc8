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

// ZooKeeper's permissions, re-exported so callers need not import go-zookeeper: an ACL entry
// grants their sum (PermAll for every one).
const (
	PermRead   = zk.PermRead   // getData, getChildren, getACL's data part
	PermWrite  = zk.PermWrite  // setData
	PermCreate = zk.PermCreate // create children
	PermDelete = zk.PermDelete // delete children
	PermAdmin  = zk.PermAdmin  // setACL
	PermAll    = zk.PermAll
)

// WorldACL is perms for everyone (scheme world, id anyone).
func WorldACL(perms int32) []ACL { return zk.WorldACL(perms) }

// CreatorACL is ZooKeeper's CREATOR_ALL_ACL: every permission for the identities the creating
// session authenticated as (scheme "auth"), and none for anyone else. A session that
// authenticated as nobody cannot create a node with it (the server answers InvalidACL).
func CreatorACL() []ACL { return []ACL{{Perms: zk.PermAll, Scheme: "auth", ID: ""}} }

// CreatorACLProvider returns CreatorACL for every path: every node the Framework creates,
// container parents included, belongs to the credentials of WithDigestAuth. It returns one
// shared slice, which go-zookeeper only reads.
func CreatorACLProvider() ACLProvider {
	acl := CreatorACL()
	return ACLProviderFunc(func(string) []ACL { return acl })
}
