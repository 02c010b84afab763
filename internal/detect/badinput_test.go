package detect

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDetectorsRejectAudioNotAt16kHz(t *testing.T) {
	c, _ := dialogue(t)
	c.SampleRate = 22050
	for _, family := range []string{"rms", "webrtcvad", "silero"} {
		t.Run(family, func(t *testing.T) {
			_, err := openSystem(t, family, runtimeFor(t, family)).Detect(context.Background(), c)
			if err == nil || !strings.Contains(err.Error(), "22050 Hz") {
				t.Fatalf("got %v, want an error naming the 22050 Hz rate", err)
			}
		})
	}
}

func TestMissingModelOrLibraryNamesTheSetupStep(t *testing.T) {
	rt := onnxRuntime(t)
	noTools := rt
	noTools.Tools = t.TempDir()
	s, _ := Builtin("silero")
	if _, err := s.Open(noTools); err == nil || !strings.Contains(err.Error(), "scripts/setup.sh onnx") {
		t.Errorf("silero without its model: got %v, want an error naming scripts/setup.sh onnx", err)
	}
	noLib := rt
	noLib.OnnxRuntime = filepath.Join(t.TempDir(), "libonnxruntime.so.1")
	if _, err := s.Open(noLib); err == nil || !strings.Contains(err.Error(), "scripts/setup.sh onnx") || !strings.Contains(err.Error(), noLib.OnnxRuntime) {
		t.Errorf("silero without ONNX Runtime: got %v, want an error naming the library and scripts/setup.sh onnx", err)
	}
}

// specWith loads the Silero onnx spec with one text replacement.
func specWith(t *testing.T, old, new string) *System {
	t.Helper()
	data, err := os.ReadFile("testdata/silero-onnx.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(old)) {
		t.Fatalf("testdata/silero-onnx.yaml has no %q", old)
	}
	s, err := ParseSystem(bytes.Replace(data, []byte(old), []byte(new), 1), "testdata")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestOnnxSpecThatDoesNotMatchTheModelIsOneClearError(t *testing.T) {
	rt := onnxRuntime(t)
	for _, tc := range []struct{ name, old, new, want string }{
		{"unknown input", "name: input", "name: audio", `audio "audio": the model has no such input; its inputs are input float32 [? ?], state float32 [2 ? 128], sr int64 []`},
		{"unknown output", "output: output", "output: vad", `scores[0].output "vad": the model has no such output; its outputs are output float32 [? 1], stateN float32 [? ? ?]`},
		{"unknown state output", "output: stateN", "output: state_out", `state[0].output "state_out": the model has no such output`},
		{"model input left out", "    - name: sr\n      type: int64\n      value: 16000\n", "", `the model's input sr int64 [] is not in the spec`},
		{"wrong state size", "[2, batch, 128]", "[2, batch, 64]", `state[0].input.shape [2 batch 64]: dimension 2: the spec gives 64, the model's input is state float32 [2 ? 128]`},
		{"wrong constant type", "type: int64", "type: float32", `constants[0] "sr": the model's input is sr int64 [], the spec gives float32`},
		{"index outside the output", "index: 0", "index: -2", `scores[0]: index -2 outside the 1 values of a frame of the model's output output float32 [? 1]`},
		{"frames past the time axis", "index: 0", "frames: 2", `scores[0].frames 2: the model's output is output float32 [? 1], 1 frames a step`},
		{"wrong model hash", "sha256: 2623", "sha256: 3623", "the spec pins"},
		{"missing model", "silero_vad_v5.onnx", "silero_vad_v9.onnx", "not found (check model.path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := specWith(t, tc.old, tc.new).Open(rt)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got %q, want one line containing %q", err, tc.want)
			}
		})
	}
}

func TestSpecErrorsBeforeAnyModelRuns(t *testing.T) {
	for _, tc := range []struct{ name, spec, want string }{
		{"unknown family", "family: vap\n", `unknown system family "vap"`},
		{"unknown key", "family: rms\ncolour: red\n", `line 2: unknown key "colour"`},
		{"two unknown keys", "family: rms\ncolour: red\nsize: 3\n", `line 2: unknown key "colour"; line 3: unknown key "size"`},
		{"unknown parameter", "family: rms\nparams: {mode: 3}\n", `no parameter "mode"`},
		{"wrong kind", "family: webrtcvad\nparams: {mode: fast}\n", "parameter mode: want an integer"},
		{"model on rms", "family: rms\nmodel: {path: x.onnx}\n", "takes no model"},
		{"onnx without section", "family: onnx\nmodel: {path: x.onnx}\n", "needs an onnx section"},
		{"bad hash", "family: silero\nmodel: {sha256: abc}\n", "64 lowercase hex"},
		{"two documents", "family: rms\n---\nfamily: rms\n", "one YAML document"},
		{"empty", "", "empty spec"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseSystem([]byte(tc.spec), "")
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got %q, want one line containing %q", err, tc.want)
			}
		})
	}
}

// Where CUDA cannot be used (no provider library or no GPU, as on the test
// machines), a CUDA runtime warns and runs on the CPU with the same scores.
func TestCUDAFallsBackToCPUWithAWarning(t *testing.T) {
	rt := onnxRuntime(t)
	var log bytes.Buffer
	cuda := rt
	cuda.Device = DeviceCUDA
	cuda.Logger = slog.New(slog.NewTextHandler(&log, nil))
	c, _ := conversation(t, "short", 2, 4, []utterance{
		{0, 0.2, "en-us", "Is anyone there?"},
		{1, 1.9, "en-gb+f2", "Yes, I am here."},
	})
	onGPU := detect(t, openSystem(t, "silero", cuda), c)
	onCPU := detect(t, openSystem(t, "silero", rt), c)
	if !strings.Contains(log.String(), "level=WARN") || !strings.Contains(log.String(), "CPU") {
		t.Fatalf("no fallback warning logged; log: %q", log.String())
	}
	for k := range onCPU.EOT {
		if i := firstDifference(onCPU.EOT[k], onGPU.EOT[k]); i >= 0 {
			t.Fatalf("speaker %d frame %d: %v after fallback, %v on the CPU", k+1, i, onGPU.EOT[k][i], onCPU.EOT[k][i])
		}
	}
}
