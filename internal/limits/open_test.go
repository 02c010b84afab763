package limits

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Every file read on a user's behalf is a regular file within its limit;
// a link is followed and what it ends at is held to the same rule; a pipe
// or a device is refused without being opened (a pipe with no writer
// would block the open for ever), and the error names the path and why.
func TestOpenTakesOnlyRegularFilesWithinTheirLimit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "model.bin")
	if err := os.WriteFile(file, []byte("weights"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := func(name, target string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	toFile, toZero, toFIFO, toDir := link("to-file", file), link("to-zero", "/dev/zero"), link("to-fifo", fifo), link("to-dir", dir)
	dangling := link("dangling", filepath.Join(dir, "gone"))
	for _, c := range []struct {
		path string
		max  int64
		want string // "": opened, and reads the file's bytes
	}{
		{file, 7, ""},
		{toFile, 7, ""},
		{file, 6, file + ": a file of 7 bytes is over the limit of 6 bytes (raise limits.model_bytes in the config file or FLOORBENCH_LIMIT_MODEL_BYTES)"},
		{toFile, 6, toFile + ": a file of 7 bytes is over the limit of 6 bytes (raise limits.model_bytes in the config file or FLOORBENCH_LIMIT_MODEL_BYTES)"},
		{"/dev/zero", 1 << 30, "/dev/zero: is a device, not a regular file"},
		{fifo, 1 << 30, fifo + ": is a named pipe, not a regular file"},
		{dir, 1 << 30, dir + ": is a folder, not a file"},
		{toZero, 1 << 30, toZero + ": a link to /dev/zero, which is a device, not a regular file"},
		{toFIFO, 1 << 30, toFIFO + ": a link to " + fifo + ", which is a named pipe, not a regular file"},
		{toDir, 1 << 30, toDir + ": a link to " + dir + ", which is a folder, not a file"},
		{dangling, 1 << 30, dangling + ": a symbolic link that leads nowhere: no such file or directory"},
		{filepath.Join(dir, "missing"), 1 << 30, "open " + filepath.Join(dir, "missing") + ": no such file or directory"},
	} {
		f, err := Open(c.path, c.max, "model_bytes")
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.path, err)
				continue
			}
			data, err := io.ReadAll(f)
			f.Close()
			if err != nil || string(data) != "weights" {
				t.Errorf("%s: read %q, %v", c.path, data, err)
			}
			continue
		}
		if err == nil {
			f.Close()
			t.Errorf("%s: opened; want %q", c.path, c.want)
		} else if err.Error() != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.path, err, c.want)
		}
	}
	var over *OverError
	if _, err := Open(file, 6, "model_bytes"); !errors.As(err, &over) {
		t.Errorf("over the limit: %T, want *OverError", err)
	}
}

// The readers of specs and JSON inputs apply the same rule: a pipe given
// as a spec is refused at once, not waited on.
func TestReadSpecRefusesAPipe(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "spec.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Default().ReadSpec(fifo); err == nil || err.Error() != fifo+": is a named pipe, not a regular file" {
		t.Errorf("ReadSpec: %v", err)
	}
	if _, err := Default().OpenInput(fifo); err == nil || err.Error() != fifo+": is a named pipe, not a regular file" {
		t.Errorf("OpenInput: %v", err)
	}
}
