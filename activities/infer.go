package activities

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/score"
	"github.com/floorbench/floorbench/internal/store"
)

// SystemRef is a system as the workflows pass it: its spec (a few KB of
// YAML, normalised) and its hash.
type SystemRef struct {
	Name string
	YAML []byte
	// Dir is the folder relative model paths in YAML start from.
	Dir  string
	Hash string
	// NeedsModel is true for systems that run an ONNX model: they go to
	// the GPU queue.
	NeedsModel bool
}

// InferInput asks for one system's score tracks on one conversation.
type InferInput struct {
	System       SystemRef
	Corpus       CorpusPlan
	Conversation string
}

// TrackKey is where a system's tracks on a conversation are stored, for
// one task: tracks/<system-hash>/<corpus-hash>/<conv>.<task>.json, a
// probability file of that one conversation.
func TrackKey(systemHash, corpusHash, conv string, task floor.Task) string {
	return fmt.Sprintf("tracks/%s/%s/%s.%s.json", systemHash, corpusHash, conv, task)
}

// Infer runs a detector over one conversation (DESIGN §6) and stores its
// EOT and INT tracks. The INT file is written last and checked first, so a
// stored INT file means both are there.
func (a *Activities) Infer(ctx context.Context, in InferInput) error {
	last := TrackKey(in.System.Hash, in.Corpus.Hash, in.Conversation, floor.TaskINT)
	if done, err := store.Exists(ctx, a.Store, last); err != nil || done {
		return err
	}
	sys, err := detect.ParseSystem(in.System.YAML, in.System.Dir)
	if err != nil {
		return badInput("system %s: %v", in.System.Name, err)
	}
	dir, cleanup, err := a.scratch()
	if err != nil {
		return err
	}
	defer cleanup()
	c, conv, err := a.materialise(ctx, in.Corpus, dir, in.Conversation)
	if err != nil {
		return err
	}
	det, err := sys.Open(a.Runtime)
	if err != nil {
		return badInput("system %s: %v", in.System.Name, err)
	}
	defer det.Close()
	heartbeat(ctx, "detecting")
	audio, err := detect.LoadConversation(c, conv)
	if err != nil {
		return badInput("%v", err)
	}
	scores, err := det.Detect(ctx, audio)
	if err != nil {
		return fmt.Errorf("system %s on %s: %w", in.System.Name, in.Conversation, err)
	}
	for _, t := range []struct {
		task   floor.Task
		tracks [][]float64
	}{{floor.TaskEOT, scores.EOT}, {floor.TaskINT, scores.INT}} {
		var buf bytes.Buffer
		p := &score.ProbsFile{Task: t.task, FrameRate: scores.FrameRate,
			Conversations: []score.ConversationProbs{{ID: in.Conversation, Speakers: t.tracks}}}
		if err := score.WriteProbs(&buf, p); err != nil {
			return err
		}
		if err := a.Store.Put(ctx, TrackKey(in.System.Hash, in.Corpus.Hash, in.Conversation, t.task), &buf); err != nil {
			return err
		}
	}
	return nil
}

// materialise copies a stored corpus's manifest and one conversation's
// channels into dir and opens it there.
func (a *Activities) materialise(ctx context.Context, plan CorpusPlan, dir, conv string) (*corpus.Corpus, corpus.Conversation, error) {
	if err := a.download(ctx, plan.Prefix+"/"+corpus.ManifestName, filepath.Join(dir, corpus.ManifestName)); err != nil {
		return nil, corpus.Conversation{}, err
	}
	c, err := corpus.Open(dir)
	if err != nil {
		return nil, corpus.Conversation{}, badInput("corpus %s: %v", plan.Name, err)
	}
	for _, e := range c.Manifest.Conversations {
		if e.ID != conv {
			continue
		}
		for k := 1; k <= e.Speakers; k++ {
			name := corpus.ChannelName(k)
			if err := a.download(ctx, plan.Prefix+"/"+conv+"/"+name, filepath.Join(dir, conv, name)); err != nil {
				return nil, e, err
			}
		}
		return c, e, nil
	}
	return nil, corpus.Conversation{}, badInput("corpus %s has no conversation %q", plan.Name, conv)
}

func (a *Activities) download(ctx context.Context, key, path string) error {
	r, err := a.Store.Get(ctx, key)
	if err != nil {
		return err
	}
	defer r.Close()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
