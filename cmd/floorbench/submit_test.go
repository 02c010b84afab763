//go:build !floorbench_light

package main

import (
	"context"
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/floorbench/floorbench/internal/audit/auditfixture"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/devserver"
	"github.com/floorbench/floorbench/internal/digest"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/temporalclient"
	"github.com/floorbench/floorbench/internal/testenv"
)

const submitSpec = `name: submit-test
corpora: [{name: tiny, generate: {preset: tiny, seed: 7}}]
systems: [{name: r, builtin: rms}]
bootstrap: {resamples: 20, seed: 1}
`

// decode parses a command's JSON output into v.
func decode(t *testing.T, what, stdout string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(stdout), v); err != nil {
		t.Fatalf("%s printed %q: %v", what, stdout, err)
	}
}

type previewJSON struct {
	WorkflowID string `json:"workflow_id"`
	Corpora    []struct {
		Hash          string `json:"hash"`
		Stored        bool   `json:"stored"`
		Conversations int    `json:"conversations"`
	} `json:"corpora"`
	Systems     []struct{ Hash string } `json:"systems"`
	Evaluations []struct{ Stored bool } `json:"evaluations"`
	Bundle      struct {
		ID     string `json:"bundle_id"`
		Stored bool   `json:"stored"`
	} `json:"bundle"`
}

