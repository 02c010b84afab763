package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/ingest/turnbench/tbfixture"
	"github.com/floorbench/floorbench/internal/testenv"
)

// TestSimToRealQuickstart is the sim-to-real run (docs/sweeps.md#sim-to-real) on
// this machine: the tiny MPTB corpus, a TurnBench corpus ingested from parquet
// (three labelled dev and three labelled test dialogues: its own operating
// point; one unlabelled: detected, not scored) and the AMI fixture meetings
// ingested as test only (thresholds transferred from MPTB's dev split),
// through a Temporal dev server. Run with -v to see the table docs/sweeps.md#sim-to-real
// shows.
func TestSimToRealQuickstart(t *testing.T) {
	temporalTool(t)
	if _, err := os.Stat(filepath.Join(testenv.ToolsDir(), "models")); err != nil && testenv.Required() {
		t.Fatal("models missing: run scripts/setup.sh onnx")
	}
	tmp := t.TempDir()
	tb, ami := ingestFixtures(t, tmp, 6, 40)
	spec := writeFile(t, tmp, "simtoreal.yaml", `name: sim-to-real
corpora:
  - {name: mptb-tiny, generate: {preset: tiny, seed: 1}}
  - {name: turnbench-fixture, path: `+tb+`}
  - {name: ami-fixture, path: `+ami+`}
systems:
  - {name: rms, builtin: rms}
  - {name: webrtcvad, builtin: webrtcvad}
  - {name: silero, builtin: silero}
bootstrap: {resamples: 1000, seed: 1}
`)
	store := filepath.Join(tmp, "store")
	stdout, stderr, code := run(t, "quickstart", "-f", spec, "--store-dir", store)
	if code != 0 {
		t.Fatalf("quickstart -f: exit %d\n%s\n%s", code, stdout, stderr)
	}
	t.Logf("\n%s", stdout)
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^silero\s+ami-fixture\s+ami\s+EOT: mptb-tiny dev, INT: mptb-tiny dev\s+[0-9.]+ \[`),
		regexp.MustCompile(`(?m)^webrtcvad\s+turnbench-fixture\s+turnbench\s+EOT: own dev, INT: own dev\s+[0-9.]+ \[`),
		regexp.MustCompile(`(?m)^rms\s+mptb-tiny\s+mptb\s+EOT: own dev, INT: own dev\s+[0-9.]+ \[`),
		regexp.MustCompile(`(?m)^best trivial rule \(audit\)\s+mptb-tiny\s+mptb\s+EOT: .* \(θ on dev\); INT: `),
	} {
		if !want.MatchString(stdout) {
			t.Errorf("the sim-to-real table lacks %s", want)
		}
	}
	m := regexp.MustCompile(`bundle ([0-9a-f]+) in (\S+)`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no bundle line in %q", stdout)
	}
	report, err := os.ReadFile(filepath.Join(m[2], "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Sim-to-real", "1 unlabelled (detected, not scored)", "Human timing on ami-fixture", "Kind ami: 0 dev and 2 test conversations scored", "### Corpus audit: trivial rules"} {
		if !strings.Contains(string(report), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
}

// ingestFixtures ingests n TurnBench fixture dialogues of the given length
// (the first half dev, the rest test, plus one unlabelled) from a parquet
// shard, and the AMI fixture meetings as test, into tmp; it returns the two
// corpus folders.
func ingestFixtures(t *testing.T, tmp string, n int, seconds float64) (tb, ami string) {
	t.Helper()
	var convs []tbfixture.Conversation
	kinds := []string{"casual", "debate", "interview"}
	for i := range n {
		split := map[bool]string{true: "dev", false: "test"}[i < n/2]
		convs = append(convs, tbfixture.Dialogue(fmt.Sprintf("tb-%03d", 10+i), split, kinds[i%3], uint64(i), seconds))
	}
	convs = append(convs, tbfixture.Default()[2]) // unlabelled test
	table, err := tbfixture.Build(convs)
	if err != nil {
		t.Fatal(err)
	}
	shard := filepath.Join(tmp, "turnbench.parquet")
	if err := table.Write(shard); err != nil {
		t.Fatal(err)
	}
	tb, ami = filepath.Join(tmp, "turnbench"), filepath.Join(tmp, "ami")
	if _, stderr, code := run(t, "corpus", "ingest", "turnbench", "--parquet", shard, "--out", tb); code != 0 {
		t.Fatalf("ingest turnbench: exit %d: %s", code, stderr)
	}
	meetings := writeFile(t, tmp, "meetings.txt", "ES2099a\nIB4099\n")
	if _, stderr, code := run(t, "corpus", "ingest", "ami", "--nxt", amiFixture, "--audio", amiHeadsets(t), "--meetings", meetings, "--split", "test", "--out", ami); code != 0 {
		t.Fatalf("ingest ami: exit %d: %s", code, stderr)
	}
	return tb, ami
}
