package synth

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A speech program runs with a minimal environment: the credentials given
// to floorbench (the worker synthesises with them set) do not reach it.
func TestSpeechProgramsDoNotInheritSecrets(t *testing.T) {
	dir := t.TempDir()
	dump := filepath.Join(dir, "env.txt")
	program := filepath.Join(dir, "fake-espeak")
	if err := os.WriteFile(program, []byte("#!/bin/sh\nenv > "+dump+"\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FLOORBENCH_S3_SECRET_KEY", "s3-secret-in-env")
	t.Setenv("FLOORBENCH_TEMPORAL_API_KEY", "api-key-in-env")
	tts := &ProgramTTS{Engine: EngineEspeak, Program: program, TempDir: dir}
	if _, err := tts.Synthesize(context.Background(), "hello", Voice{Name: "en", Pitch: 50, Rate: 175}); err == nil {
		t.Fatal("the failing program was not reported")
	}
	env, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(env), "-in-env") || !strings.Contains(string(env), "PATH=") {
		t.Errorf("the speech program's environment:\n%s", env)
	}
}
