package retry_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/zkrecipes/zkrecipes/retry"
)

var errConnectionLoss = errors.New("connection loss")

func ExampleDo() {
	classify := func(err error) retry.Class {
		if errors.Is(err, errConnectionLoss) {
			return retry.Retryable
		}
		return retry.Permanent
	}
	attempts := 0
	op := func(ctx context.Context) error {
		attempts++
		if attempts < 3 {
			return errConnectionLoss
		}
		return nil
	}
	err := retry.Do(context.Background(), retry.NTimes(5, time.Millisecond), classify, op,
		retry.WithNotify(func(err error, next time.Duration) { fmt.Println("retrying after", err, "in", next) }))
	fmt.Println(err, attempts)
	// Output:
	// retrying after connection loss in 1ms
	// retrying after connection loss in 1ms
	// <nil> 3
}

func ExampleValidate() {
	fmt.Println(retry.Validate(retry.ExponentialBackoff(0, 3)))
	fmt.Println(retry.Validate(retry.SessionFailed(retry.ExponentialBackoff(100*time.Millisecond, 3))))
	// Output:
	// retry: invalid policy: ExponentialBackoff: base 0s, want > 0
	// <nil>
}
