package limits

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadRefusesWhatIsNotATextFileOfBoundedSize(t *testing.T) {
	t.Parallel()
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
	binary := filepath.Join(dir, "model.bin")
	if err := os.WriteFile(binary, []byte("{\x00}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readText(binary, 1<<30, "input_bytes"); err == nil || err.Error() != binary+": not a text file (NUL byte at offset 1)" {
		t.Errorf("a binary file: %v", err)
	}
	if _, err := readText("/dev/zero", 1<<30, "input_bytes"); err == nil || err.Error() != "/dev/zero: is a device, not a regular file" {
		t.Errorf("/dev/zero: %v", err)
	}
	if _, err := readText(dir, 1<<30, "input_bytes"); err == nil || err.Error() != dir+": is a folder, not a file" {
		t.Errorf("a directory: %v", err)
	}
}

func TestLimitsFromEnvironment(t *testing.T) {
	t.Parallel()
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

func TestCheckBackfillRunsSaysHowMany(t *testing.T) {
	t.Parallel()
	l := Default()
	if err := l.CheckBackfillRuns("backfill", 500, false); err != nil {
		t.Errorf("500 runs: %v", err)
	}
	if err := l.CheckBackfillRuns("backfill", 490560, true); err == nil || err.Error() != "backfill: about 490560 runs is over the limit of 500 runs (raise limits.backfill_runs in the config file or FLOORBENCH_LIMIT_BACKFILL_RUNS)" {
		t.Errorf("490560 runs: %v", err)
	}
}

// A struct that carries limits and leaves them unset reads under the
// defaults; limits it sets, even one, are kept as they are.
func TestOrDefaultFillsOnlyTheZeroLimits(t *testing.T) {
	t.Parallel()
	if got := (Limits{}).OrDefault(); got != Default() {
		t.Errorf("the zero limits: %+v", got)
	}
	raised := Default()
	raised.Resamples = 1_000_000
	if got := raised.OrDefault(); got != raised {
		t.Errorf("raised limits: %+v", got)
	}
	one := Limits{InputBytes: 10}
	if got := one.OrDefault(); got != one {
		t.Errorf("limits with one set: %+v", got)
	}
}

// The bounds on what a peer can make floorbench hold are limits like the
// others: raised by environment, refused at 0, and each check passes at
// its bound and fails one past it, naming its key.
func TestPeerLimits(t *testing.T) {
	t.Parallel()
	l, err := Default().FromEnv(func(k string) (string, bool) {
		v, ok := map[string]string{"FLOORBENCH_LIMIT_AGENT_QUEUE_S": "12.5", "FLOORBENCH_LIMIT_AGENT_ITEMS": "8"}[k]
		return v, ok
	})
	if err != nil || l.AgentQueueS != 12.5 || l.AgentItems != 8 || l.AgentEvents != Default().AgentEvents {
		t.Fatalf("%+v, %v", l, err)
	}
	zero := Default()
	zero.SpeechSPerChar = 0
	if err := zero.Validate(); err == nil || err.Error() != "limits.speech_s_per_char: must be > 0" {
		t.Errorf("a zero speech_s_per_char: %v", err)
	}
	for _, c := range []struct {
		key      string
		at, past error
	}{
		{"agent_queue_s", l.CheckAgentQueue(12.5), l.CheckAgentQueue(12.51)},
		{"agent_items", l.CheckAgentItems(8), l.CheckAgentItems(9)},
		{"agent_frames_ahead", l.CheckAgentFramesAhead(250), l.CheckAgentFramesAhead(251)},
		{"agent_events", l.CheckAgentEvents(50_000, 1), l.CheckAgentEvents(50_001, 1)},
		{"agent_events_per_s", l.CheckAgentEvents(1, 100), l.CheckAgentEvents(1, 101)},
		{"speech_s_per_char", l.CheckSpeech("audio", 10, 10), l.CheckSpeech("audio", 10.01, 10)},
	} {
		if c.at != nil || c.past == nil || !strings.Contains(c.past.Error(), "limits."+c.key+" ") {
			t.Errorf("%s: at the bound %v, past it %v", c.key, c.at, c.past)
		}
	}
}
