package framework

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"
	"github.com/zkrecipes/zkrecipes/retry"
)

func TestValidatePath(t *testing.T) {
	tests := []struct {
		path    string
		writeOK bool
		readOK  bool
	}{
		{"/a", true, true},
		{"/a/b-c_d.e", true, true},
		{"/a/_c_x-lock-", true, true},
		{"/zookeeperish", true, true},
		{"/", false, true},
		{"", false, false},
		{"a/b", false, false},
		{"/a/", false, false},
		{"/a//b", false, false},
		{"/a/./b", false, false},
		{"/a/..", false, false},
		{"/.", false, false},
		{"/a\x00b", false, false},
		{"/a\nb", false, false},
		{"/a\x7fb", false, false},
		{"/a\ufff5", false, false},
		{"/\xff", false, false},
		{"/zookeeper", false, false},
		{"/zookeeper/quota", false, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q", tt.path), func(t *testing.T) {
			err := ValidatePath(tt.path)
			if (err == nil) != tt.writeOK || (err != nil && !errors.Is(err, ErrInvalidPath)) {
				t.Errorf("ValidatePath = %v, want ok=%v", err, tt.writeOK)
			}
			if err != nil && !strings.Contains(err.Error(), fmt.Sprintf("%q", tt.path)) {
				t.Errorf("error %q does not name the path", err)
			}
			if err := validateReadPath(tt.path); (err == nil) != tt.readOK {
				t.Errorf("validateReadPath = %v, want ok=%v", err, tt.readOK)
			}
		})
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func TestClassify(t *testing.T) {
	tests := []struct {
		err  error
		want retry.Class
	}{
		{zk.ErrConnectionClosed, retry.Retryable},
		{zk.ErrNoServer, retry.Retryable},
		{zk.ErrSessionMoved, retry.Retryable},
		{ErrOperationTimeout, retry.Retryable},
		{io.EOF, retry.Retryable},
		{&net.OpError{Op: "write", Err: errors.New("broken pipe")}, retry.Retryable},
		{fmt.Errorf("wrapped: %w", timeoutErr{}), retry.Retryable},
		{zk.ErrSessionExpired, retry.SessionExpired},
		{zk.ErrNoNode, retry.Permanent},
		{zk.ErrNodeExists, retry.Permanent},
		{zk.ErrBadVersion, retry.Permanent},
		{zk.ErrNoAuth, retry.Permanent},
		{zk.ErrClosing, retry.Permanent},
		{ErrClosed, retry.Permanent},
		{ErrMultiAborted, retry.Permanent},
		{context.Canceled, retry.Permanent},
		{context.DeadlineExceeded, retry.Permanent},
		{errors.New("other"), retry.Permanent},
	}
	for _, tt := range tests {
		if got := Classify(tt.err); got != tt.want {
			t.Errorf("Classify(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

func TestMapZKError(t *testing.T) {
	tests := []struct {
		in   error
		want error
	}{
		{fmt.Errorf("unknown error: %v", -2), ErrMultiAborted},
		{fmt.Errorf("unknown error: %v", -6), ErrUnimplemented},
		{fmt.Errorf("unknown error: %v", -7), ErrOperationTimeout},
		{zk.ErrNoNode, zk.ErrNoNode},
		{nil, nil},
	}
	for _, tt := range tests {
		if got := mapZKError(tt.in); !errors.Is(got, tt.want) && got != tt.want {
			t.Errorf("mapZKError(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestProtectedNames(t *testing.T) {
	id := "0f8fad5b-d9cb-469f-a165-70867728950e"
	name := ProtectedPrefix(id) + "lock-0000000001"
	if !IsProtected(name) || StripProtected(name) != "lock-0000000001" {
		t.Fatalf("IsProtected/Strip failed for %q", name)
	}
	for _, n := range []string{"lock-0000000001", "_c_short-lock", "_c_" + strings.Repeat("z", 36) + "-lock", ProtectedPrefix(id)} {
		if IsProtected(n) {
			t.Errorf("IsProtected(%q) = true", n)
		}
	}
}

func TestOptionsRejected(t *testing.T) {
	tests := []Option{
		WithSessionTimeout(0), WithConnectionTimeout(-1), WithRetryPolicy(nil),
		WithNamespace("a//b"), WithNamespace("zookeeper"), WithACLProvider(nil),
		WithDigestAuth("", "x"), WithErrorPolicy(7), WithLogger(nil),
		WithRetryPolicy(retry.NTimes(-1, 0)),
	}
	for i, o := range tests {
		if f, err := New([]string{"127.0.0.1:1"}, o); !errors.Is(err, ErrInvalidOption) {
			if f != nil {
				f.Close()
			}
			t.Errorf("option %d: New err = %v, want ErrInvalidOption", i, err)
		}
	}
	if _, err := New(nil); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("New(nil) = %v", err)
	}
}
