package leader_test

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const module = "github.com/zkrecipes/zkrecipes/"

// TestImportsOnlyExportedAPI is the go list -deps check of issue 9: package leader is the proof
// that a recipe can be built on the exported API alone, so it imports nothing of this module
// but recipes, driver and framework (its tests may add zktest, interop and retry), and no
// package of the recipe layer it builds on (recipes, driver) leans on an internal package
// either. The client underneath (framework, watchmgr) may use internal helpers (an intrusive
// list): a user's recipe calls that client, it does not rebuild it. If this fails, leader or a
// recipe has started to lean on something users cannot reach: export it properly instead.
func TestImportsOnlyExportedAPI(t *testing.T) {
	allowed := map[string]bool{module + "recipes": true, module + "driver": true, module + "framework": true}
	forTests := map[string]bool{module + "zktest": true, module + "interop": true, module + "retry": true, module + "leader": true}
	out := goList(t, "-f", "{{range .Imports}}I {{.}}\n{{end}}{{range .TestImports}}T {{.}}\n{{end}}{{range .XTestImports}}T {{.}}\n{{end}}", ".")
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		kind, pkg, _ := strings.Cut(line, " ")
		switch {
		case !strings.HasPrefix(pkg, module):
			if strings.Contains(pkg, ".") && kind == "I" {
				t.Errorf("leader imports %s: only the standard library and this module's exported API are allowed", pkg)
			}
		case allowed[pkg]:
		case kind == "T" && forTests[pkg]:
		default:
			t.Errorf("leader (%s) imports %s: only recipes, driver and framework are allowed", kind, pkg)
		}
	}
	client := map[string]bool{module + "framework": true, module + "watchmgr": true}
	for _, line := range strings.Split(strings.TrimSpace(goList(t, "-deps", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", ".")), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || !strings.HasPrefix(fields[0], module) || client[fields[0]] || isInternal(fields[0]) {
			continue
		}
		for _, imp := range fields[1:] {
			if strings.HasPrefix(imp, module) && isInternal(imp) {
				t.Errorf("%s, which leader depends on, imports the internal package %s", fields[0], imp)
			}
		}
	}
}

// isInternal reports whether pkg is an internal package.
func isInternal(pkg string) bool {
	return strings.Contains(pkg, "/internal/") || strings.HasSuffix(pkg, "/internal")
}

// goList runs go list in this package's directory and returns its output.
func goList(t *testing.T, args ...string) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		gobin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	out, err := exec.Command(gobin, append([]string{"list"}, args...)...).Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("go list %v: %v\n%s", args, err, msg)
	}
	return string(out)
}
