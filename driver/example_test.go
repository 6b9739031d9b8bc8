package driver_test

import (
	"errors"
	"fmt"

	"github.com/zkrecipes/zkrecipes/driver"
)

func ExampleEvaluate() {
	children := []string{
		"_c_ffffffff-ffff-4fff-bfff-ffffffffffff-lock-0000000009",
		"_c_53345f98-9423-4e0c-a7b5-9f819e3ec2e1-lock-0000000007",
		"_c_0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d-lock-0000000008",
	}
	our := "_c_ffffffff-ffff-4fff-bfff-ffffffffffff-lock-0000000009"
	dec, v, err := driver.Evaluate(driver.Exclusive(), children, our, nil)
	fmt.Println(dec.Holds, v.Index, dec.WatchNode, err)

	_, _, err = driver.Evaluate(driver.Exclusive(), children, "_c_gone-lock-0000000001", nil)
	fmt.Println(errors.Is(err, driver.ErrOwnNodeMissing))
	// Output:
	// false 2 _c_0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d-lock-0000000008 <nil>
	// true
}

func ExampleRead() {
	children := []string{"__READ__0000000004", "__WRIT__0000000002", "__READ__0000000001", "__WRIT__0000000003"}
	dec, _, _ := driver.Evaluate(driver.Read(""), children, "__READ__0000000004", nil)
	fmt.Println(dec.Holds, dec.WatchNode) // the first writer, not the immediate predecessor
	// Output: false __WRIT__0000000002
}
