package corpus

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/floorbench/floorbench/internal/synth"
	"github.com/floorbench/floorbench/internal/version"
)

// channelFile matches the name of a speaker channel.
var channelFile = regexp.MustCompile(`^speaker_[1-9][0-9]?\.wav$`)

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
	if err := prepareOut(o.Out, o.Force); err != nil {
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
	if err := writeManifest(o.Out, m); err != nil {
		return nil, err
	}
	return m, nil
}

// prepareOut makes sure Out can receive a corpus. A non-empty folder is
// only replaced with force, and only if everything in it is a corpus's
// (a manifest, conversation folders, partial folders of an interrupted
// run): --force must never empty a folder of someone's other files.
func prepareOut(dir string, force bool) error {
	entries, err := checkOut(dir, force)
	if errors.Is(err, os.ErrNotExist) {
		return os.MkdirAll(dir, 0o755)
	}
	if err != nil || len(entries) == 0 {
		return err
	}
	// The manifest goes first: from here on the folder is not a corpus.
	if err := os.RemoveAll(filepath.Join(dir, ManifestName)); err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// checkOut says, without changing anything, whether prepareOut may use
// dir, and returns its entries; an error wrapping os.ErrNotExist when
// there is no such folder.
func checkOut(dir string, force bool) ([]os.DirEntry, error) {
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) == 0 {
		return entries, err
	}
	if !force {
		return nil, fmt.Errorf("output folder %s is not empty (use --force to replace the corpus in it)", dir)
	}
	for _, e := range entries {
		if !corpusEntry(dir, e) {
			return nil, fmt.Errorf("refusing to replace %s: %s is not part of a floorbench corpus", dir, e.Name())
		}
	}
	return entries, nil
}

// corpusEntry reports whether a folder entry is one a generator writes.
func corpusEntry(dir string, e os.DirEntry) bool {
	name := e.Name()
	switch {
	case name == ManifestName || strings.HasPrefix(name, partialPrefix):
		return true
	case !e.IsDir() || !synth.ValidID(name):
		return false
	}
	files, err := os.ReadDir(filepath.Join(dir, name))
	if err != nil {
		return false
	}
	for _, f := range files {
		if f.IsDir() || (f.Name() != EventsName && f.Name() != AnnotationsName && !channelFile.MatchString(f.Name())) {
			return false
		}
	}
	return true
}
