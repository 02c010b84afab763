package activities

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/floorbench/floorbench/internal/backend"
	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/digest"
	"github.com/floorbench/floorbench/internal/generate"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/synth"
)

// CorpusPlan says where a corpus lives in the store and what it holds.
type CorpusPlan struct {
	Name          string
	Prefix        string // "corpora/<hash>"
	Hash          string
	Preset        string
	Seed          uint64
	Conversations []string
	// Ready is true when corpus.json is already stored (nothing to generate).
	Ready bool
	// Kind is the corpus's kind (corpus.KindMPTB, ...); NoDev is true when
	// it has no labelled dev conversation, so its thresholds are
	// transferred from another corpus's dev split.
	Kind  string
	NoDev bool
	// Backends are a generated corpus's generative backends (zero: the
	// offline ones).
	Backends backend.Config `json:",omitzero"`
}

// planOf is the plan of a stored corpus with manifest m.
func planOf(name, prefix, hash string, m *corpus.Manifest) CorpusPlan {
	p := CorpusPlan{Name: name, Prefix: prefix, Hash: hash, Preset: m.Preset, Seed: m.Seed, Ready: true, Kind: m.Kind, NoDev: true}
	for _, c := range m.Conversations {
		p.Conversations = append(p.Conversations, c.ID)
		if c.Split == "dev" && !c.Unlabelled {
			p.NoDev = false
		}
	}
	return p
}

// PlanGeneratedInput asks for a generated corpus.
type PlanGeneratedInput struct {
	Name     string
	Preset   string
	Seed     uint64
	Backends backend.Config `json:",omitzero"`
}

// GeneratedCorpusHash identifies a generated corpus by what determines its
// bytes: preset, seed, the generator's version (synth.GeneratorVersion)
// and its backends' identity, not the binary's revision, so a change
// elsewhere reuses the audio.
func GeneratedCorpusHash(preset string, seed uint64, b backend.Config) string {
	return keys.GeneratedCorpus(preset, seed, synth.GeneratorVersion, backendsIdentity(b.Identity()))
}

// backendsIdentity is what a generated corpus's hash covers of its
// backends: nothing for the offline ones, so their hash is unchanged.
func backendsIdentity(ids []corpus.Backend) any {
	if len(ids) == 0 {
		return nil
	}
	return ids
}

// PlanGenerated lists a preset's conversations and says whether the corpus
// is already in the store.
func (a *Activities) PlanGenerated(ctx context.Context, in PlanGeneratedInput) (_ CorpusPlan, err error) {
	defer permanent(&err)
	preset, err := synth.PresetByName(in.Preset, in.Seed)
	if err != nil {
		return CorpusPlan{}, badInput("corpus %s: %v", in.Name, err)
	}
	if err := in.Backends.Validate("generate."); err != nil {
		return CorpusPlan{}, badInput("corpus %s: %v", in.Name, err)
	}
	if err := in.Backends.CheckPools(preset, "generate.voices_names"); err != nil {
		return CorpusPlan{}, badInput("corpus %s: %v", in.Name, err)
	}
	hash := GeneratedCorpusHash(in.Preset, in.Seed, in.Backends)
	p := CorpusPlan{Name: in.Name, Prefix: keys.Corpus(hash), Hash: hash, Preset: in.Preset, Seed: in.Seed, Kind: corpus.KindMPTB, Backends: in.Backends}
	for _, c := range preset.Conversations {
		p.Conversations = append(p.Conversations, c.ID)
	}
	p.Ready, err = store.Exists(ctx, a.Store, keys.File(p.Prefix, corpus.ManifestName))
	return p, err
}

// GenerateInput asks for one conversation of a generated corpus.
type GenerateInput struct {
	Prefix, Preset string
	Seed           uint64
	Conversation   string
	Backends       backend.Config `json:",omitzero"`
}

// GenerateConversation synthesises one conversation (docs/architecture.md#generator) and stores
// its channels, its event log and its manifest entry, the entry last: when
// the entry exists the conversation is complete and is not generated again.
// Each conversation has its own seed, so the bytes do not depend on which
// worker or which attempt made them.
func (a *Activities) GenerateConversation(ctx context.Context, in GenerateInput) (err error) {
	defer permanent(&err)
	done, err := store.Exists(ctx, a.Store, keys.Entry(in.Prefix, in.Conversation))
	if err != nil || done {
		return err
	}
	preset, err := synth.PresetByName(in.Preset, in.Seed)
	if err != nil {
		return badInput("%v", err)
	}
	var spec *synth.ConversationSpec
	for i := range preset.Conversations {
		if preset.Conversations[i].ID == in.Conversation {
			spec = &preset.Conversations[i]
		}
	}
	if spec == nil {
		return badInput("preset %s has no conversation %q", in.Preset, in.Conversation)
	}
	b, err := a.generativeBackends(in.Backends)
	if err != nil {
		return badInput("%v", err)
	}
	backends, err := b.ForPreset(preset)
	if err != nil {
		return badInput("%v", err)
	}
	stop := keepAlive(ctx, "synthesising")
	c, err := synth.GenerateWith(ctx, in.Seed, *spec, backends)
	stop()
	if err != nil {
		return err
	}
	dir, cleanup, err := a.scratch()
	if err != nil {
		return err
	}
	defer cleanup()
	entry, err := generate.WriteConversation(dir, c)
	if err != nil {
		return err
	}
	for _, name := range corpus.FileNames(entry.Speakers) {
		if err := putFile(ctx, a.Store, keys.MemberFile(in.Prefix, in.Conversation, name), filepath.Join(dir, in.Conversation, name)); err != nil {
			return err
		}
	}
	data, err := json.Marshal(entry)
	if err != nil {
		return err
	}
	return store.PutBytes(ctx, a.Store, keys.Entry(in.Prefix, in.Conversation), data)
}

