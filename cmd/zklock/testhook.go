package main

// testHookEnv names the point at which a zklock built for the tests (-tags zklocktest) stops
// itself with SIGSTOP, so that a test can act (SIGKILL it, say) at exactly that point.
const testHookEnv = "ZKLOCK_TEST_STOP_AT"
