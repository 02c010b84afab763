package temporalclient

import (
	"context"
	"time"
)

// SetWatchWait makes Watch call wait instead of waiting; restore puts the
// real wait back.
func SetWatchWait(wait func(context.Context, time.Duration) error) (restore func()) {
	old := watchWait
	watchWait = wait
	return func() { watchWait = old }
}
