package framework

// SetProtectedIDs makes f's protected creates take their GUIDs from next, so that a test can put a
// node with the same prefix in the way.
func SetProtectedIDs(f *Framework, next func() string) { f.protectedID = next }
