package framework_test

import (
	"errors"
	"path"
	"strings"
	"testing"

	"github.com/zkrecipes/zkrecipes/framework"
	"github.com/zkrecipes/zkrecipes/zktest"
)

// A tagged framework's protected creates carry the tag in their GUID, also when the create is
// adopted after a cut reply, and an untagged framework's do not; Curator's name checks still pass.
func TestProtectedTagMarksGUID(t *testing.T) {
	const tag = "2c1ec70c"
	for _, tc := range []struct {
		name   string
		opts   []framework.Option
		tagged bool
	}{
		{"tagged", []framework.Option{framework.WithProtectedTag(tag)}, true},
		{"untagged", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, p, _ := proxied(t, tc.opts...)
			ctx := testCtx(t)
			dir := uniquePath(t)
			p.CutReplyAfter(zktest.OpCreate, zktest.OpCreate2)
			got, err := f.Create(ctx, dir+"/lock-", nil, framework.Protected(),
				framework.WithMode(framework.EphemeralSequential), framework.CreatingParents())
			if err != nil {
				t.Fatal(err)
			}
			name := path.Base(got)
			if !framework.IsProtected(name) || !strings.HasPrefix(framework.StripProtected(name), "lock-") {
				t.Fatalf("created %q: not a protected lock- name", name)
			}
			if has := framework.HasProtectedTag(name, tag); has != tc.tagged {
				t.Fatalf("HasProtectedTag(%q) = %v, want %v", name, has, tc.tagged)
			}
			set, err := f.CreateSetAndList(ctx, []string{dir + "/set/lock-"}, [][]byte{nil}, framework.EphemeralSequential)
			if err != nil {
				t.Fatal(err)
			}
			if has := framework.HasProtectedTag(path.Base(set.Paths[0]), tag); has != tc.tagged {
				t.Fatalf("set node %q: HasProtectedTag = %v, want %v", set.Paths[0], has, tc.tagged)
			}
		})
	}
}

func TestProtectedTagRefusesBadTags(t *testing.T) {
	for _, tag := range []string{"", "2c1ec70", "2c1ec70c0", "2C1EC70C", "2c1ec7-c", "zzzzzzzz", "2c1e\x00c70"} {
		_, err := framework.New([]string{"127.0.0.1:1"}, framework.WithProtectedTag(tag))
		if !errors.Is(err, framework.ErrInvalidOption) || !strings.Contains(err.Error(), "protected tag") {
			t.Errorf("tag %q: err %v, want ErrInvalidOption naming the protected tag", tag, err)
		}
	}
	for _, name := range []string{"", "_c_", "lock-0000000001", "_c_2c1ec70c-not-a-uuid-at-all-000000-lock-1"} {
		if framework.HasProtectedTag(name, "2c1ec70c") {
			t.Errorf("HasProtectedTag(%q) = true", name)
		}
	}
}
