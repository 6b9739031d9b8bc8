package zktest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ErrNotInstalled is returned (and reported by Start) when Java or
// ZooKeeper's jars cannot be found. On Debian: apt-get install -y zookeeper.
var ErrNotInstalled = errors.New("zktest: ZooKeeper is not installed (install it with: apt-get install -y zookeeper)")

// Environment variables that override where zktest looks for the server.
const (
	// EnvJava names the java binary (default: $JAVA_HOME/bin/java, then java on PATH).
	EnvJava = "ZKTEST_JAVA"
	// EnvClasspath replaces the whole server classpath (default: Debian's
	// /usr/share/java/zookeeper.jar, whose manifest lists its dependencies,
	// plus slf4j-simple for logging).
	EnvClasspath = "ZKTEST_CLASSPATH"
)

const (
	debianZooKeeperJar = "/usr/share/java/zookeeper.jar"
	debianSlf4jSimple  = "/usr/share/java/slf4j-simple.jar"
	quorumPeerMain     = "org.apache.zookeeper.server.quorum.QuorumPeerMain"
)

// debianExtraJars are added to the classpath when present: slf4j-simple for logging, and the
// Netty jars that NettyServerCnxnFactory (WithTLS) needs but the manifest of Debian's
// zookeeper.jar does not list.
var debianExtraJars = []string{
	debianSlf4jSimple,
	"/usr/share/java/netty-codec.jar",
	"/usr/share/java/netty-resolver.jar",
}

// installation is where the server's JVM and jars live.
type installation struct {
	java      string
	classpath string
}

// findInstallation locates java and the ZooKeeper classpath, or returns an
// error wrapping ErrNotInstalled.
func findInstallation() (installation, error) {
	java, err := findJava()
	if err != nil {
		return installation{}, err
	}
	if cp := os.Getenv(EnvClasspath); cp != "" {
		return installation{java: java, classpath: cp}, nil
	}
	if _, err := os.Stat(debianZooKeeperJar); err != nil {
		return installation{}, fmt.Errorf("%w: %s not found (or set %s)", ErrNotInstalled, debianZooKeeperJar, EnvClasspath)
	}
	parts := []string{debianZooKeeperJar}
	for _, jar := range debianExtraJars {
		if _, err := os.Stat(jar); err == nil {
			parts = append(parts, jar)
		}
	}
	return installation{java: java, classpath: strings.Join(parts, string(os.PathListSeparator))}, nil
}

func findJava() (string, error) {
	if j := os.Getenv(EnvJava); j != "" {
		found, err := exec.LookPath(j)
		if err != nil {
			return "", fmt.Errorf("%w: %s=%s: %w", ErrNotInstalled, EnvJava, j, err)
		}
		return found, nil
	}
	if home := os.Getenv("JAVA_HOME"); home != "" {
		j := filepath.Join(home, "bin", "java")
		if _, err := os.Stat(j); err == nil {
			return j, nil
		}
	}
	j, err := exec.LookPath("java")
	if err != nil {
		return "", fmt.Errorf("%w: no java on PATH (set %s or JAVA_HOME)", ErrNotInstalled, EnvJava)
	}
	return j, nil
}
