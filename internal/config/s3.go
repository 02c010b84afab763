//go:build !floorbench_light

package config

import (
	"context"

	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/store/s3"
)

// openS3 opens c's bucket, reading objects whole (store.GetBytes) up to
// readLimit bytes.
func openS3(ctx context.Context, c Config, readLimit int64) (store.Store, error) {
	st, err := s3.New(ctx, c.s3())
	if err != nil {
		return nil, err
	}
	return st.WithReadLimit(readLimit), nil
}

// createBucket creates c's bucket unless it exists.
func createBucket(ctx context.Context, c Config) error { return s3.CreateBucket(ctx, c.s3()) }

func (c Config) s3() s3.Config {
	return s3.Config{Endpoint: c.S3Endpoint, Bucket: c.S3Bucket, AccessKey: c.S3AccessKey, SecretKey: c.S3SecretKey, Secure: c.S3Secure}
}
