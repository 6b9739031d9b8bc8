//go:build !zklocktest

package main

// testHook is a point at which a zklock built for the tests can be stopped (testhook_on.go);
// it does nothing in a release build.
func testHook(string) {}
