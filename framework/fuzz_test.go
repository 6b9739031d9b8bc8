package framework_test

import (
	"strings"
	"testing"

	"github.com/zkrecipes/zkrecipes/framework"
)

// Node names are any client's: the protected-name parsers never panic, agree with each other,
// and strip exactly the 40-byte prefix they recognise.
func FuzzProtectedName(f *testing.F) {
	for _, s := range []string{"", "_c_", "lock-0000000001",
		"_c_7a6b6c6b-1591-4a95-bee1-f2dba24a9e1b-lock-0000000000",
		"_c_62c7b262-caa5-4380-9f7f-bd2602ca680f-",
		"_c_62c7b262-caa5-4380-9f7f-bd2602ca680f-\xff\x00",
		"_c_{62c7b262-caa5-4380-9f7f-bd2602ca68}-x"} {
		f.Add(s, "7a6b6c6b")
	}
	f.Fuzz(func(t *testing.T, name, tag string) {
		prot := framework.IsProtected(name)
		stripped := framework.StripProtected(name)
		switch {
		case prot && (len(stripped) != len(name)-40 || !strings.HasSuffix(name, stripped)):
			t.Fatalf("StripProtected(%q) = %q", name, stripped)
		case !prot && stripped != name:
			t.Fatalf("StripProtected(%q) = %q for an unprotected name", name, stripped)
		case framework.HasProtectedTag(name, tag) && (!prot || !strings.HasPrefix(name, "_c_"+tag)):
			t.Fatalf("HasProtectedTag(%q, %q) without the tag's protected prefix", name, tag)
		}
	})
}
