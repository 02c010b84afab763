package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/floorbench/floorbench/internal/audit/auditfixture"
)

// oneErrorLine fails unless the command failed with nothing on stdout and
// exactly one line on stderr containing every want.
func oneErrorLine(t *testing.T, stdout, stderr string, code int, want ...string) {
	t.Helper()
	ok := code != 0 && stdout == "" && strings.Count(stderr, "\n") == 1 && strings.HasPrefix(stderr, "floorbench: ")
	for _, w := range want {
		ok = ok && strings.Contains(stderr, w)
	}
	if !ok {
		t.Errorf("exit %d, stdout %q, stderr %q; want one error line containing %q", code, stdout, stderr, want)
	}
}

const goodSpec = "corpora: [{name: tiny, generate: {preset: tiny, seed: 1}}]\nsystems: [{name: r, builtin: rms}]\n"

// Sizes a worker would allocate, names it would fail on later, and files
// it would read whole are refused at submit with the field and the limit.
func TestSubmitRefusesWhatAWorkerCannotRun(t *testing.T) {
	dir := t.TempDir()
	big := writeFile(t, dir, "big.yaml", goodSpec+"# "+strings.Repeat("x", 2<<20)+"\n")
	cases := []struct {
		name, spec string
		want       []string
	}{
		{"resamples", goodSpec + "bootstrap: {resamples: 1000000000}\n", []string{"bootstrap.resamples: 1000000000 is over the limit of 100000", "limits.resamples", "FLOORBENCH_LIMIT_RESAMPLES"}},
		{"quantiles", goodSpec + "protocol: {n_quantiles: 1000000000}\n", []string{"n_quantiles: 1000000000 is over the limit of 10000", "limits.n_quantiles"}},
		{"concurrency", goodSpec + "concurrency: 1000000000\n", []string{"concurrency: 1000000000 is over the limit of 1024", "limits.concurrency"}},
		{"unknown preset", strings.Replace(goodSpec, "preset: tiny", "preset: huge", 1), []string{`corpora[0].generate.preset: unknown preset "huge" (want one of mptb, tiny, train, unheard)`}},
		{"queue name", goodSpec + "queues: {gpu: \"gpu queue\\nx\"}\n", []string{`queues.gpu: (not quoted) is not a task queue name`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeFile(t, dir, "spec.yaml", c.spec)
			stdout, stderr, code := run(t, "submit", "-f", path, "--config", "", "--temporal-address", "127.0.0.1:1")
			oneErrorLine(t, stdout, stderr, code, append([]string{path + ": "}, c.want...)...)
		})
	}
	stdout, stderr, code := run(t, "submit", "-f", big, "--config", "")
	oneErrorLine(t, stdout, stderr, code, big+": a file of "+strconv.Itoa(len(goodSpec)+2+2<<20+1)+" bytes is over the limit of 1048576 bytes", "limits.spec_bytes")
	stdout, stderr, code = run(t, "submit", "-f", "/dev/zero", "--config", "")
	oneErrorLine(t, stdout, stderr, code, "/dev/zero: is a device, not a regular file")
}

// An operator raises a limit in the config file's limits section or with
// FLOORBENCH_LIMIT_*: the same spec then gets past the check (and fails
// only on the unreachable Temporal).
func TestOperatorRaisesALimit(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "spec.yaml", goodSpec+"bootstrap: {resamples: 1000000}\n")
	config := writeFile(t, dir, "config.yaml", "limits:\n  resamples: 1000000\n")
	for _, c := range []struct {
		env  []string
		args []string
	}{
		{nil, []string{"--config", config}},
		{[]string{"FLOORBENCH_LIMIT_RESAMPLES=1000000"}, []string{"--config", ""}},
	} {
		args := append([]string{"submit", "-f", path, "--temporal-address", "127.0.0.1:1"}, c.args...)
		stdout, stderr, code, _ := runWith(t, c.env, args...)
		oneErrorLine(t, stdout, stderr, code, "cannot reach Temporal at 127.0.0.1:1")
	}
	stdout, stderr, code, _ := runWith(t, []string{"FLOORBENCH_LIMIT_RESAMPLES=10"}, "submit", "-f", path, "--config", config)
	oneErrorLine(t, stdout, stderr, code, "bootstrap.resamples: 1000000 is over the limit of 10")
}

// maxRSS bounds the memory of a command refusing a hostile input: a clean
// refusal costs what starting the binary costs.
const maxRSS = 200 << 20

