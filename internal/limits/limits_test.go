package limits

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestReadRefusesWhatIsNotATextFileOfBoundedSize(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.json")
	if err := os.WriteFile(small, []byte(`{"a": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// A sparse file: its size is known without writing its bytes.
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 2<<30); err != nil {
		t.Fatal(err)
	}
	if data, err := readText(small, 8, "input_bytes"); err != nil || string(data) != `{"a": 1}` {
		t.Errorf("a file of exactly the limit: %q, %v", data, err)
	}
	var over *OverError
	if _, err := readText(small, 7, "input_bytes"); !errors.As(err, &over) || over.Field != small {
		t.Errorf("a file one byte over the limit: %v", err)
	}
	_, err := readText(big, 1<<30, "input_bytes")
	if want := big + ": a file of 2147483648 bytes is over the limit of 1073741824 bytes (raise limits.input_bytes in the config file or FLOORBENCH_LIMIT_INPUT_BYTES)"; err == nil || err.Error() != want {
		t.Errorf("2 GiB file:\n got %v\nwant %s", err, want)
	}
	if _, err := readText("/dev/zero", 1<<30, "input_bytes"); err == nil || err.Error() != "/dev/zero: not a text file (NUL byte at offset 0)" {
		t.Errorf("/dev/zero: %v", err)
	}
	if _, err := readText(dir, 1<<30, "input_bytes"); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("a directory: %v", err)
	}
}

// A stream (a pipe) has no size to check first: it is read up to the limit
// and refused past it, whether read whole or in a stream decoder's reads
// (a NUL byte past the limit is never reached).
func TestReadStopsAStreamAtTheLimit(t *testing.T) {
	for _, whole := range []bool{true, false} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			defer w.Close()
			chunk := []byte(strings.Repeat(" ", 4096))
			for i := range 1 << 10 { // 4 MiB, then the reader has stopped
				chunk[0] = ' '
				if i == 30 {
					chunk[0] = 0 // at offset 122880, past the limit
				}
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}()
		path := "/dev/fd/" + strconv.Itoa(int(r.Fd()))
		if whole {
			_, err = readText(path, 100_000, "spec_bytes")
		} else {
			var tr *textReader
			if tr, _, err = openText(path, 100_000, "spec_bytes"); err == nil {
				buf := make([]byte, 64<<10)
				for err == nil {
					_, err = tr.Read(buf)
				}
				tr.Close()
			}
		}
		r.Close()
		if want := path + ": more than 100000 bytes is over the limit of 100000 bytes (raise limits.spec_bytes in the config file or FLOORBENCH_LIMIT_SPEC_BYTES)"; err == nil || err.Error() != want {
			t.Errorf("read whole %v: got %v\nwant %s", whole, err, want)
		}
	}
}

func TestLimitsFromEnvironment(t *testing.T) {
	env := func(vars map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
	}
	l, err := Default().FromEnv(env(map[string]string{"FLOORBENCH_LIMIT_RESAMPLES": "2000000", "FLOORBENCH_LIMIT_CONVERSATION_DURATION_S": "36000.5"}))
	if err != nil || l.Resamples != 2_000_000 || l.DurationS != 36000.5 || l.Quantiles != Default().Quantiles {
		t.Errorf("%+v, %v", l, err)
	}
	for _, bad := range []string{"0", "-1", "1.5", "lots", "NaN", "1e300"} {
		if _, err := Default().FromEnv(env(map[string]string{"FLOORBENCH_LIMIT_N_QUANTILES": bad})); err == nil || !strings.HasPrefix(err.Error(), "FLOORBENCH_LIMIT_N_QUANTILES=") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if err := Default().CheckResamples("bootstrap.resamples", 1_000_000_000); err == nil ||
		err.Error() != "bootstrap.resamples: 1000000000 is over the limit of 100000 (raise limits.resamples in the config file or FLOORBENCH_LIMIT_RESAMPLES)" {
		t.Errorf("resamples: %v", err)
	}
}
