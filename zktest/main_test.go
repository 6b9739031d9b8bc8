package zktest

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) { os.Exit(VerifyNoLeaks(m)) }
