package interop

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Errors returned when the Java tool chain or Curator is missing.
var (
	// ErrCuratorMissing means a Curator or ZooKeeper jar was not found.
	ErrCuratorMissing = errors.New("interop: Curator jars not found (apt-get install -y libcurator-recipes-java libcurator-framework-java libcurator-client-java)")
	// ErrJavaMissing means java or javac is not on PATH.
	ErrJavaMissing = errors.New("interop: java/javac not found (apt-get install -y openjdk-17-jdk-headless)")
	// ErrCompile means javac rejected the source.
	ErrCompile = errors.New("interop: javac failed")
)

// requiredJars are the jars Curator 5 needs at compile and run time; the rest (netty, jackson,
// metrics...) come in through the Class-Path entries of the Debian jars' manifests.
var requiredJars = []string{
	"curator-recipes.jar", "curator-framework.jar", "curator-client.jar",
	"zookeeper.jar", "zookeeper-jute.jar", "guava.jar", "slf4j-api.jar",
}

// JavaLibDir is where the jars are looked for: $ZKRECIPES_JAVA_LIBS, else /usr/share/java.
func JavaLibDir() string {
	if d := os.Getenv("ZKRECIPES_JAVA_LIBS"); d != "" {
		return d
	}
	return "/usr/share/java"
}

// CuratorClasspath returns the classpath for compiling and running a Curator program, with
// slf4j-nop appended when present so the client logs nothing. It wraps ErrCuratorMissing, naming
// the missing jars, when any required jar is absent.
func CuratorClasspath() (string, error) {
	dir := JavaLibDir()
	var cp, missing []string
	for _, j := range requiredJars {
		p := filepath.Join(dir, j)
		if _, err := os.Stat(p); err != nil {
			missing = append(missing, j)
			continue
		}
		cp = append(cp, p)
	}
	if len(missing) > 0 {
		return "", fmt.Errorf("%w: missing %s in %s", ErrCuratorMissing, strings.Join(missing, ", "), dir)
	}
	if p := filepath.Join(dir, "slf4j-nop.jar"); fileExists(p) {
		cp = append(cp, p)
	}
	return strings.Join(cp, string(os.PathListSeparator)), nil
}

// CompileJava compiles one Java source file (its public class must be named class) against
// classpath and returns the directory holding the classes. Results are cached by a hash of the
// source, the class name and the classpath, so only the first call runs javac. Concurrent callers
// (even in different processes) are safe: each compiles into a private directory and renames it
// into place. Cancelling ctx kills javac.
func CompileJava(ctx context.Context, class string, source []byte, classpath string) (string, error) {
	return compileJava(ctx, class, classpath, javaSource{class, source})
}

// javaSource is one Java file to compile: its top-level class's name and its text.
type javaSource struct {
	class string
	text  []byte
}

// compileJava is CompileJava for a program of several source files compiled together (the
// first is class's own); the cache key covers them all.
func compileJava(ctx context.Context, class, classpath string, sources ...javaSource) (string, error) {
	javac, err := exec.LookPath("javac")
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrJavaMissing, err)
	}
	h := sha256.New()
	h.Write([]byte(class))
	for _, src := range sources {
		if len(sources) > 1 { // a single source keeps the key it always had
			h.Write([]byte{0})
			h.Write([]byte(src.class))
		}
		h.Write([]byte{0})
		h.Write(src.text)
	}
	h.Write([]byte{0})
	h.Write([]byte(classpath))
	key := hex.EncodeToString(h.Sum(nil))[:20]
	root := cacheRoot()
	final := filepath.Join(root, class+"-"+key)
	if fileExists(filepath.Join(final, class+".class")) {
		return final, nil
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", fmt.Errorf("interop: cache dir: %w", err)
	}
	tmp, err := os.MkdirTemp(root, "build-")
	if err != nil {
		return "", fmt.Errorf("interop: cache dir: %w", err)
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "classes")
	args := []string{"-nowarn", "-encoding", "UTF-8", "-d", out, "-cp", classpath}
	for _, src := range sources {
		path := filepath.Join(tmp, src.class+".java")
		if err := os.WriteFile(path, src.text, 0o644); err != nil {
			return "", fmt.Errorf("interop: write source: %w", err)
		}
		args = append(args, path)
	}
	cmd := exec.CommandContext(ctx, javac, args...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%w: %v\n%s", ErrCompile, err, msg)
	}
	if err := os.Rename(out, final); err != nil && !fileExists(filepath.Join(final, class+".class")) {
		return "", fmt.Errorf("interop: cache classes: %w", err)
	}
	return final, nil
}

// cacheRoot is <user cache dir>/zkrecipes-java, falling back to the temp dir.
func cacheRoot() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "zkrecipes-java")
	}
	return filepath.Join(os.TempDir(), "zkrecipes-java")
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
