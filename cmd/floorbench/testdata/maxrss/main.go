// Command maxrss runs a command and writes its peak resident set size in
// bytes to the file $MAXRSS_FILE, leaving the command's own output alone. Linux keeps a process's peak across fork and
// exec, so a command started by a large process (a Go test) reports at
// least that process's size; started from this small one, it reports its
// own.
//
//	MAXRSS_FILE=rss.txt maxrss COMMAND [ARG...]
package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "maxrss:", err)
		os.Exit(2)
	}
	rss := fmt.Sprintf("%d\n", cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss*1024)
	if err := os.WriteFile(os.Getenv("MAXRSS_FILE"), []byte(rss), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "maxrss:", err)
		os.Exit(2)
	}
	os.Exit(cmd.ProcessState.ExitCode())
}
