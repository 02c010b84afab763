package corpus

import (
	"context"
	"sync"

	"github.com/floorbench/floorbench/internal/synth"
	"github.com/floorbench/floorbench/internal/version"
)

// GenerateOptions is what `corpus generate` asks for.
type GenerateOptions struct {
	Preset string
	Seed   uint64
	Out    string
	Jobs   int  // conversations generated at once (at least 1)
	Force  bool // replace the corpus already in Out
	// Progress is called after each finished conversation (may be nil).
	Progress func(done, total int)
	// Engines overrides the TTS engines (nil: espeak-ng and flite from $PATH).
	Engines map[string]synth.TTS
}

// CodeVersion is what manifests record as the code that wrote them
// (version.Code): never "(devel)".
func CodeVersion() string { return version.Code() }

// Generate writes a whole corpus. Conversations are written one by one
// into place; the manifest is written last, so an interrupted generation
// leaves a folder that Open and Check reject.
func Generate(ctx context.Context, o GenerateOptions) (*Manifest, error) {
	preset, err := synth.PresetByName(o.Preset, o.Seed)
	if err != nil {
		return nil, err
	}
	engines := o.Engines
	if engines == nil {
		if engines, err = synth.NewTTS(""); err != nil {
			return nil, err
		}
	}
	if err := PrepareOut(o.Out, o.Force); err != nil {
		return nil, err
	}
	m := &Manifest{SchemaVersion: SchemaVersion, Kind: KindMPTB, Preset: preset.Name, Seed: o.Seed,
		CodeVersion: CodeVersion(), SampleRate: SampleRate,
		Conversations: make([]Conversation, len(preset.Conversations))}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		firstErr error
		done     int
		wg       sync.WaitGroup
	)
	next := make(chan int)
	for range max(1, o.Jobs) {
		wg.Go(func() {
			for i := range next {
				c, err := synth.Generate(ctx, o.Seed, preset.Conversations[i], engines)
				var e Conversation
				if err == nil {
					e, err = WriteConversation(o.Out, c)
				}
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
					cancel()
				}
				m.Conversations[i] = e
				done++
				if o.Progress != nil && err == nil {
					o.Progress(done, len(preset.Conversations))
				}
				mu.Unlock()
			}
		})
	}
feed:
	for i := range preset.Conversations {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := WriteManifest(o.Out, m); err != nil {
		return nil, err
	}
	return m, nil
}
