//go:build floorbench_light

package config

import (
	"context"
	"errors"

	"github.com/floorbench/floorbench/internal/store"
)

// ErrS3NeedsFull is what the floorbench front (-tags floorbench_light)
// answers when asked to open an S3 store: it links no S3 client, and
// hands a command that reads an S3 configuration to floorbench-full
// before it opens anything (docs/performance.md#start-time).
var ErrS3NeedsFull = errors.New("an S3 store is opened by floorbench-full, not the floorbench front")

func openS3(context.Context, Config, int64) (store.Store, error) { return nil, ErrS3NeedsFull }

func createBucket(context.Context, Config) error { return ErrS3NeedsFull }