// A dry run resolves the spec and tells what is stored without reaching
// Temporal; a sweep then produces the workflow and bundle it announced;
// submit prints them for scripts; status counts the finished sweep's work
// even with no worker left; the dry run then finds everything stored.
func TestSubmitDryRunJSONAndFinalStatus(t *testing.T) {
	temporal := temporalTool(t)
	tmp := t.TempDir()
	spec := writeFile(t, tmp, "sweep.yaml", submitSpec)
	storeDir := filepath.Join(tmp, "store")
	unreachable := []string{"--config", "", "--store-dir", storeDir, "--temporal-address", "127.0.0.1:1"}

	stdout, stderr, code := run(t, append([]string{"submit", spec, "--dry-run", "-o", "json"}, unreachable...)...)
	if code != 0 {
		t.Fatalf("dry run: exit %d: %s", code, stderr)
	}
	var before previewJSON
	decode(t, "submit --dry-run", stdout, &before)
	if before.WorkflowID == "" || len(before.Corpora) != 1 || before.Corpora[0].Hash == "" || before.Corpora[0].Stored ||
		len(before.Systems) != 1 || before.Systems[0].Hash == "" || len(before.Evaluations) != 1 || before.Evaluations[0].Stored ||
		before.Bundle.ID == "" || before.Bundle.Stored {
		t.Fatalf("dry run on an empty store: %s", stdout)
	}
	if entries, _ := os.ReadDir(storeDir); len(entries) != 0 {
		t.Fatalf("the dry run wrote %d entries into the store", len(entries))
	}
	stdout, stderr, code = run(t, append([]string{"submit", spec, "-f", spec + ".other", "--dry-run"}, unreachable...)...)
	oneErrorLine(t, stdout, stderr, code, "spec given twice")

	srv, err := devserver.New(temporal, t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	flags := []string{"--config", "", "--store-dir", storeDir, "--temporal-address", srv.Address}
	worker := exec.Command(binary, append([]string{"worker", "--health-addr", testenv.Addr(testenv.FreePort(t))}, flags...)...)
	log, err := os.Create(filepath.Join(tmp, "worker.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	worker.Stdout, worker.Stderr = log, log
	if err := worker.Start(); err != nil {
		t.Fatal(err)
	}
	stopWorker := func() {
		_ = worker.Process.Signal(syscall.SIGTERM)
		_, _ = worker.Process.Wait()
	}
	t.Cleanup(stopWorker)

	stdout, stderr, code = run(t, append([]string{"submit", "-f", spec, "--wait", "-o", "json"}, flags...)...)
	if code != 0 {
		t.Fatalf("submit --wait: exit %d: %s", code, stderr)
	}
	var got submitted
	decode(t, "submit --wait -o json", stdout, &got)
	if got.WorkflowID != before.WorkflowID || got.RunID == "" || got.BundleID != before.Bundle.ID {
		t.Fatalf("submit --wait printed %+v; the dry run announced workflow %s and bundle %s", got, before.WorkflowID, before.Bundle.ID)
	}
	if strings.Contains(stderr, "\r") {
		t.Errorf("a progress bar was drawn into a pipe: %q", stderr)
	}

	stopWorker()
	stdout, stderr, code = run(t, append([]string{"status", got.WorkflowID, "-o", "json"}, flags...)...)
	if code != 0 {
		t.Fatalf("status: exit %d: %s", code, stderr)
	}
	var st temporalclient.Status
	decode(t, "status -o json", stdout, &st)
	p := st.Progress
	if st.State != "completed" || st.BundleID != got.BundleID || p.ConversationsTotal == 0 ||
		p.ConversationsGenerated != p.ConversationsTotal || p.TracksTotal != p.ConversationsTotal || p.TracksInferred != p.TracksTotal ||
		p.SystemsTotal != 1 || p.SystemsScored != 1 {
		t.Fatalf("status of the finished sweep: %s", stdout)
	}

	stdout, stderr, code = run(t, append([]string{"submit", spec}, flags...)...)
	if want := got.WorkflowID + "\nbundle " + got.BundleID + "\n"; code != 0 || stdout != want {
		t.Fatalf("resubmitting: exit %d, stdout %q, stderr %q; want %q", code, stdout, stderr, want)
	}
	stdout, stderr, code = run(t, append([]string{"submit", "-f", spec, "-o", "json"}, flags...)...)
	var again submitted
	decode(t, "submit -o json", stdout, &again)
	if code != 0 || again != got {
		t.Fatalf("resubmitting -o json: exit %d, %+v, stderr %q; want %+v", code, again, stderr, got)
	}

	stdout, stderr, code = run(t, append([]string{"submit", spec, "--dry-run", "-o", "json"}, unreachable...)...)
	var after previewJSON
	decode(t, "submit --dry-run", stdout, &after)
	if code != 0 || after.WorkflowID != before.WorkflowID || !after.Corpora[0].Stored || after.Corpora[0].Conversations != p.ConversationsTotal ||
		!after.Evaluations[0].Stored || after.Bundle.ID != before.Bundle.ID || !after.Bundle.Stored {
		t.Fatalf("dry run after the sweep: exit %d, %s, stderr %q", code, stdout, stderr)
	}
}

// A dry run of a local corpus says it would be uploaded, with its content
// hash and conversations, and uploads nothing; an S3 prefix the store
// lacks is one error line.
func TestSubmitDryRunOfLocalAndMissingCorpora(t *testing.T) {
	tmp := t.TempDir()
	if err := auditfixture.Write(filepath.Join(tmp, "corpus"), auditfixture.Shortcut(), 1); err != nil {
		t.Fatal(err)
	}
	_, raw, err := corpus.ReadManifestRaw(filepath.Join(tmp, "corpus"), limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	spec := writeFile(t, tmp, "sweep.yaml", "corpora: [{name: local, path: "+filepath.Join(tmp, "corpus")+"}]\nsystems: [{name: r, builtin: rms}]\n")
	storeDir := filepath.Join(tmp, "store")
	flags := []string{"--config", "", "--store-dir", storeDir, "--temporal-address", "127.0.0.1:1"}
	stdout, stderr, code := run(t, append([]string{"submit", "-f", spec, spec, "--dry-run"}, flags...)...)
	want := regexp.MustCompile(`(?m)^corpus local \(path\) ` + digest.Identity(raw) + `: to upload, \d+ conversations$`)
	if code != 0 || !want.MatchString(stdout) || !strings.Contains(stdout, "evaluation r on local: to compute\n") {
		t.Fatalf("dry run: exit %d, stdout %q, stderr %q; want a line matching %s", code, stdout, stderr, want)
	}
	if entries, _ := os.ReadDir(storeDir); len(entries) != 0 {
		t.Fatalf("the dry run wrote %d entries into the store", len(entries))
	}
	missing := writeFile(t, tmp, "s3.yaml", "corpora: [{name: gone, s3: corpora/nothere}]\nsystems: [{name: r, builtin: rms}]\n")
	stdout, stderr, code = run(t, append([]string{"submit", missing, "--dry-run"}, flags...)...)
	oneErrorLine(t, stdout, stderr, code, "corpora[0] (gone): corpora/nothere/corpus.json is not in the store")
}

// submit --in-process runs the sweep without Temporal into the bundle a
// workflow would produce (the one the dry run announces); run again, it
// reuses every stored output and writes nothing.
func TestSubmitInProcess(t *testing.T) {
	tmp := t.TempDir()
	if err := auditfixture.Write(filepath.Join(tmp, "corpus"), auditfixture.Shortcut(), 1); err != nil {
		t.Fatal(err)
	}
	spec := writeFile(t, tmp, "sweep.yaml", "corpora: [{name: local, path: "+filepath.Join(tmp, "corpus")+"}]\n"+
		"systems: [{name: r, builtin: rms}, {name: e, builtin: rms-endpointer}]\nbootstrap: {resamples: 20, seed: 1}\n")
	storeDir := filepath.Join(tmp, "store")
	flags := []string{"--config", "", "--store-dir", storeDir, "--temporal-address", "127.0.0.1:1"}
	stdout, stderr, code := run(t, append([]string{"submit", spec, "--dry-run", "-o", "json"}, flags...)...)
	var announced previewJSON
	decode(t, "submit --dry-run", stdout, &announced)
	if code != 0 || announced.Bundle.Stored {
		t.Fatalf("dry run: exit %d, %s, stderr %q", code, stdout, stderr)
	}

	stdout, stderr, code = run(t, append([]string{"submit", spec, "--in-process", "-o", "json"}, flags...)...)
	if code != 0 {
		t.Fatalf("submit --in-process: exit %d: %s", code, stderr)
	}
	var got map[string]string
	decode(t, "submit --in-process -o json", stdout, &got)
	if len(got) != 1 || got["bundle_id"] != announced.Bundle.ID {
		t.Fatalf("submit --in-process printed %s; the dry run announced bundle %s", stdout, announced.Bundle.ID)
	}
	stdout, stderr, code = run(t, append([]string{"submit", spec, "--dry-run", "-o", "json"}, flags...)...)
	var after previewJSON
	decode(t, "submit --dry-run", stdout, &after)
	if code != 0 || !after.Bundle.Stored || !after.Evaluations[0].Stored || !after.Evaluations[1].Stored {
		t.Fatalf("dry run after the in-process sweep: exit %d, %s, stderr %q", code, stdout, stderr)
	}

	before := storeFiles(t, storeDir)
	stdout, stderr, code = run(t, append([]string{"submit", "-f", spec, "--in-process"}, flags...)...)
	if want := "bundle " + announced.Bundle.ID + "\n"; code != 0 || stdout != want {
		t.Fatalf("again: exit %d, stdout %q, stderr %q; want %q", code, stdout, stderr, want)
	}
	if again := storeFiles(t, storeDir); !maps.Equal(again, before) {
		t.Errorf("running again changed the store: %d files before, %d after", len(before), len(again))
	}

	stdout, stderr, code = run(t, append([]string{"submit", spec, "--in-process", "--wait"}, flags...)...)
	oneErrorLine(t, stdout, stderr, code, "in-process", "wait")
	stdout, stderr, code = run(t, append([]string{"submit", spec, "--in-process", "--memory-budget", "lots"}, flags...)...)
	oneErrorLine(t, stdout, stderr, code, "--memory-budget", "lots")
}

// storeFiles is every file under a local store with its modification
// time.
func storeFiles(t *testing.T, dir string) map[string]time.Time {
	t.Helper()
	files := map[string]time.Time{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			files[path] = info.ModTime()
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
