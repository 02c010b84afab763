package main

import (
	"github.com/spf13/cobra"

	"github.com/floorbench/floorbench/internal/config"
)

// storeFlags adds the configuration file and store flags to cmd and
// returns a function that reads the configuration: file, then
// environment, then these flags. Commands that only read or write the
// store (bundle, store verify) take these and no Temporal flags.
// Credentials come only from the file or the environment, never flags.
// The configuration's Limits (the file's, FLOORBENCH_LIMIT_* over them)
// bound what the command then reads.
func storeFlags(cmd *cobra.Command) func() (config.Config, error) {
	f := cmd.Flags()
	path := f.String("config", config.DefaultConfigPath(), "configuration file (YAML)")
	endpoint := f.String("s3-endpoint", "", "S3 endpoint host:port; empty: the local store (env FLOORBENCH_S3_ENDPOINT)")
	bucket := f.String("s3-bucket", "", "S3 bucket (env FLOORBENCH_S3_BUCKET)")
	storeDir := f.String("store-dir", "", "local store directory when no S3 endpoint is set (env FLOORBENCH_STORE_DIR)")
	return func() (config.Config, error) {
		c, err := config.LoadConfig(*path, f.Changed("config"))
		if err != nil {
			return c, err
		}
		setFlag(cmd, "s3-endpoint", endpoint, &c.S3Endpoint)
		setFlag(cmd, "s3-bucket", bucket, &c.S3Bucket)
		setFlag(cmd, "store-dir", storeDir, &c.StoreDir)
		if c.S3Endpoint != "" {
			return c, s3ToFull(cmd)
		}
		return c, nil
	}
}

// setFlag copies a string flag's value into dst when it was given.
func setFlag(cmd *cobra.Command, flag string, value, dst *string) {
	if cmd.Flags().Changed(flag) {
		*dst = *value
	}
}
