//go:build !floorbench_light

package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// withExitCode makes every error of cmd (its arguments, flags and run)
// exit with code, except errors that carry their own exit status.
func withExitCode(cmd *cobra.Command, code int) *cobra.Command {
	wrap := func(err error) error {
		var e exitError
		if err == nil || errors.As(err, &e) {
			return err
		}
		return exitError{code, err}
	}
	if args := cmd.Args; args != nil {
		cmd.Args = func(c *cobra.Command, a []string) error { return wrap(args(c, a)) }
	}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return wrap(err) })
	if run := cmd.RunE; run != nil {
		cmd.RunE = func(c *cobra.Command, a []string) error { return wrap(run(c, a)) }
	}
	if pre := cmd.PreRunE; pre != nil {
		cmd.PreRunE = func(c *cobra.Command, a []string) error { return wrap(pre(c, a)) }
	}
	return cmd
}
