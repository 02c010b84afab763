//go:build !floorbench_light

package main

import "github.com/spf13/cobra"

// s3ToFull: floorbench-full opens S3 stores itself (the front hands such
// commands to it, front.go).
func s3ToFull(*cobra.Command) error { return nil }
