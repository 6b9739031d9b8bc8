package recipes

import (
	"bytes"
	"testing"
)

// FuzzIdentity feeds node data to every parser of it: ParseIdentity, NodeOrigin and withKind
// never panic, and an identity they accept encodes back to data they accept.
func FuzzIdentity(f *testing.F) {
	for _, s := range []string{
		``, `{}`, `{"lib":"zkrecipes-go","host":"web-1","pid":4242,"name":"backup","kind":"mutex"}`,
		`{"lib":"zkrecipes-go","kind":"\u001b[2J\nmutex"}`, `{"lib":"zkrecipes-go","pid":1e99}`,
		"10.0.0.1", "fe80::1%eth0", "__REVOKE__", "\xff\xfe{", `  {"lib":"zkrecipes-go"}  `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = NodeOrigin(data)
		out := withKind(data, KindMutex)
		id, ok := ParseIdentity(data)
		if !ok {
			if !bytes.Equal(out, data) {
				t.Fatalf("withKind changed data that is no identity: %q -> %q", data, out)
			}
			return
		}
		if _, ok := ParseIdentity(id.Encode()); !ok {
			t.Fatalf("ParseIdentity refuses its own encoding of %q", data)
		}
		if NodeOrigin(id.Encode()) != OriginGo {
			t.Fatalf("NodeOrigin of an identity of ours is not %q", OriginGo)
		}
	})
}

// FuzzRecipeOf feeds a node name (or path) to RecipeOf and CheckContender: no panic, and a
// contender CheckContender accepts has a kind RecipeOf knows.
func FuzzRecipeOf(f *testing.F) {
	for _, s := range []string{
		"", "/", "/a/lock-0000000001", "/a/_c_0f1e9d0c-8c5e-4b8e-9d39-6a4c2b1f7e21-__READ__0000000002",
		"/a/_c_0f1e9d0c-8c5e-4b8e-9d39-6a4c2b1f7e2", "/a/_c_", "/lock-0000000001/lock-0000000002",
		"/a/zzz0000000000", "/a/00000000000000000000000000000000__lock__0000000001", "/a/\u202elock-0000000001",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		kind := RecipeOf(p)
		if err := CheckContender(p); err == nil && kind == KindUnknown {
			t.Fatalf("CheckContender accepts %q of unknown kind", p)
		}
	})
}
