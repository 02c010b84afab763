//go:build floorbench_light

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/floorbench/floorbench/internal/agent/proto"
	"github.com/floorbench/floorbench/internal/version"
)

// fullBinary is the name of the build with every command, which the
// front expects beside itself (scripts/build.sh builds both).
const fullBinary = "floorbench-full"

func init() {
	version.Executable = fullPath
	for name, short := range fullOnly {
		subcommands = append(subcommands, func() *cobra.Command { return handedToFull(name, short) })
	}
}

// The moshi protocol's Opus codec is linked in floorbench-full alone
// (proto.CheckProtocol refuses it here): a command line that names it
// (`agent serve --protocol moshi`, `agent run`, `agent seat`) runs there.
// A spec naming it is refused with an error that says so.
func init() {
	if namesMoshi(os.Args[1:]) {
		err := execFull("--protocol " + proto.MoshiName)
		fmt.Fprintln(os.Stderr, "floorbench:", oneLine(err.Error()))
		os.Exit(1)
	}
}

// namesMoshi reports whether args give --protocol moshi.
func namesMoshi(args []string) bool {
	for i, a := range args {
		if a == "--protocol="+proto.MoshiName || (a == "--protocol" && i+1 < len(args) && args[i+1] == proto.MoshiName) {
			return true
		}
	}
	return false
}

// handedToFull is a command of floorbench-full as the front lists it:
// running it, its help and its shell completions all replace this
// process with floorbench-full on the same arguments, so that it reads,
// prints and exits exactly as floorbench-full does. use is the
// command's Use line (its name first).
func handedToFull(use, short string) *cobra.Command {
	name, _, _ := strings.Cut(use, " ")
	cmd := &cobra.Command{
		Use:                use,
		Short:              short,
		DisableFlagParsing: true,
		RunE:               func(*cobra.Command, []string) error { return execFull(name) },
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			cobra.CompErrorln(execFull(name).Error())
			return nil, cobra.ShellCompDirectiveError
		},
	}
	cmd.SetHelpFunc(func(*cobra.Command, []string) {
		fmt.Fprintln(os.Stderr, "floorbench:", oneLine(execFull(name).Error()))
		os.Exit(1)
	})
	return cmd
}

// execFull replaces this process with floorbench-full from this
// executable's folder on the same arguments and environment to run the
// command name; it returns only when that fails.
func execFull(name string) error {
	full, err := besideSelf(fullBinary)
	if err != nil {
		return fmt.Errorf("find %s: %w", fullBinary, err)
	}
	err = syscall.Exec(full, append([]string{full}, os.Args[1:]...), os.Environ())
	if os.IsNotExist(err) {
		dir := filepath.Dir(full)
		return fmt.Errorf("%s needs %s beside floorbench in %s (scripts/build.sh %s builds both)", name, fullBinary, dir, dir)
	}
	return fmt.Errorf("run %s: %w", full, err)
}

// fullPath is floorbench-full beside this executable, whose build names
// the code when no revision is stamped (version.Code), or this
// executable where it is missing.
func fullPath() (string, error) {
	full, err := besideSelf(fullBinary)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(full); err != nil {
		return os.Executable()
	}
	return full, nil
}

// besideSelf is the path of name in this executable's folder.
func besideSelf(name string) (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(self), name), nil
}

// s3ToFull hands a command whose configuration names an S3 store to
// floorbench-full, which links the S3 client the front leaves out
// (config.ErrS3NeedsFull); it returns only when that fails.
func s3ToFull(cmd *cobra.Command) error { return execFull(cmd.Name()) }
