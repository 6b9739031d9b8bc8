package zktest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// ErrFourLetter is returned when a four-letter-word answer cannot be read or parsed.
var ErrFourLetter = errors.New("zktest: four-letter word failed")

// FourLetter sends a four-letter word ("srvr", "mntr", "wchc", "cons", "ruok",
// ...) to the member and returns the whole answer. ctx bounds the exchange.
func (m *Member) FourLetter(ctx context.Context, cmd string) (string, error) {
	return FourLetter(ctx, m.Addr(), cmd)
}

// FourLetter sends a four-letter word to the server at addr and returns its
// answer. ctx bounds the exchange (default 5 s if ctx has no deadline).
func FourLetter(ctx context.Context, addr, cmd string) (string, error) {
	if len(cmd) != 4 {
		return "", fmt.Errorf("%w: %q is not four letters", ErrFourLetter, cmd)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return "", fmt.Errorf("%w: %s: %w", ErrFourLetter, cmd, err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	if _, err := io.WriteString(conn, cmd); err != nil {
		return "", fmt.Errorf("%w: %s: %w", ErrFourLetter, cmd, err)
	}
	out, err := io.ReadAll(conn)
	if err != nil {
		return "", fmt.Errorf("%w: %s: %w", ErrFourLetter, cmd, err)
	}
	return string(out), nil
}

// Mntr returns the member's "mntr" metrics as a map, e.g. "zk_server_state"
// -> "leader", "zk_watch_count" -> "3".
func (m *Member) Mntr(ctx context.Context) (map[string]string, error) {
	out, err := m.FourLetter(ctx, "mntr")
	if err != nil {
		return nil, err
	}
	return parseMntr(out)
}

func parseMntr(out string) (map[string]string, error) {
	res := make(map[string]string)
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "\t")
		if ok {
			res[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	if len(res) == 0 {
		return nil, fmt.Errorf("%w: mntr: %q", ErrFourLetter, firstLine(out))
	}
	return res, nil
}

// WatchCount returns the number of watches the member holds, from "wchs"
// ("Total watches:N").
func (m *Member) WatchCount(ctx context.Context) (int, error) {
	out, err := m.FourLetter(ctx, "wchs")
	if err != nil {
		return 0, err
	}
	return parseWchs(out)
}

func parseWchs(out string) (int, error) {
	_, after, ok := strings.Cut(out, "Total watches:")
	if !ok {
		return 0, fmt.Errorf("%w: wchs: %q", ErrFourLetter, firstLine(out))
	}
	n, err := strconv.Atoi(strings.TrimSpace(firstLine(after)))
	if err != nil {
		return 0, fmt.Errorf("%w: wchs: %w", ErrFourLetter, err)
	}
	return n, nil
}

// Mode returns the member's role from "srvr": "standalone", "leader",
// "follower" or "observer". A server outside a quorum answers an error.
func (m *Member) Mode(ctx context.Context) (string, error) {
	out, err := m.FourLetter(ctx, "srvr")
	if err != nil {
		return "", err
	}
	return parseMode(out)
}

func parseMode(out string) (string, error) {
	_, after, ok := strings.Cut(out, "Mode: ")
	if !ok {
		return "", fmt.Errorf("%w: srvr: %q", ErrFourLetter, firstLine(out))
	}
	return strings.TrimSpace(firstLine(after)), nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
