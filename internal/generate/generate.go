package generate

import (
	"context"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/floorbench/floorbench/internal/backend"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/synth"
)

// CodeVersion is what a generated corpus's manifest records as the code
// that wrote it: the generator and synth.GeneratorVersion, the same in
// every build of the same generator, locally and in the store.
func CodeVersion() string { return corpus.Writer("mptb-generator", synth.GeneratorVersion) }

// Options is what `corpus generate` asks for.
type Options struct {
	Preset string
	Seed   uint64
	Out    string
	Jobs   int  // conversations generated at once (at least 1)
	Force  bool // replace the corpus already in Out
	// Progress is called after each finished conversation (may be nil).
	Progress func(done, total int)
	// Engines overrides the TTS engines (nil: espeak-ng, flite and festival from $PATH).
	Engines map[string]synth.TTS
	// Backends are the generative backends (nil: the offline ones with
	// Engines); the corpus records their identity.
	Backends *backend.Opened
}

// Corpus generates a whole corpus of a preset (docs/architecture.md#generator).
// Conversations are written one by one into place; the manifest is written
// last, so an interrupted generation leaves a folder that corpus.Open and
// corpus.Check reject.
func Corpus(ctx context.Context, o Options) (*corpus.Manifest, error) {
	preset, err := synth.PresetByName(o.Preset, o.Seed)
	if err != nil {
		return nil, err
	}
	b := o.Backends
	if b == nil {
		if b, err = backend.Open(backend.Config{}, backend.Secrets{}, backend.Operations{}, nil, o.Engines); err != nil {
			return nil, err
		}
		defer b.Close()
	}
	backends, err := b.ForPreset(preset)
	if err != nil {
		return nil, err
	}
	if err := corpus.PrepareOut(o.Out, o.Force); err != nil {
		return nil, err
	}
	m := &corpus.Manifest{SchemaVersion: corpus.SchemaVersion, Kind: corpus.KindMPTB, Preset: preset.Name, Seed: o.Seed,
		CodeVersion: CodeVersion(), SampleRate: corpus.SampleRate, Backends: b.Config.Identity(),
		Conversations: make([]corpus.Conversation, len(preset.Conversations))}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(1, o.Jobs))
	var (
		mu   sync.Mutex
		done int
	)
	for i := range preset.Conversations {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			c, err := synth.GenerateWith(gctx, o.Seed, preset.Conversations[i], backends)
			if err != nil {
				return err
			}
			e, err := WriteConversation(o.Out, c)
			if err != nil {
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			m.Conversations[i] = e
			done++
			if o.Progress != nil {
				o.Progress(done, len(preset.Conversations))
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := corpus.WriteManifest(o.Out, m); err != nil {
		return nil, err
	}
	return m, nil
}