// An endless or huge input is one clean error line naming the file and the
// limit, in bounded memory, not an out-of-memory crash.
func TestHostileInputSizes(t *testing.T) {
	dir := t.TempDir()
	gold := writeFile(t, dir, "gold.json", cliGold)
	pred := writeFile(t, dir, "p.json", `{"schema_version": 1, "predictions": []}`)
	sparse := filepath.Join(dir, "huge.json") // 2 GiB, no disk used
	if err := os.WriteFile(sparse, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(sparse, 2<<30); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"gold /dev/zero", []string{"score", "--gold", "/dev/zero", "--predictions", pred}, []string{"/dev/zero: is a device, not a regular file"}},
		{"gold 2 GiB", []string{"score", "--gold", sparse, "--predictions", pred}, []string{sparse + ": a file of 2147483648 bytes is over the limit of 1073741824 bytes", "limits.input_bytes"}},
		{"predictions /dev/zero", []string{"score", "--gold", gold, "--predictions", "/dev/zero"}, []string{"/dev/zero: is a device, not a regular file"}},
		{"predictions 2 GiB", []string{"score", "--gold", gold, "--predictions", sparse}, []string{sparse + ": a file of 2147483648 bytes", "limits.input_bytes"}},
		{"system spec /dev/zero", []string{"detect", "--system-spec", "/dev/zero", "--corpus", dir, "--out", filepath.Join(dir, "out")}, []string{"/dev/zero: is a device, not a regular file"}},
		{"config /dev/zero", []string{"bundle", "ls", "--config", "/dev/zero"}, []string{"/dev/zero: is a device, not a regular file"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, code, rss := runWith(t, nil, c.args...)
			oneErrorLine(t, stdout, stderr, code, c.want...)
			if rss > maxRSS {
				t.Errorf("peak RSS %d MB, want under %d MB", rss>>20, maxRSS>>20)
			}
		})
	}
}

// What is not a regular file is refused before it is read, wherever a
// command reads a file a user names: a pipe as the spec, a pipe or a
// device as a system's model, a link to a device as the gold. None of
// them is waited on.
func TestSpecialFilesAreRefusedUnread(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zeroLink := filepath.Join(dir, "gold.json")
	if err := os.Symlink("/dev/zero", zeroLink); err != nil {
		t.Fatal(err)
	}
	pred := writeFile(t, dir, "p.json", `{"schema_version": 1, "predictions": []}`)
	sweep := func(model string) string {
		name := filepath.Base(model)
		sys := writeFile(t, dir, name+".yaml", "family: silero\nmodel: {path: "+model+"}\n")
		return writeFile(t, dir, "sweep-"+name+".yaml", "corpora: [{name: tiny, generate: {preset: tiny, seed: 1}}]\nsystems: [{name: s, spec: "+sys+"}]\n")
	}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"spec a pipe", []string{"submit", "-f", fifo, "--dry-run", "--config", ""}, fifo + ": is a named pipe, not a regular file"},
		{"model a pipe", []string{"submit", "-f", sweep(fifo), "--dry-run", "--config", ""}, "silero: model " + fifo + ": is a named pipe, not a regular file"},
		{"model /dev/zero", []string{"submit", "-f", sweep("/dev/zero"), "--dry-run", "--config", ""}, "silero: model /dev/zero: is a device, not a regular file"},
		{"gold a link to a device", []string{"score", "--gold", zeroLink, "--predictions", pred}, zeroLink + ": a link to /dev/zero, which is a device, not a regular file"},
		{"predictions a pipe", []string{"score", "--gold", writeFile(t, dir, "g.json", cliGold), "--predictions", fifo}, fifo + ": is a named pipe, not a regular file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, code, _ := runWith(t, nil, c.args...)
			oneErrorLine(t, stdout, stderr, code, c.want)
		})
	}
}

