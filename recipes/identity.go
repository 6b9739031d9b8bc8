package recipes

import (
	"bytes"
	"encoding/json"
	"net/netip"
	"os"
	"unicode/utf8"
)

// IdentityLib is the Lib value of identities written by this library.
const IdentityLib = "zkrecipes-go"

// Identity says who created a lock node: written as its data by default,
// shown by zklock holders. It is plain data, safe to copy and compare.
type Identity struct {
	Lib  string `json:"lib"`            // always IdentityLib for our nodes
	Host string `json:"host,omitempty"` // os.Hostname of the creating process
	PID  int    `json:"pid,omitempty"`  // process id of the creating process
	Name string `json:"name,omitempty"` // optional, chosen by the user (a worker or job name)
	// Kind is the recipe that created the node (KindMutex, KindRead, KindSelector,
	// CustomKind(lockName), ...), written by each recipe into its node's Identity; empty in
	// data written before it existed, or by hand. Curator never reads it: it only shows a
	// node's data.
	Kind string `json:"kind,omitempty"`
	// Revocable says that the holder reacts to Revoke (WithRevocation): recorded by each lock of
	// ours in its nodes' Identity, so that zklock revoke can tell a holder that will not react.
	// False also in data written before it existed: only Lib and Kind set means "not known".
	Revocable bool `json:"revocable,omitempty"`
}

// NewIdentity describes this process: its host name, its pid, and name
// (which may be empty). It does no network I/O; an unknown host name is
// left empty.
func NewIdentity(name string) Identity {
	host, _ := os.Hostname()
	return Identity{Lib: IdentityLib, Host: host, PID: os.Getpid(), Name: name}
}

// Encode returns the identity as compact JSON, for example
// {"lib":"zkrecipes-go","host":"web-1","pid":4242,"name":"backup","kind":"mutex"}.
func (id Identity) Encode() []byte {
	id.Lib = IdentityLib
	b, err := json.Marshal(id)
	if err != nil { // unreachable: the struct holds only strings and an int
		return []byte(`{"lib":"` + IdentityLib + `"}`)
	}
	return b
}

// ParseIdentity decodes node data written by Encode. ok is false for any
// other data, including JSON whose lib is not "zkrecipes-go".
func ParseIdentity(data []byte) (id Identity, ok bool) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return Identity{}, false
	}
	if err := json.Unmarshal(data, &id); err != nil || id.Lib != IdentityLib {
		return Identity{}, false
	}
	return id, true
}

// Origin says which library probably created a lock node, judged from its
// data alone.
type Origin string

// The origins NodeOrigin reports.
const (
	// OriginGo is a node whose data is our Identity JSON.
	OriginGo Origin = "go"
	// OriginJava is a node whose data is what Curator writes by default: the
	// creating host's IP address as text (CuratorFrameworkFactory's
	// getLocalAddress).
	OriginJava Origin = "java"
	// OriginPython is a node created by kazoo (Python): zklock holders tells it from its name
	// (driver.IsKazooNode); its data is kazoo's identifier. NodeOrigin never reports it.
	OriginPython Origin = "python"
	// OriginUnknown is anything else: empty data (a revocable lock in either
	// library, or a Go node written before identities existed), "__REVOKE__"
	// (a pending revocation), or data the application chose.
	OriginUnknown Origin = "unknown"
)

// NodeOrigin classifies a lock node's data as OriginGo, OriginJava or
// OriginUnknown. It does no I/O.
func NodeOrigin(data []byte) Origin {
	if _, ok := ParseIdentity(data); ok {
		return OriginGo
	}
	if isIPText(data) {
		return OriginJava
	}
	return OriginUnknown
}

// isIPText reports whether data is exactly an IPv4 or IPv6 address in text,
// as Java's InetAddress.getHostAddress prints it (IPv6 may carry a %scope).
func isIPText(data []byte) bool {
	if len(data) == 0 || len(data) > 64 || !utf8.Valid(data) {
		return false
	}
	_, err := netip.ParseAddr(string(data))
	return err == nil
}

// withRevocable returns data with Revocable set when data is our Identity; any other data is
// returned as it is.
func withRevocable(data []byte) []byte {
	id, ok := ParseIdentity(data)
	if !ok || id.Revocable {
		return data
	}
	id.Revocable = true
	return id.Encode()
}

// withKind returns data with kind recorded when data is our Identity without a kind; any other
// data (the application's, Curator's, an Identity that names its kind) is returned as it is.
func withKind(data []byte, kind string) []byte {
	id, ok := ParseIdentity(data)
	if !ok || id.Kind != "" || kind == "" {
		return data
	}
	id.Kind = kind
	return id.Encode()
}
