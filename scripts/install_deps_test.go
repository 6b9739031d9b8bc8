// Package scripts holds the tests of the shell scripts make and CI run.
package scripts

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeTree builds a root with the given files and a bin dir whose "id"
// says uid; PATH holds only that bin dir plus the given commands, so the
// script can never reach the real apt-get.
func fakeTree(t *testing.T, uid string, files []string, commands []string) (root, bin string) {
	t.Helper()
	root, bin = t.TempDir(), t.TempDir()
	for _, f := range files {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		body := ""
		if strings.HasSuffix(f, "python3") {
			body = "#!/bin/sh\nexit 0\n" // "import kazoo" succeeds
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range append(commands, "id") {
		body := "#!/bin/sh\nexit 0\n"
		if c == "id" {
			body = "#!/bin/sh\necho " + uid + "\n"
		}
		if err := os.WriteFile(filepath.Join(bin, c), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return root, bin
}

func TestInstallDeps(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	all := []string{"usr/share/java/zookeeper.jar", "usr/share/java/curator-recipes.jar", "usr/bin/python3"}
	tests := []struct {
		name     string
		mode     string
		files    []string
		commands []string
		code     int
		stderr   string
	}{
		{"test, all present", "test", all, []string{"java", "javac"}, 0, ""},
		{"demo, all present", "demo", all[:1], []string{"java"}, 0, ""},
		{"test, nothing present, not root", "test", nil, nil, 1,
			"  apt-get update && apt-get install -y zookeeper libcurator-recipes-java default-jdk-headless python3-kazoo\n"},
		{"demo, no zookeeper, not root", "demo", nil, nil, 1, "  apt-get update && apt-get install -y zookeeper\n"},
		{"demo, zookeeper without java", "demo", all[:1], nil, 1, "apt-get install -y default-jre-headless\n"},
		{"test, only kazoo missing", "test", all[:2], []string{"java", "javac"}, 1, "apt-get install -y python3-kazoo\n"},
		{"bad mode", "everything", all, nil, 64, "usage:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, bin := fakeTree(t, "1000", tt.files, tt.commands)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bash, "install-deps.sh", tt.mode)
			cmd.Env = []string{"PATH=" + bin, "INSTALL_DEPS_ROOT=" + root}
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.code || !strings.Contains(stderr.String(), tt.stderr) || (tt.code == 0 && stderr.Len()+stdout.Len() > 0) {
				t.Fatalf("exit %d (want %d)\nstdout: %s\nstderr: %s\nwant stderr to contain %q", code, tt.code, &stdout, &stderr, tt.stderr)
			}
		})
	}
}