// FinalizeInput closes a generated corpus.
type FinalizeInput struct {
	Plan CorpusPlan
}

// FinalizeCorpus writes corpus.json from the stored entries, in preset
// order, after every conversation is stored.
func (a *Activities) FinalizeCorpus(ctx context.Context, in FinalizeInput) (err error) {
	defer permanent(&err)
	key := keys.File(in.Plan.Prefix, corpus.ManifestName)
	if done, err := store.Exists(ctx, a.Store, key); err != nil || done {
		return err
	}
	defer keepAlive(ctx, "finalizing")()
	m := &corpus.Manifest{SchemaVersion: corpus.SchemaVersion, Kind: corpus.KindMPTB, Preset: in.Plan.Preset, Seed: in.Plan.Seed,
		CodeVersion: generate.CodeVersion(), SampleRate: corpus.SampleRate, Backends: in.Plan.Backends.Identity()}
	for _, id := range in.Plan.Conversations {
		data, err := store.GetBytes(ctx, a.Store, keys.Entry(in.Plan.Prefix, id))
		if err != nil {
			return fmt.Errorf("corpus %s: conversation %s: %w", in.Plan.Name, id, err)
		}
		var e corpus.Conversation
		if err := json.Unmarshal(data, &e); err != nil {
			return corrupt(keys.Entry(in.Plan.Prefix, id), err)
		}
		m.Conversations = append(m.Conversations, e)
	}
	if err := m.Validate(a.limits()); err != nil {
		return err
	}
	data, err := m.Encode()
	if err != nil {
		return err
	}
	return store.PutBytes(ctx, a.Store, key, data)
}

// IngestInput asks to copy a local native corpus into the store.
type IngestInput struct {
	Name string
	Dir  string
}

// IngestLocal copies a local corpus (already checked at submission) into
// corpora/<hash of its corpus.json>, skipping files already stored. Every
// file is verified against the sha256 its manifest records before anything
// is uploaded, and again as it is uploaded, so the hash (which covers the
// manifest, and through it every file's sha256) names exactly the bytes
// stored. The manifest is copied last, so a stored manifest means a
// complete corpus.
func (a *Activities) IngestLocal(ctx context.Context, in IngestInput) (_ CorpusPlan, err error) {
	defer permanent(&err)
	m, raw, err := corpus.ReadManifestRaw(in.Dir, a.limits())
	if err != nil {
		return CorpusPlan{}, badInput("corpus %s: %v", in.Name, err)
	}
	c := &corpus.Corpus{Dir: in.Dir, Manifest: m}
	hash := digest.Identity(raw)
	p := planOf(in.Name, keys.Corpus(hash), hash, c.Manifest)
	if done, err := store.Exists(ctx, a.Store, keys.File(p.Prefix, corpus.ManifestName)); err != nil || done {
		return p, err
	}
	stop := keepAlive(ctx, "verifying")
	err = c.Verify()
	stop()
	if err != nil {
		return p, badInput("corpus %s: %v", in.Name, err)
	}
	for i, conv := range c.Manifest.Conversations {
		heartbeat(ctx, i)
		for _, name := range corpus.FilesOf(c.Manifest.Kind, conv) {
			key := keys.MemberFile(p.Prefix, conv.ID, name)
			if ok, err := store.Exists(ctx, a.Store, key); err != nil || ok {
				if err != nil {
					return p, err
				}
				continue
			}
			if err := a.upload(ctx, c, conv, name, key); err != nil {
				return p, badInputIfMismatch(fmt.Sprintf("corpus %s", in.Name), err)
			}
		}
	}
	return p, a.Store.Put(ctx, keys.File(p.Prefix, corpus.ManifestName), bytes.NewReader(raw))
}

// upload stores one file of a local corpus under key, checking its sha256
// as it is read: a file changed since it was verified fails the put, and
// the store keeps nothing of it.
func (a *Activities) upload(ctx context.Context, c *corpus.Corpus, conv corpus.Conversation, name, key string) error {
	f, err := c.OpenFile(conv, name)
	if err != nil {
		return err
	}
	defer f.Close()
	r, err := corpus.VerifiedFile(f, conv.Files[name])
	if err != nil {
		return err
	}
	if err := a.Store.Put(ctx, key, r); err != nil {
		return fmt.Errorf("%s: %w", f.Name(), err)
	}
	return nil
}

// badInputIfMismatch makes a file that does not match its manifest a
// bad-input failure (retrying reads the same bytes).
func badInputIfMismatch(what string, err error) error {
	var m *corpus.Mismatch
	if errors.As(err, &m) {
		return badInput("%s: %v", what, err)
	}
	return err
}

func putFile(ctx context.Context, s store.Store, key, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return s.Put(ctx, key, f)
}

// PlanStoredInput names a native corpus already in the store.
type PlanStoredInput struct {
	Name, Prefix string
}

// PlanStored reads the manifest of a corpus stored under a prefix.
func (a *Activities) PlanStored(ctx context.Context, in PlanStoredInput) (_ CorpusPlan, err error) {
	defer permanent(&err)
	prefix := strings.TrimSuffix(in.Prefix, "/")
	raw, err := store.GetBytes(ctx, a.Store, keys.File(prefix, corpus.ManifestName))
	if err != nil {
		return CorpusPlan{}, badInput("corpus %s: %v", in.Name, err)
	}
	m, err := corpus.ParseManifest(raw, a.limits())
	if err != nil {
		return CorpusPlan{}, badInput("corpus %s: %s/%s: %v", in.Name, prefix, corpus.ManifestName, err)
	}
	return planOf(in.Name, prefix, digest.Identity(raw), m), nil
}
