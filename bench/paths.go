package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// methodRef names the peer-bench method relative to the repository root: the reference lives
// beside the repository (../shared/reference), never inside it.
const methodRef = "../shared/reference/peer-bench.md"

// absPath matches an absolute file path that begins a token (after a space, bracket, quote or
// the start): a slash, a name, another slash. Ratios such as "µs/op" and "1 / x" do not match.
var absPath = regexp.MustCompile("(^|[\\s(\\[\"'`=:,])(/[A-Za-z0-9._+-]+)+/?")

// scrubPaths makes the text the report quotes (notes, error messages) free of the machine's
// absolute paths: the repository root becomes ".", the temporary directory "<tmp>", and any other
// absolute path keeps only its last element, as "…/name".
func scrubPaths(s string) string {
	if root, err := repoRoot(); err == nil && root != "/" {
		s = strings.ReplaceAll(s, root+"/", "./")
	}
	if tmp := os.TempDir(); tmp != "/" {
		s = strings.ReplaceAll(s, strings.TrimSuffix(tmp, "/")+"/", "<tmp>/")
	}
	return absPath.ReplaceAllStringFunc(s, func(m string) string {
		i := strings.IndexByte(m, '/')
		return m[:i] + "…/" + filepath.Base(m[i:])
	})
}

// hasAbsPath reports the first absolute path in s, or "".
func hasAbsPath(s string) string {
	if m := absPath.FindString(s); m != "" {
		return strings.TrimSpace(m)
	}
	return ""
}

// repoRoot is the directory holding go.mod, searched upwards from the working directory.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}
