package recipes

import (
	"bytes"
	"os"
	"testing"
)

func TestIdentityEncodeParse(t *testing.T) {
	tests := []struct {
		name string
		id   Identity
		want string
	}{
		{"full", Identity{Lib: IdentityLib, Host: "web-1", PID: 4242, Name: "backup"},
			`{"lib":"zkrecipes-go","host":"web-1","pid":4242,"name":"backup"}`},
		{"no name", Identity{Lib: IdentityLib, Host: "h", PID: 1}, `{"lib":"zkrecipes-go","host":"h","pid":1}`},
		{"lib forced", Identity{Lib: "other", Host: "h", PID: 1}, `{"lib":"zkrecipes-go","host":"h","pid":1}`},
		{"quotes in name", Identity{Name: `a"b`}, `{"lib":"zkrecipes-go","name":"a\"b"}`},
		{"kind", Identity{Host: "h", PID: 1, Kind: KindSelector}, `{"lib":"zkrecipes-go","host":"h","pid":1,"kind":"leader selector"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.id.Encode()
			if string(got) != tt.want {
				t.Fatalf("Encode = %s, want %s", got, tt.want)
			}
			back, ok := ParseIdentity(got)
			want := tt.id
			want.Lib = IdentityLib
			if !ok || back != want {
				t.Fatalf("ParseIdentity(%s) = %+v, %v; want %+v, true", got, back, ok, want)
			}
		})
	}
}

func TestNewIdentity(t *testing.T) {
	id := NewIdentity("job")
	host, _ := os.Hostname()
	if id.Lib != IdentityLib || id.Host != host || id.PID != os.Getpid() || id.Name != "job" {
		t.Fatalf("NewIdentity = %+v", id)
	}
	if n := len(id.Encode()); n > 256 {
		t.Fatalf("encoded identity is %d bytes; keep it small", n)
	}
}

func TestParseIdentityRejects(t *testing.T) {
	for _, data := range []string{
		"", " ", "127.0.0.1", "__REVOKE__", "worker-1", "{", `{"lib":"other","pid":1}`,
		`{"host":"h"}`, `["zkrecipes-go"]`, `{"lib":"zkrecipes-go","pid":"x"}`, "\xff\xfe",
	} {
		if id, ok := ParseIdentity([]byte(data)); ok {
			t.Errorf("ParseIdentity(%q) = %+v, true; want false", data, id)
		}
	}
}

func TestNodeOrigin(t *testing.T) {
	tests := []struct {
		data string
		want Origin
	}{
		{`{"lib":"zkrecipes-go","host":"h","pid":7}`, OriginGo},
		{` {"lib":"zkrecipes-go"} `, OriginGo},
		{"127.0.0.1", OriginJava},
		{"10.1.2.3", OriginJava},
		{"fe80::1%eth0", OriginJava},
		{"2001:db8::1", OriginJava},
		{"", OriginUnknown},
		{"__REVOKE__", OriginUnknown},
		{"worker-1", OriginUnknown},
		{"127.0.0.1 ", OriginUnknown},
		{"300.1.1.1", OriginUnknown},
		{`{"lib":"kazoo"}`, OriginUnknown},
		{"\x00\x00\x00\x01", OriginUnknown},
	}
	for _, tt := range tests {
		if got := NodeOrigin([]byte(tt.data)); got != tt.want {
			t.Errorf("NodeOrigin(%q) = %s, want %s", tt.data, got, tt.want)
		}
	}
	if got := NodeOrigin(bytes.Repeat([]byte("1"), 1000)); got != OriginUnknown {
		t.Errorf("NodeOrigin(long) = %s", got)
	}
}

// Data written before Identity had a kind still parses (Kind empty); withKind records a kind
// only in our Identity without one, and leaves any other data alone.
func TestIdentityKind(t *testing.T) {
	old := []byte(`{"lib":"zkrecipes-go","host":"h","pid":7,"name":"job"}`)
	id, ok := ParseIdentity(old)
	if !ok || id.Kind != "" || id.Name != "job" {
		t.Fatalf("ParseIdentity(old) = %+v, %v", id, ok)
	}
	if got, _ := ParseIdentity(withKind(old, KindMutex)); got.Kind != KindMutex || got.Name != "job" || got.PID != 7 {
		t.Fatalf("withKind(old) = %+v", got)
	}
	named := Identity{Kind: "mine"}.Encode()
	for _, data := range [][]byte{nil, []byte("10.0.0.1"), []byte("worker-1"), named} {
		if got := withKind(data, KindMutex); !bytes.Equal(got, data) {
			t.Errorf("withKind(%q) = %q; want it unchanged", data, got)
		}
	}
	if k := CustomKind("job-"); k != "custom:job-" || !IsCustomKind(k) || IsCustomKind(KindMutex) {
		t.Fatalf("CustomKind(job-) = %q", k)
	}
}
