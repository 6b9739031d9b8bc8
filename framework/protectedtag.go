package framework

import "strings"

// protectedTagLen is the length of a GUID tag: the UUID's first group, 8 hex digits.
const protectedTagLen = 8

// WithProtectedTag makes every protected create of this framework use GUIDs that begin with tag,
// 8 lowercase hex digits (the UUID's first group); the other 90 bits stay random, so the GUID
// still finds our node after a connection loss. The GUID is the one part of a lock node's name
// that Curator and kazoo never interpret, and it is there before any data is read: a tool can
// mark its own nodes without changing what other clients see as their data (zklock marks its
// elect candidates, whose data is the candidate id that Curator's getParticipants reads).
func WithProtectedTag(tag string) Option {
	return func(c *config) {
		if !validProtectedTag(tag) {
			c.fail("protected tag %q, want 8 lowercase hex digits", tag)
			return
		}
		c.protectedTag = tag
	}
}

// HasProtectedTag reports whether name is a protected node name whose GUID begins with tag.
func HasProtectedTag(name, tag string) bool {
	return validProtectedTag(tag) && IsProtected(name) && name[3:3+protectedTagLen] == tag
}

func validProtectedTag(tag string) bool {
	return len(tag) == protectedTagLen && strings.Trim(tag, "0123456789abcdef") == ""
}

// protectedID returns a new GUID for a protected create of f: random, with f's tag if any.
func protectedID(f *Framework) string {
	id := newGUID()
	if f != nil && f.cfg.protectedTag != "" {
		id = f.cfg.protectedTag + id[protectedTagLen:]
	}
	return id
}
