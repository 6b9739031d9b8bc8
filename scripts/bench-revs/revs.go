package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The two sides of a comparison.
const (
	sideBase = 0
	sideHead = 1
)

var sideNames = [2]string{"base", "head"}

// revision is what a side was built from.
type revision struct {
	spec    string // as given: a revision or "."
	commit  string // full hash (for ".", the work tree's HEAD; dirty says whether it differs)
	subject string
	dirty   bool // the work tree with uncommitted changes
}

// label is the revision as the table names it: "0091b70^ = d58c00e (subject)".
func (r revision) label() string {
	s := r.spec
	if r.commit != "" {
		s += " = " + short(r.commit)
	}
	if r.dirty {
		s += " + uncommitted changes"
	}
	if r.subject != "" {
		s += " (" + truncate(r.subject, 70) + ")"
	}
	return s
}

func short(commit string) string { return commit[:min(len(commit), 7)] }

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// side is a built driver: the binary and the directory it runs in (its checkout).
type side struct {
	name string
	rev  revision
	dir  string
	bin  string
}

// prepare resolves both revisions, checks each out into a temporary git worktree (or takes the
// work tree for "."), and builds the driver there. cleanup removes the worktrees and binaries;
// it is safe to call whatever prepare returned.
func prepare(ctx context.Context, o options, log io.Writer) ([2]side, func(), error) {
	var sides [2]side
	root, err := gitOut(ctx, ".", "rev-parse", "--show-toplevel")
	if err != nil {
		return sides, func() {}, fmt.Errorf("not in a git checkout of zkrecipes: %w", err)
	}
	tmp, err := os.MkdirTemp("", "bench-revs-build-")
	if err != nil {
		return sides, func() {}, err
	}
	var trees []string
	cleanup := func() {
		for _, t := range trees {
			if _, err := gitOut(context.Background(), root, "worktree", "remove", "--force", t); err != nil {
				fmt.Fprintf(log, "bench-revs: warning: could not remove worktree %s: %v\n", t, err)
			}
		}
		os.RemoveAll(tmp)
	}
	for i, spec := range [2]string{o.base, o.head} {
		s := side{name: sideNames[i], dir: root}
		if s.rev, err = resolve(ctx, root, spec); err != nil {
			return sides, cleanup, err
		}
		if spec != "." {
			s.dir = filepath.Join(tmp, s.name)
			if _, err := gitOut(ctx, root, "worktree", "add", "--detach", s.dir, s.rev.commit); err != nil {
				return sides, cleanup, fmt.Errorf("check out %s: %w", spec, err)
			}
			trees = append(trees, s.dir)
		}
		s.bin = filepath.Join(tmp, "bench-"+s.name)
		fmt.Fprintf(log, "bench-revs: building the driver at %s: %s\n", s.name, s.rev.label())
		if err := build(ctx, s.dir, s.bin); err != nil {
			return sides, cleanup, fmt.Errorf("build the driver at %s (%s): %w", s.name, spec, err)
		}
		sides[i] = s
	}
	return sides, cleanup, nil
}

// resolve names a revision's commit; "." is the work tree (its HEAD, and whether it is dirty).
func resolve(ctx context.Context, root, spec string) (revision, error) {
	r := revision{spec: spec}
	ref := spec
	if spec == "." {
		ref = "HEAD"
		st, err := gitOut(ctx, root, "status", "--porcelain", "--untracked-files=no")
		if err != nil {
			return r, err
		}
		r.dirty = st != ""
	}
	c, err := gitOut(ctx, root, "rev-parse", "--verify", "--end-of-options", ref+"^{commit}")
	if err != nil {
		return r, fmt.Errorf("revision %q: %w", spec, err)
	}
	r.commit = c
	r.subject, _ = gitOut(ctx, root, "log", "-1", "--format=%s", c)
	return r, nil
}

// build compiles ./bench in dir into bin, with $GO (or go).
func build(ctx context.Context, dir, bin string) error {
	goBin := os.Getenv("GO")
	if goBin == "" {
		goBin = "go"
	}
	cmd := exec.CommandContext(ctx, goBin, "build", "-o", bin, "./bench")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%w: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// gitOut runs git in dir and returns its trimmed output; the error carries git's message.
func gitOut(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		var msg string
		if ee, ok := err.(*exec.ExitError); ok {
			msg = strings.TrimSpace(string(ee.Stderr))
		}
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, msg)
	}
	return strings.TrimSpace(string(out)), nil
}
