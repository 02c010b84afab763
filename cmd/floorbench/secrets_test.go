package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floorbench/floorbench/internal/audit/auditfixture"
)

// secretFiles are files shaped like the secrets a machine holds, each with
// the values that must never be shown: a password database, an
// environment file, a private key, cloud and registry credentials in JSON,
// credentials in YAML, a netrc.
var secretFiles = []struct {
	name, content string
	secrets       []string
}{
	{"shadow", "root:$6$Xq9pSECRETsalt$SECRETHASHabcdefghijklmnop:20228:0:99999:7:::\ndaemon:*:20228:0:99999:7:::\n",
		[]string{"SECRET", "Xq9p", "20228"}},
	{"env", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzSECRET\nGITHUB_TOKEN=ghp_16C7e42F292c6912E7710c838347Ae178B4a\n",
		[]string{"SECRET", "wJalrXUtnFEMI", "ghp_16C7e42F292c6912E7710c838347Ae178B4a"}},
	{"key.pem", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQSECRET\n-----END OPENSSH PRIVATE KEY-----\n",
		[]string{"SECRET", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ", "PRIVATE"}},
	{"credentials.json", `{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvSECRET\n", "client_secret": "GOCSPX-SECRETvalue"}`,
		[]string{"SECRET", "MIIEv", "GOCSPX"}},
	{"docker.json", `{"auths": {"registry.example.com": {"auth": "dXNlcjpTRUNSRVQ="}}}`,
		[]string{"dXNlcjpTRUNSRVQ"}},
	{"credentials.yaml", "password: hunter2-SECRET\napi_key: [SECRET-list-value]\ntoken: {value: SECRET-in-a-map}\n",
		[]string{"SECRET", "hunter2"}},
	{"netrc", "machine example.com login alice password SECRETpass99\n",
		[]string{"SECRET", "alice"}},
}

// Every parser of a file a user names is given each secret-shaped file:
// each refuses it with one error line that names the file and quotes
// none of its values.
func TestParsersQuoteNoSecrets(t *testing.T) {
	dir := t.TempDir()
	gold := writeFile(t, dir, "gold.json", cliGold)
	pred := writeFile(t, dir, "p.json", `{"schema_version": 1, "predictions": []}`)
	fixture := filepath.Join(dir, "fixture")
	if err := auditfixture.Write(fixture, auditfixture.Small(), 1); err != nil {
		t.Fatal(err)
	}
	for _, f := range secretFiles {
		secret := writeFile(t, dir, f.name, f.content)
		corpusDir := filepath.Join(dir, "corpus-"+f.name)
		if err := os.MkdirAll(corpusDir, 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, corpusDir, "corpus.json", f.content)
		nxt := filepath.Join(dir, "nxt-"+f.name)
		if err := os.MkdirAll(filepath.Join(nxt, "words"), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(nxt, "words"), "ES2002a.A.words.xml", f.content)
		meetings := writeFile(t, dir, "meetings.txt", "ES2002a\n")
		out := filepath.Join(dir, "out")
		commands := map[string][]string{
			"sweep spec":        {"submit", "-f", secret, "--dry-run", "--config", ""},
			"system spec":       {"detect", "--system-spec", secret, "--corpus", fixture, "--out", out},
			"config":            {"bundle", "ls", "--config", secret},
			"gold":              {"score", "--gold", secret, "--predictions", pred},
			"submission":        {"score", "--gold", gold, "--predictions", secret},
			"attributes":        {"score", "--gold", gold, "--predictions", pred, "--attributes", secret, "--by", "type"},
			"probabilities":     {"leaderboard", "--dev-gold", gold, "--test-gold", gold, "--system", "x=" + secret + "," + secret},
			"annotations":       {"gold", "turnbench", "--annotations", secret},
			"corpus manifest":   {"corpus", "check", corpusDir},
			"meeting list":      {"corpus", "ingest", "ami", "--meetings", secret, "--nxt", nxt, "--audio", dir, "--out", out},
			"NXT words":         {"corpus", "ingest", "ami", "--meetings", meetings, "--nxt", nxt, "--audio", dir, "--out", out},
			"TurnBench parquet": {"corpus", "ingest", "turnbench", "--parquet", secret, "--out", out, "--split", "dev"},
		}
		for what, args := range commands {
			t.Run(f.name+"/"+what, func(t *testing.T) {
				stdout, stderr, code, _ := runWith(t, nil, args...)
				if code == 0 || strings.Count(stderr, "\n") != 1 {
					t.Errorf("exit %d, stderr %q; want one error line", code, stderr)
				}
				for _, s := range f.secrets {
					if strings.Contains(stdout+stderr, s) {
						t.Errorf("the output quotes %q:\nstdout %q\nstderr %q", s, stdout, stderr)
					}
				}
			})
		}
	}
}
