package scripts

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The README's quick start compiles against the library as it is: it is
// built through a go build overlay as a package of this module that exists
// only for the build.
func TestReadmeQuickStartCompiles(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(readme), "## Quick start")
	_, code, ok2 := strings.Cut(after, "```go\n")
	code, _, ok3 := strings.Cut(code, "```")
	if !ok || !ok2 || !ok3 || !strings.HasPrefix(code, "package main") {
		t.Fatal("README has no Go quick start (## Quick start, then a ```go block with package main)")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	src := filepath.Join(tmp, "main.go")
	virtual := filepath.Join(root, "readme_quickstart_check", "main.go")
	overlay, _ := json.Marshal(map[string]map[string]string{"Replace": {virtual: src}})
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "overlay.json"), overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-overlay="+filepath.Join(tmp, "overlay.json"),
		"-o", filepath.Join(tmp, "quickstart"), "./readme_quickstart_check")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the README's quick start does not compile: %v\n%s\n%s", err, out, code)
	}
}
