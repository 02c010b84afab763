package viewer_test

import (
	"io"
	"log"
	"os"
	"testing"
)

var tempRoot string

func mkdirTemp() (string, error) {
	dir, err := os.MkdirTemp("", "floorbench-viewer-")
	tempRoot = dir
	return dir, err
}

func TestMain(m *testing.M) {
	code := m.Run()
	if tempRoot != "" {
		_ = os.RemoveAll(tempRoot)
	}
	os.Exit(code)
}

func newLogger(w io.Writer) *log.Logger { return log.New(w, "", 0) }
