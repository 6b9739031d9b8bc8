package driver

import "testing"

func TestStickyConflicts(t *testing.T) {
	const (
		read   = "_c_a-__READ__0000000001"
		write  = "_c_b-__WRIT__0000000002"
		mutex  = "_c_c-lock-0000000003"
		kread  = "_c_d-__rlock__0000000004"
		kwrite = "_c_e-__lock__0000000005"
	)
	for _, tc := range []struct {
		name         string
		drv          Driver
		sticky       bool
		ours, child  string
		wantConflict bool
	}{
		{"mutex-any", Exclusive(), true, mutex, "_c_x-lock-0000000009", true},
		{"mutex-self", Exclusive(), true, mutex, mutex, true},
		{"write-reader", Write(), true, write, read, true},
		{"read-writer", Read(""), true, read, write, true},
		{"read-reader", Read(""), true, read, "_c_y-__READ__0000000007", false},
		{"read-self", Read(""), true, read, read, false},
		{"downgrade", Read(write), false, read, write, true},
		{"semaphore-2", Standard("lease-", 2), false, mutex, mutex, true},
		{"kazoo-read-reader", KazooRead(), true, kread, "0123456789abcdef0123456789abcdef__rlock__0000000008", false},
		{"kazoo-read-writer", KazooRead(), true, kread, kwrite, true},
		{"kazoo-write-reader", KazooLock(), true, kwrite, kread, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sd, ok := tc.drv.(StickyDriver)
			if !ok {
				t.Fatalf("%T is no StickyDriver", tc.drv)
			}
			if sd.Sticky() != tc.sticky {
				t.Errorf("Sticky() = %v, want %v", sd.Sticky(), tc.sticky)
			}
			if got := sd.Conflicts(tc.ours, tc.child); got != tc.wantConflict {
				t.Errorf("Conflicts(%s, %s) = %v, want %v", tc.ours, tc.child, got, tc.wantConflict)
			}
		})
	}
}