// Conversation counts and durations of a gold set are bounded too.
func TestGoldConversationLimits(t *testing.T) {
	dir := t.TempDir()
	gold := writeFile(t, dir, "gold.json", strings.Replace(cliGold, `"duration_s": 30.0`, `"duration_s": 1e12`, 1))
	pred := writeFile(t, dir, "p.json", `{"schema_version": 1, "predictions": []}`)
	stdout, stderr, code := run(t, "score", "--gold", gold, "--predictions", pred)
	oneErrorLine(t, stdout, stderr, code, gold+`: conversation "c1": duration_s: 1e+12 is over the limit of 14400`, "limits.conversation_duration_s")
	gold = writeFile(t, dir, "gold.json", cliGold)
	stdout, stderr, code, _ = runWith(t, []string{"FLOORBENCH_LIMIT_CONVERSATIONS=1"}, "score", "--gold", gold, "--predictions", pred)
	oneErrorLine(t, stdout, stderr, code, gold+": conversations: 2 is over the limit of 1", "limits.conversations")
}

// The config file is strict: an unknown key names itself and the file; a
// value of the wrong type names its key, not the value.
func TestConfigFileMistakesAreOneLine(t *testing.T) {
	dir := t.TempDir()
	config := writeFile(t, dir, "config.yaml", "store_dr: /tmp/elsewhere\n")
	stdout, stderr, code := run(t, "bundle", "ls", "--config", config)
	oneErrorLine(t, stdout, stderr, code, "config "+config+`: line 1: unknown key "store_dr"`)
	config = writeFile(t, dir, "config.yaml", "s3_secure: hunter2-secret\n")
	stdout, stderr, code = run(t, "bundle", "ls", "--config", config)
	oneErrorLine(t, stdout, stderr, code, "config "+config+": line 1: s3_secure: want true or false")
	if strings.Contains(stderr, "hunter2") {
		t.Errorf("the value is echoed: %q", stderr)
	}
}

// An id with a newline is refused on one line, before any connection;
// every error prints on one line.
func TestIDsWithNewlinesAreOneLine(t *testing.T) {
	for _, args := range [][]string{
		{"status", "floorbench-sweep-1\nx", "--config", "", "--temporal-address", "127.0.0.1:1"},
		{"watch", "floorbench-sweep-1\nx", "--config", "", "--temporal-address", "127.0.0.1:1"},
		{"bundle", "diff", "a\nb", "c", "--config", "", "--store-dir", t.TempDir()},
		{"bundle", "show", "a\nb", "--config", "", "--store-dir", t.TempDir()},
		// Any other message quoting a newline (here a path) stays one line.
		{"corpus", "check", t.TempDir() + "/a\nb"},
	} {
		stdout, stderr, code := run(t, args...)
		oneErrorLine(t, stdout, stderr, code, `\n`)
	}
}

// corpus check reports its problems on stderr: stdout stays for results.
func TestCorpusCheckProblemsGoToStderr(t *testing.T) {
	dir := t.TempDir()
	if err := auditfixture.Write(dir, auditfixture.Small(), 1); err != nil {
		t.Fatal(err)
	}
	wavs, _ := filepath.Glob(filepath.Join(dir, "*", "*.wav"))
	if len(wavs) == 0 {
		t.Fatal("the fixture has no audio")
	}
	data, err := os.ReadFile(wavs[0])
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-1] ^= 0xff
	if err := os.WriteFile(wavs[0], data, 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := run(t, "corpus", "check", dir)
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if code == 0 || stdout != "" || len(lines) < 2 || !strings.HasPrefix(lines[len(lines)-1], "floorbench: "+dir+": 1 problems") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TurnBench's reference gold holds spans that end before they start (its
// consensus writes them; its scorer keeps them), so score takes them by
// default and agrees with the reference; --strict-gold refuses the first
// one with one line naming the file, conversation, field, index, speaker
// and times, on each command that reads gold.
func TestStrictGoldRefusesAReversedSpan(t *testing.T) {
	gold := referencePath("gold.expected.json")
	preds := referencePath("predictions.json")
	if _, stderr, code := run(t, "score", "--gold", gold, "--predictions", preds); code != 0 {
		t.Fatalf("score over the reference gold: exit %d: %s", code, stderr)
	}
	for _, args := range [][]string{
		{"score", "--gold", gold, "--predictions", preds, "--strict-gold"},
		{"sweep", "--gold", gold, "--probs", referencePath("probs-eot.json"), "--strict-gold"},
		{"leaderboard", "--dev-gold", gold, "--test-gold", gold, "--system", "r=" + preds + "," + preds, "--strict-gold"},
	} {
		stdout, stderr, code := run(t, args...)
		oneErrorLine(t, stdout, stderr, code, gold+`: conversation "1002": eot_excluded[6] speaker 2: end 37.933 is not after start 38.349`, "--strict-gold")
	}
}
