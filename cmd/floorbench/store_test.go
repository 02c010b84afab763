package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/activities"
	"github.com/floorbench/floorbench/internal/audit/auditfixture"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/testenv"
)

// smallCorpus writes a corpus of two conversations with two channels each.
func smallCorpus(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "corpus")
	if err := auditfixture.Write(dir, auditfixture.Small(), 1); err != nil {
		t.Fatal(err)
	}
	return dir
}

func flipByte(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0x10
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// store verify exits 0 on a clean store, 1 with one line naming each
// object that changed after upload, 2 on an error.
func TestStoreVerifyReportsChangedObjects(t *testing.T) {
	root := t.TempDir()
	s, err := store.NewLocal(root)
	if err != nil {
		t.Fatal(err)
	}
	a := &activities.Activities{Store: s, Scratch: t.TempDir()}
	plan, err := a.IngestLocal(context.Background(), activities.IngestInput{Name: "c", Dir: smallCorpus(t)})
	if err != nil {
		t.Fatal(err)
	}
	verify := func(args ...string) (string, string, int) {
		return run(t, append([]string{"store", "verify", "--store-dir", root}, args...)...)
	}
	stdout, stderr, code := verify()
	if code != 0 || stdout != "local directory "+root+": 7 objects match (1 corpora; not checked: 0 unfinished corpora, 0 objects without a recorded sha256)\n" {
		t.Fatalf("clean store: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}

	key := keys.MemberFile(plan.Prefix, plan.Conversations[1], corpus.ChannelName(1))
	flipByte(t, filepath.Join(root, filepath.FromSlash(key)))
	stdout, stderr, code = verify()
	if code != 1 || !strings.HasPrefix(stdout, key+": sha256 ") || strings.Count(stdout, "\n") != 1 ||
		stderr != "floorbench: local directory "+root+": 1 of 7 objects do not match their manifests, keys or recorded sha256\n" {
		t.Fatalf("changed object: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	stdout, _, code = verify(plan.Prefix+"/", "-o", "json")
	var r activities.StoreCheck
	if code != 1 || json.Unmarshal([]byte(stdout), &r) != nil || len(r.Problems) != 1 || r.Problems[0].Key != key {
		t.Fatalf("json: exit %d, %q", code, stdout)
	}
	stdout, _, code = verify(keys.Member(plan.Prefix, plan.Conversations[0]) + "/")
	if code != 0 || !strings.HasPrefix(stdout, keys.Member(plan.Prefix, plan.Conversations[0])+"/: 3 objects match (1 corpora") {
		t.Fatalf("another conversation: exit %d, %q", code, stdout)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sums/"}, `floorbench: prefix "sums/": sums are what objects are checked against, not objects to check`},
		{[]string{"corpora/../x"}, `floorbench: store key "corpora/../x": segment ".." is not allowed (letters, digits, '.', '_', '-'; no empty, '.' or '..' segments)`},
		{[]string{"a", "b"}, "floorbench: accepts at most 1 arg(s), received 2"},
		{[]string{"-o", "csv"}, `floorbench: invalid argument "csv" for "-o, --output" flag: want table or json`},
		{[]string{"--nope"}, "floorbench: unknown flag: --nope"},
	} {
		stdout, stderr, code := verify(c.args...)
		if code != 2 || stdout != "" || strings.TrimSpace(stderr) != c.want {
			t.Errorf("%v: exit %d, stdout %q, stderr %q, want %q", c.args, code, stdout, stderr, c.want)
		}
	}
}

// A corpus whose channel changed by one byte, or links to a file outside
// it or to /dev/zero, fails check, gold and detect with one line naming
// the file.
func TestCorpusReadersRefuseChangedAndLinkedFiles(t *testing.T) {
	changed := smallCorpus(t)
	c, err := corpus.Open(changed, limits.Default())
	if err != nil {
		t.Fatal(err)
	}
	conv := c.Manifest.Conversations[0]
	wav := filepath.Join(changed, conv.ID, corpus.ChannelName(1))
	flipByte(t, wav)
	stdout, stderr, code := run(t, "corpus", "check", changed)
	if code != 1 || stdout != "" || !strings.Contains(stderr, conv.ID+": "+wav+": sha256 ") || !strings.Contains(stderr, "the manifest says "+conv.Files[corpus.ChannelName(1)]) ||
		!strings.HasSuffix(stderr, "floorbench: "+changed+": 1 problems in 2 conversations\n") {
		t.Fatalf("check of a changed byte: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}

	for _, target := range []string{"outside", "/dev/zero"} {
		dir := smallCorpus(t)
		path := filepath.Join(dir, conv.ID, corpus.ChannelName(1))
		if target == "outside" {
			target = filepath.Join(t.TempDir(), "speaker.wav")
			if err := os.Rename(path, target); err != nil {
				t.Fatal(err)
			}
		} else if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, path); err != nil {
			t.Fatal(err)
		}
		refused := path + ": is a symbolic link; a corpus folder holds its own files, not links to others"
		stdout, stderr, code := run(t, "corpus", "check", dir)
		if code != 1 || stdout != "" || !strings.HasPrefix(stderr, conv.ID+": "+refused+"\n") {
			t.Errorf("check of a link to %s: exit %d, stdout %q, stderr %q", target, code, stdout, stderr)
		}
		stdout, stderr, code = run(t, "detect", "--system", "rms", "--corpus", dir, "--out", filepath.Join(t.TempDir(), "out"))
		if code != 1 || stdout != "" || !strings.HasSuffix(stderr, "floorbench: conversation \""+conv.ID+"\": "+refused+"\n") {
			t.Errorf("detect with a link to %s: exit %d, stdout %q, stderr %q", target, code, stdout, stderr)
		}
		events := filepath.Join(dir, conv.ID, corpus.EventsName)
		if err := os.Remove(events); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, events); err != nil {
			t.Fatal(err)
		}
		stdout, stderr, code = run(t, "gold", "--corpus", dir)
		if code != 1 || stdout != "" || stderr != "floorbench: "+events+": is a symbolic link; a corpus folder holds its own files, not links to others\n" {
			t.Errorf("gold with a link to %s: exit %d, stdout %q, stderr %q", target, code, stdout, stderr)
		}
	}
}

// A sweep over a generated corpus stores the sha256 of everything not
// named by its content; store verify then finds one flipped byte in the
// generated corpus's corpus.json (named by its recipe, not its content),
// in results.json, in a track and in an evaluation, each by its key.
func TestStoreVerifyFindsAFlippedByteAnywhere(t *testing.T) {
	if _, err := exec.LookPath("espeak-ng"); err != nil {
		if testenv.Required() {
			t.Fatal("espeak-ng not found (scripts/setup.sh speech)")
		}
		t.Skip("espeak-ng not found; skipping (FLOORBENCH_REQUIRE_TOOLS=1 fails instead)")
	}
	tmp := t.TempDir()
	storeDir := filepath.Join(tmp, "store")
	spec := writeFile(t, tmp, "sweep.yaml", "corpora: [{name: tiny, generate: {preset: tiny, seed: 1}}]\nsystems: [{name: r, builtin: rms}]\nbootstrap: {resamples: 20, seed: 1}\n")
	flags := []string{"--config", "", "--store-dir", storeDir}
	if _, stderr, code := run(t, append([]string{"submit", spec, "--in-process"}, flags...)...); code != 0 {
		t.Fatalf("submit --in-process: %s", stderr)
	}
	verify := func() (string, string, int) { return run(t, append([]string{"store", "verify"}, flags...)...) }
	if stdout, stderr, code := verify(); code != 0 || !strings.Contains(stdout, "0 objects without a recorded sha256") {
		t.Fatalf("clean store: exit %d, %q, %q", code, stdout, stderr)
	}
	first := func(pattern string) string {
		m, err := filepath.Glob(filepath.Join(storeDir, filepath.FromSlash(pattern)))
		if err != nil || len(m) == 0 {
			t.Fatalf("%s: %v", pattern, err)
		}
		return m[0]
	}
	for _, pattern := range []string{"corpora/*/corpus.json", "bundles/*/results.json", "tracks/*/*/*.eot.json", "evaluations/*/*/*.json"} {
		path := first(pattern)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// A digit changed keeps the JSON valid, as a flipped bit might.
		i := strings.IndexAny(string(data[len(data)/2:]), "123456789") + len(data)/2
		changed := append([]byte(nil), data...)
		changed[i] = '0'
		if err := os.WriteFile(path, changed, 0o644); err != nil {
			t.Fatal(err)
		}
		key := filepath.ToSlash(strings.TrimPrefix(path, storeDir+"/"))
		stdout, stderr, code := verify()
		if code != 1 || !strings.HasPrefix(stdout, key+": sha256 ") || strings.Count(stdout, "\n") != 1 {
			t.Errorf("%s changed: exit %d, stdout %q, stderr %q", key, code, stdout, stderr)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A bucket that does not exist is one error naming it for every command
// that opens the store, not an empty store; store init creates it.
func TestMissingBucketIsAnError(t *testing.T) {
	if testing.Short() {
		t.Skip("a real MinIO: skipped with -short")
	}
	m := testenv.StartMinIO(t)
	env := []string{"FLOORBENCH_S3_ENDPOINT=" + m.Addr, "FLOORBENCH_S3_BUCKET=nobucket",
		"FLOORBENCH_S3_ACCESS_KEY=" + m.User, "FLOORBENCH_S3_SECRET_KEY=" + m.Secret}
	want := "s3 bucket nobucket at " + m.Addr + ": no such bucket (create it with floorbench store init"
	for _, args := range [][]string{{"bundle", "ls"}, {"store", "verify"}, {"bundle", "get", "abc", "--out", t.TempDir() + "/b"}} {
		stdout, stderr, code, _ := runWith(t, env, append(args, "--config", "")...)
		oneErrorLine(t, stdout, stderr, code, want)
	}
	if stdout, stderr, code, _ := runWith(t, env, "store", "init", "--config", ""); code != 0 || stdout != "s3 bucket nobucket at "+m.Addr+": ready\n" {
		t.Fatalf("store init: exit %d, %q, %q", code, stdout, stderr)
	}
	if stdout, stderr, code, _ := runWith(t, env, "bundle", "ls", "--config", ""); code != 0 {
		t.Errorf("bundle ls after store init: exit %d, %q, %q", code, stdout, stderr)
	}
}
