package activities

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/detect/fromcorpus"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/sweep"
)

// InferInput asks for one system's score tracks on a batch of
// conversations of a corpus.
type InferInput struct {
	System sweep.SystemRef
	Corpus CorpusPlan
	// Conversation is the single conversation of executions recorded before
	// batches; Conversations is the batch.
	Conversation  string
	Conversations []string
}

func (in InferInput) batch() []string {
	if in.Conversation != "" {
		return append([]string{in.Conversation}, in.Conversations...)
	}
	return in.Conversations
}

// MaxInferBatch bounds a batch: a retry redoes little and the work still
// spreads over the workers.
const MaxInferBatch = 8

// InferBatch is how many conversations one Infer activity takes so that
// concurrency activities cover n conversations in one wave: each activity
// costs the Temporal server a few writes and opens the detector (an ONNX
// session) once for its whole batch.
func InferBatch(n, concurrency int) int {
	return max(1, min(MaxInferBatch, (n+max(1, concurrency)-1)/max(1, concurrency)))
}

// MaxModelBatch bounds a model stage's batch (RunModel): more
// conversations than an inference batch, so that a model that runs rows
// has speakers enough to fill a session call (detect.Runtime.BatchRows),
// few enough that a retry redoes little.
const MaxModelBatch = 16

// modelSpread is how many activities a model stage's corpus is cut into at
// least, where its conversations allow: the stage still spreads over
// workers, and over the cores of one.
const modelSpread = 8

// ModelBatch is how many conversations one RunModel activity takes: the
// corpus over about modelSpread activities, at most MaxModelBatch
// conversations each, never fewer than an inference batch.
func ModelBatch(n, concurrency int) int {
	return max(InferBatch(n, concurrency), min(MaxModelBatch, (n+modelSpread-1)/modelSpread))
}

// Infer runs a detector over a batch of conversations (docs/architecture.md#detectors) and
// stores each one's tracks of the tasks the system scores (EOT and INT, or
// the one of an EOT-only or INT-only system). The last task's file is
// written last and checked first, so a stored one means all are there,
// a retried batch resumes after the conversations already done, and
// tracks stored whole but corrupt are made again.
func (a *Activities) Infer(ctx context.Context, in InferInput) (err error) {
	defer permanent(&err)
	todo, err := a.tracksToDo(ctx, in.System, in.Corpus, in.batch())
	if err != nil {
		return err
	}
	if len(todo) == 0 {
		return nil
	}
	sys, c, cleanup, err := a.openSystemOn(ctx, in.System, in.Corpus)
	if err != nil {
		return err
	}
	defer cleanup()
	det, err := sys.Open(a.runtime())
	if err != nil {
		return badInput("system %s: %v", in.System.Name, err)
	}
	defer det.Close()
	defer keepAlive(ctx, "detecting")()
	for _, conv := range todo {
		if err := a.inferOne(ctx, in, c, det, conv); err != nil {
			return err
		}
	}
	return nil
}

// placeFiles copies a system's uploaded files into dir, one per role, checks
// each against the hash its key names, and points the system at them.
func (a *Activities) placeFiles(ctx context.Context, sys *detect.System, files map[string]string, dir string) error {
	for _, role := range slices.Sorted(maps.Keys(files)) {
		key := files[role]
		path := filepath.Join(dir, role)
		sha, ok := strings.CutPrefix(key, keys.Inputs)
		if !ok {
			return badInput("system: file %s is not an uploaded input (%s<sha256>)", key, keys.Inputs)
		}
		if err := a.fetchVerified(ctx, key, sha, math.MaxInt64, path); err != nil {
			return err
		}
		if err := sys.UseFile(role, path); err != nil {
			return badInput("system: %v", err)
		}
	}
	return nil
}

// inferOne fetches one conversation's channels, runs the detector on them,
// stores the tracks and removes the channels again.
func (a *Activities) inferOne(ctx context.Context, in InferInput, c *corpus.Corpus, det detect.Detector, id string) error {
	i := slices.IndexFunc(c.Manifest.Conversations, func(e corpus.Conversation) bool { return e.ID == id })
	if i < 0 {
		return badInput("corpus %s has no conversation %q", in.Corpus.Name, id)
	}
	release, err := a.Memory.admit(ctx, inferCost(c.Manifest.Conversations[i]))
	if err != nil {
		return err
	}
	defer release()
	conv, err := a.materialise(ctx, in.Corpus, c, id)
	if err != nil {
		return err
	}
	defer os.RemoveAll(filepath.Join(c.Dir, id))
	audio, err := fromcorpus.Conversation(c, conv)
	if err != nil {
		return badInput("%v", err)
	}
	scores, err := det.Detect(ctx, audio)
	if err != nil {
		return fmt.Errorf("system %s on %s: %w", in.System.Name, id, err)
	}
	return a.putTracks(ctx, in.System, in.Corpus.Hash, id, scores)
}

// materialise copies one conversation's channels of a stored corpus into
// the folder of its opened manifest.
func (a *Activities) materialise(ctx context.Context, plan CorpusPlan, c *corpus.Corpus, id string) (corpus.Conversation, error) {
	for _, e := range c.Manifest.Conversations {
		if e.ID != id {
			continue
		}
		for k := 1; k <= e.Speakers; k++ {
			if err := a.fetchFile(ctx, plan, c, e, corpus.ChannelName(k)); err != nil {
				return e, err
			}
		}
		return e, nil
	}
	return corpus.Conversation{}, badInput("corpus %s has no conversation %q", plan.Name, id)
}

// fetchFile copies file name of a stored corpus's conversation into the
// folder of its opened manifest, checking its bytes against the sha256
// the manifest records: an object that differs (or is larger than the
// manifest allows) fails at once, naming its key.
func (a *Activities) fetchFile(ctx context.Context, plan CorpusPlan, c *corpus.Corpus, conv corpus.Conversation, name string) error {
	return a.fetchVerified(ctx, keys.MemberFile(plan.Prefix, conv.ID, name), conv.Files[name], corpus.MaxFileSize(conv, name), filepath.Join(c.Dir, conv.ID, name))
}

// fetchVerified copies a stored object to path, checking as it streams
// that it has the sha256 want and at most max bytes; an object that does
// not is corrupt (not retried), named by its key.
func (a *Activities) fetchVerified(ctx context.Context, key, want string, max int64, path string) error {
	r, err := a.Store.Get(ctx, key)
	if err != nil {
		return err
	}
	defer r.Close()
	err = a.save(corpus.Verified(r, want, max), path)
	var bad *corpus.Mismatch
	if errors.As(err, &bad) || errors.Is(err, corpus.ErrTooLarge) {
		return corrupt(key, err)
	}
	return err
}

func (a *Activities) download(ctx context.Context, key, path string) error {
	r, err := a.Store.Get(ctx, key)
	if err != nil {
		return err
	}
	defer r.Close()
	return a.save(r, path)
}

// save writes r to path, creating its folder.
func (a *Activities) save(r io.Reader, path string) error {
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
