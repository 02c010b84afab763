package cluster

import "context"

// Disabled is the capacity off Kubernetes: there is no pool to size, so
// acquiring succeeds at once and releasing does nothing.
type Disabled struct{}

// Acquire returns at once with a release that does nothing.
func (Disabled) Acquire(context.Context, string, int32) (func(context.Context) error, error) {
	return func(context.Context) error { return nil }, nil
}

// Release does nothing.
func (Disabled) Release(context.Context, string) error { return nil }
