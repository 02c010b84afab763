package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/floorbench/floorbench/internal/atomicfile"
	"github.com/floorbench/floorbench/internal/audio"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/digest"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/synth"
)

// ScenarioWriterVersion is the version of the scenario builder and
// writer: bump it with any change that changes a byte of a scenario folder
// (synth.GeneratorVersion is recorded beside it).
const ScenarioWriterVersion = 2

// ScenarioCodeVersion is what scenarios.json records as the code that
// wrote it: the same in every build of the same builder.
func ScenarioCodeVersion() string { return corpus.Writer("agent-scenarios", ScenarioWriterVersion) }

// SetHash identifies a generated scenario set by what decides its bytes:
// preset, seed, the scenario writer's and the generator's versions.
func SetHash(preset string, seed uint64) string {
	return keys.ScenarioSet(preset, seed, ScenarioWriterVersion, synth.GeneratorVersion)
}

// ContentHash is the content hash of a scenario: its entry in the set
// manifest, which holds the sha256 of each of its files.
func (sc *Scenario) ContentHash() string {
	data, err := json.Marshal(sc)
	if err != nil {
		panic(fmt.Sprintf("agent: scenario %s does not encode: %v", sc.ID, err))
	}
	return digest.Identity(data)
}

// GenerateOptions is what `agent scenarios` asks for.
type GenerateOptions struct {
	Preset string
	Seed   uint64
	Out    string // created; absent or empty before
	Jobs   int    // scenarios built at once (at least 1)
	// Progress is called after each finished scenario (may be nil).
	Progress func(done, total int)
	// Engines overrides the TTS engines (nil: espeak-ng and flite from $PATH).
	Engines map[string]synth.TTS
}

// partialPrefix starts the name of the folder a scenario set, or a
// trial's recording, is written into before it is renamed into place.
const partialPrefix = ".partial-"

// Generate builds every scenario of a preset and writes the set
// (docs/agents.md#scenarios) into a temporary folder beside Out, renamed
// into place at the end (atomicfile.WriteDir): on any error Out is left
// as it was. Scenarios are
// built in parallel; each depends only on (seed, id), so the folder is
// byte-identical for any Jobs.
func Generate(ctx context.Context, o GenerateOptions) (*Set, error) {
	preset, err := ScenarioPresetByName(o.Preset)
	if err != nil {
		return nil, err
	}
	if err := checkEmpty(o.Out); err != nil {
		return nil, err
	}
	engines := o.Engines
	if engines == nil {
		if engines, err = synth.NewTTS(""); err != nil {
			return nil, err
		}
	}
	parent := filepath.Dir(filepath.Clean(o.Out))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	m := &Set{SchemaVersion: SetSchemaVersion, Preset: preset.Name, Seed: o.Seed, CodeVersion: ScenarioCodeVersion(),
		GeneratorVersion: synth.GeneratorVersion, SampleRate: SampleRate, Scenarios: make([]Scenario, len(preset.Designs))}
	err = atomicfile.WriteDir(o.Out, partialPrefix, func(tmp string) error {
		err := forEach(ctx, len(preset.Designs), o.Jobs, o.Progress, func(ctx context.Context, i int) error {
			b, err := Build(ctx, o.Seed, preset.Designs[i], engines)
			if err == nil {
				err = writeScenario(tmp, &b)
			}
			m.Scenarios[i] = b.Scenario
			return err
		})
		if err != nil {
			return err
		}
		if err := m.Validate(); err != nil {
			return fmt.Errorf("generated set: %w", err)
		}
		data, err := encodeJSON(m)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(tmp, SetName), data, 0o644)
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// checkEmpty refuses an output folder that holds anything.
func checkEmpty(dir string) error {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		return fmt.Errorf("output folder %s is not empty", dir)
	}
	return nil
}

// writeScenario writes b's audio into dir/<id> and records the files'
// sha256 in b.Scenario.Files.
func writeScenario(dir string, b *Built) error {
	s := &b.Scenario
	folder := filepath.Join(dir, s.ID)
	if err := os.Mkdir(folder, 0o755); err != nil {
		return err
	}
	files := map[string][]float32{MixName: b.Audio.Mix}
	for i, p := range s.Participants {
		files[ChannelName(p.Speaker)] = b.Audio.Channels[i]
	}
	if s.Background != nil {
		files[BackgroundName] = b.Audio.Background
	}
	if s.Stimulus != nil {
		files[StimulusName] = b.Audio.Stimulus
	}
	s.Files = map[string]string{}
	for name, x := range files {
		path := filepath.Join(folder, name)
		if err := audio.WriteWAV(path, x, SampleRate); err != nil {
			return fmt.Errorf("%s: %w", s.ID, err)
		}
		sum, err := digest.FileSHA256(path)
		if err != nil {
			return err
		}
		s.Files[name] = sum
	}
	return nil
}

// forEach runs fn for 0..n-1 on jobs goroutines, stopping at the first
// error (which it returns) or when ctx ends. progress (may be nil) is
// called after each success.
func forEach(ctx context.Context, n, jobs int, progress func(done, total int), fn func(context.Context, int) error) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(1, jobs))
	var (
		mu   sync.Mutex
		done int
	)
	for i := range n {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			if err := fn(gctx, i); err != nil {
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			done++
			if progress != nil {
				progress(done, n)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return ctx.Err()
}
