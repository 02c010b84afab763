package synth

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/childenv"
)

// TTS turns text into speech in a given voice: 16 kHz mono samples.
type TTS interface {
	Synthesize(ctx context.Context, text string, v Voice) ([]float32, error)
}

// Engine names.
const (
	EngineEspeak = "espeak-ng"
	EngineFlite  = "flite"
)

// programEngines are the offline engines NewTTS finds, each a program of
// its name on $PATH.
var programEngines = []string{EngineEspeak, EngineFlite, EngineFestival}

// ProgramTTS synthesises by running a speech program once per utterance.
// espeak-ng is GPL, so it is only ever run as a program, never linked
// (docs/operations.md#tools); flite is run the same way for symmetry.
type ProgramTTS struct {
	Engine  string // EngineEspeak or EngineFlite
	Program string // path or name on $PATH
	TempDir string // where the program writes its WAV ("" = os.TempDir)
}

// ErrMissingProgram is wrapped by NewTTS when a speech program is absent.
var ErrMissingProgram = errors.New("speech program not found")

// NewTTS finds the engines' programs (espeak-ng, flite, festival) on $PATH and fails with one clear
// error naming the missing program and how to install it.
func NewTTS(tempDir string) (map[string]TTS, error) {
	out := map[string]TTS{}
	for _, engine := range programEngines {
		path, err := exec.LookPath(engine)
		if err != nil {
			return nil, fmt.Errorf("%w: %s (install it with: scripts/setup.sh speech)", ErrMissingProgram, engine)
		}
		if engine == EngineFestival {
			out[engine] = &FestivalTTS{Program: path, TempDir: tempDir}
			continue
		}
		out[engine] = &ProgramTTS{Engine: engine, Program: path, TempDir: tempDir}
	}
	return out, nil
}

// CloseTTS stops what the engines keep running (festival's processes);
// engines that run a program per utterance have nothing to stop.
func CloseTTS(engines map[string]TTS) error {
	var errs []error
	for _, e := range engines {
		if c, ok := e.(io.Closer); ok {
			errs = append(errs, c.Close())
		}
	}
	return errors.Join(errs...)
}

// Synthesize runs the program and reads its WAV back, resampled to 16 kHz
// (espeak-ng writes 22,050 Hz).
func (p *ProgramTTS) Synthesize(ctx context.Context, text string, v Voice) ([]float32, error) {
	f, err := os.CreateTemp(p.TempDir, "floorbench-tts-*.wav")
	if err != nil {
		return nil, err
	}
	path := f.Name()
	f.Close()
	defer os.Remove(path)
	var args []string
	switch p.Engine {
	case EngineEspeak:
		args = []string{"-v", v.Name, "-p", strconv.Itoa(v.Pitch), "-s", strconv.Itoa(v.Rate), "-w", path, "--", text}
	case EngineFlite:
		stretch := strconv.FormatFloat(175/float64(v.Rate), 'f', 3, 64)
		args = []string{"-voice", v.Name, "--setf", "duration_stretch=" + stretch,
			"--setf", "int_f0_target_mean=" + strconv.Itoa(v.Pitch), "-t", text, "-o", path}
	default:
		return nil, fmt.Errorf("unknown TTS engine %q", p.Engine)
	}
	cmd := exec.CommandContext(ctx, p.Program, args...)
	// ESPEAK_DATA_PATH: where an espeak-ng outside the system's keeps its voices.
	cmd.Env = childenv.Minimal(os.LookupEnv, "ESPEAK_DATA_PATH")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s -v %s %q: %v: %s", p.Engine, v.Name, text, err, strings.TrimSpace(stderr.String()))
	}
	x, err := audio.ReadWAV16k(filepath.Clean(path))
	if err != nil {
		return nil, fmt.Errorf("%s output: %w", p.Engine, err)
	}
	return x, nil
}
