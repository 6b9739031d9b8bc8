package framework

import (
	"fmt"
	"strings"
	"sync/atomic"
	"unicode/utf8"
)

// MaxDataSize is the largest node data the Framework sends: ZooKeeper's default jute.maxbuffer
// (0xfffff bytes). Larger data fails with ErrDataTooLarge before any request.
const MaxDataSize = 0xfffff

// ValidatePath checks a namespace-relative path for a write: it must be absolute, must not be "/"
// itself, end with "/", contain "//", "." or ".." segments, control characters, invalid UTF-8 or
// the characters ZooKeeper refuses (U+D800-U+F8FF, U+FFF0-U+FFFF), and must not be "/zookeeper" or
// below (ZooKeeper's own subtree). The error wraps ErrInvalidPath and names the path.
func ValidatePath(p string) error {
	if p == "/" {
		return invalidPath(p, "the root cannot be written")
	}
	return validateReadPath(p)
}

// validateReadPath is ValidatePath allowing "/" (reads of the root are fine).
func validateReadPath(p string) error {
	switch {
	case p == "":
		return invalidPath(p, "empty")
	case p[0] != '/':
		return invalidPath(p, "not absolute")
	case p == "/":
		return nil
	case strings.HasSuffix(p, "/"):
		return invalidPath(p, "trailing slash")
	case p == "/zookeeper" || strings.HasPrefix(p, "/zookeeper/"):
		return invalidPath(p, "ZooKeeper's reserved subtree")
	case !utf8.ValidString(p):
		return invalidPath(p, "invalid UTF-8")
	}
	for rest := p[1:]; ; { // segment by segment, without allocating: every request checks its path
		seg, tail, more := strings.Cut(rest, "/")
		if err := validateSegment(p, seg); err != nil {
			return err
		}
		if !more {
			return nil
		}
		rest = tail
	}
}

// validateSegment checks one path segment.
func validateSegment(p, seg string) error {
	switch seg {
	case "":
		return invalidPath(p, "empty segment (//)")
	case ".", "..":
		return invalidPath(p, "relative segment "+seg)
	}
	for _, r := range seg {
		if r < 0x20 || (r >= 0x7f && r <= 0x9f) || (r >= 0xd800 && r <= 0xf8ff) || (r >= 0xfff0 && r <= 0xffff) {
			return invalidPath(p, fmt.Sprintf("invalid character %U", r))
		}
	}
	return nil
}

func invalidPath(p, why string) error {
	return fmt.Errorf("%w %q: %s", ErrInvalidPath, p, why)
}

// validateData refuses data above MaxDataSize.
func validateData(p string, data []byte) error {
	if len(data) > MaxDataSize {
		return fmt.Errorf("%w: %d bytes for %q (max %d)", ErrDataTooLarge, len(data), p, MaxDataSize)
	}
	return nil
}

// joinChild is path.Join(dir, name) for a clean server path and a single-segment name, without
// path.Join's cleaning allocation.
func joinChild(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}

// pathCache remembers the directory of the last path that passed the whole check, so that the
// next request naming that directory or one child of it checks only the child's segment: a
// lock's requests all do (its listing, the create, the watch on the node ahead, the delete),
// and each checked every segment again (issue 27). A directory of a valid path that is not a
// child of the root is valid for reads and writes alike (it is not "/"), and a valid directory,
// "/" and a valid segment make a valid path. Requests under other directories check in full
// and take the cache over.
type pathCache struct{ dir atomic.Pointer[string] }

// check is ValidatePath (write) or validateReadPath on p.
func (c *pathCache) check(p string, write bool) error {
	if d := c.dir.Load(); d != nil {
		dir := *d
		if p == dir {
			return nil
		}
		if n := len(dir); len(p) > n+1 && p[n] == '/' && p[:n] == dir {
			if seg := p[n+1:]; strings.IndexByte(seg, '/') < 0 && utf8.ValidString(seg) {
				return validateSegment(p, seg)
			}
		}
	}
	validate := validateReadPath
	if write {
		validate = ValidatePath
	}
	if err := validate(p); err != nil {
		return err
	}
	if i := strings.LastIndexByte(p, '/'); i > 0 {
		if d := c.dir.Load(); d == nil || *d != p[:i] {
			dir := p[:i]
			c.dir.Store(&dir)
		}
	}
	return nil
}
