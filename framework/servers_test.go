package framework_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/zkrecipes/zkrecipes/framework"
)

// An empty server list, or an empty address in it (strings.Split of an unset $ZK_SERVERS), is
// refused at once with ErrInvalidOption saying so (issue 26.6: "lookup : no such host").
func TestEmptyServerAddressRefused(t *testing.T) {
	for _, servers := range [][]string{nil, {""}, {"127.0.0.1:2181", " "}} {
		t.Run(strings.Join(servers, ","), func(t *testing.T) {
			f, err := framework.New(servers)
			if err == nil {
				f.Close()
			}
			if !errors.Is(err, framework.ErrInvalidOption) || !strings.Contains(err.Error(), "empty") {
				t.Fatalf("New(%q) = %v, want ErrInvalidOption saying an address is empty", servers, err)
			}
		})
	}
}
