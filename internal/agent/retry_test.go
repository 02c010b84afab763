package agent

import (
	"context"
	"errors"
	"testing"
)

// Retry stops at the first success, at a permanent error and when its
// context ends, and otherwise returns the last error after every attempt.
func TestRetry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	errs := []error{errors.New("one"), errors.New("two"), nil}
	calls := 0
	try := func() error { calls++; return errs[calls-1] }
	if err := Retry(ctx, 3, 0, nil, try); err != nil || calls != 3 {
		t.Errorf("third call succeeds: %v after %d calls", err, calls)
	}
	calls = 0
	if err := Retry(ctx, 2, 0, nil, try); err == nil || err.Error() != "two" || calls != 2 {
		t.Errorf("two attempts: %v after %d calls", err, calls)
	}
	calls = 0
	bad := errors.New("one")
	errs[0] = bad
	if err := Retry(ctx, 3, 0, func(err error) bool { return err == bad }, try); err != bad || calls != 1 {
		t.Errorf("a permanent error: %v after %d calls", err, calls)
	}
	cancelled, cancel := context.WithCancel(ctx)
	calls = 0
	err := Retry(cancelled, 3, 0, nil, func() error { calls++; cancel(); return errors.New("x") })
	if !errors.Is(err, context.Canceled) || calls != 1 {
		t.Errorf("a context that ends: %v after %d calls", err, calls)
	}
}
