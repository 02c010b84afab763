package main

import (
	"github.com/spf13/cobra"

	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/orchestrate"
)

// configFlags adds the connection flags to cmd and returns a function that
// reads the configuration: file, then environment, then these flags.
// Credentials come only from the file or the environment, never flags.
// The file's limits (and FLOORBENCH_LIMIT_*) are put in force.
func configFlags(cmd *cobra.Command) func() (orchestrate.Config, error) {
	f := cmd.Flags()
	path := f.String("config", orchestrate.DefaultConfigPath(), "configuration file (YAML)")
	address := f.String("temporal-address", "", "Temporal frontend host:port (env FLOORBENCH_TEMPORAL_ADDRESS)")
	namespace := f.String("namespace", "", "Temporal namespace (env FLOORBENCH_TEMPORAL_NAMESPACE)")
	endpoint := f.String("s3-endpoint", "", "S3 endpoint host:port; empty: the local store (env FLOORBENCH_S3_ENDPOINT)")
	bucket := f.String("s3-bucket", "", "S3 bucket (env FLOORBENCH_S3_BUCKET)")
	storeDir := f.String("store-dir", "", "local store directory when no S3 endpoint is set (env FLOORBENCH_STORE_DIR)")
	return func() (orchestrate.Config, error) {
		c, err := orchestrate.LoadConfig(*path, f.Changed("config"))
		if err != nil {
			return c, err
		}
		set := func(flag string, value, dst *string) {
			if f.Changed(flag) {
				*dst = *value
			}
		}
		set("temporal-address", address, &c.TemporalAddress)
		set("namespace", namespace, &c.Namespace)
		set("s3-endpoint", endpoint, &c.S3Endpoint)
		set("s3-bucket", bucket, &c.S3Bucket)
		set("store-dir", storeDir, &c.StoreDir)
		limits.Set(c.Limits)
		return c, nil
	}
}
