package interop

import (
	"context"
	_ "embed"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// lineServerSource is the connection and line protocol the Java programs share; each is compiled
// together with it.
//
//go:embed java/LineServer.java
var lineServerSource []byte

// startLineServer compiles class (a LineServer program whose source is source) if needed, starts
// it against servers (a ZooKeeper connect string) with the given session timeout and returns
// once it printed "ready <sessionIdHex>", with that session id. It wraps ErrCuratorMissing or
// ErrJavaMissing when the tool chain is missing; ctx bounds compilation and connection.
func startLineServer(ctx context.Context, class string, source []byte, servers string, session time.Duration) (*lineProcess, int64, error) {
	cp, err := CuratorClasspath()
	if err != nil {
		return nil, 0, err
	}
	dir, err := compileJava(ctx, class, cp, javaSource{class, source}, javaSource{"LineServer", lineServerSource})
	if err != nil {
		return nil, 0, err
	}
	java, err := exec.LookPath("java")
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %v", ErrJavaMissing, err)
	}
	cmd := exec.Command(java, "-Xms64m", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
		"-cp", dir+":"+cp, class, servers, strconv.FormatInt(session.Milliseconds(), 10))
	p, first, err := startLineProcess(ctx, cmd)
	if err != nil {
		return nil, 0, err
	}
	h, ok := strings.CutPrefix(first, "ready ")
	id, perr := strconv.ParseUint(h, 16, 64)
	if !ok || perr != nil {
		p.kill()
		return nil, 0, fmt.Errorf("%w: bad greeting %q; stderr: %s", ErrRemote, first, p.stderr.String())
	}
	return p, int64(id), nil
}
