package activities

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"go.temporal.io/sdk/temporal"

	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/detect/fromcorpus"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/score"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/sweep"
)

// ModelInput asks for a model stage's outputs on a batch of conversations
// of a corpus.
type ModelInput struct {
	// System runs the model: the first of the sweep's systems whose
	// ModelHash it is. Every system with that hash maps the outputs.
	System        sweep.SystemRef
	Corpus        CorpusPlan
	Conversations []string
}

// ModelResult says on how many of a batch's conversations the model ran;
// the others' outputs were stored already.
type ModelResult struct {
	Ran int
}

// RunModel runs a system's model stage (docs/architecture.md#detectors)
// over a batch of conversations and stores each one's output under
// keys.ModelOutput, as it completes. A model that runs rows (Silero, onnx)
// runs the batch's speakers as rows of one session call, as many as the
// worker's Runtime.BatchRows and memory budget allow (detect.Model.RunAll).
// Outputs already stored are skipped, so a retried batch resumes after
// the conversations done; one stored but corrupt (its bytes do not match
// its recorded sum) is run again and overwritten.
func (a *Activities) RunModel(ctx context.Context, in ModelInput) (res ModelResult, err error) {
	defer permanent(&err)
	if in.System.ModelHash == "" {
		return res, badInput("system %s has no model stage", in.System.Name)
	}
	var todo []string
	for _, conv := range in.Conversations {
		done, err := a.reusable(ctx, keys.ModelOutput(in.System.ModelHash, in.Corpus.Hash, conv))
		if err != nil {
			return res, err
		}
		if !done {
			todo = append(todo, conv)
		}
	}
	if len(todo) == 0 {
		return res, nil
	}
	sys, c, cleanup, err := a.openSystemOn(ctx, in.System, in.Corpus)
	if err != nil {
		return res, err
	}
	defer cleanup()
	entries := make([]corpus.Conversation, len(todo))
	for k, id := range todo {
		i := slices.IndexFunc(c.Manifest.Conversations, func(e corpus.Conversation) bool { return e.ID == id })
		if i < 0 {
			return res, badInput("corpus %s has no conversation %q", in.Corpus.Name, id)
		}
		entries[k] = c.Manifest.Conversations[i]
	}
	m, err := sys.OpenModel(a.runtime())
	if err != nil {
		return res, badInput("system %s: %v", in.System.Name, err)
	}
	defer m.Close()
	defer keepAlive(ctx, "running the model")()
	f := &modelFeed{ctx: ctx, a: a, in: in, corpus: c, todo: entries, held: map[string]func(){}}
	defer f.releaseAll()
	if err := m.RunAll(ctx, detect.Feed{Next: f.next, Done: f.done}); err != nil {
		if _, ok := err.(*temporal.ApplicationError); ok {
			return res, err // bad input or a corrupt object, as the feed said
		}
		err = fmt.Errorf("model of system %s: %w", in.System.Name, err)
		if app := (*temporal.ApplicationError)(nil); errors.As(err, &app) {
			// A channel's file, read as the model runs, is bad input.
			return res, temporal.NewNonRetryableApplicationError(err.Error(), app.Type(), err)
		}
		return res, err
	}
	return ModelResult{Ran: f.ran}, nil
}

// openSystemOn parses a system, places its uploaded files and opens the
// stored corpus's manifest, in a scratch folder the returned cleanup
// removes.
func (a *Activities) openSystemOn(ctx context.Context, ref sweep.SystemRef, plan CorpusPlan) (*detect.System, *corpus.Corpus, func(), error) {
	sys, err := detect.ParseSystem(ref.YAML, ref.Dir)
	if err != nil {
		return nil, nil, nil, badInput("system %s: %v", ref.Name, err)
	}
	dir, cleanup, err := a.scratch()
	if err != nil {
		return nil, nil, nil, err
	}
	if err := a.placeFiles(ctx, sys, ref.Files, filepath.Join(dir, "system")); err != nil {
		cleanup()
		return nil, nil, nil, err
	}
	if err := a.download(ctx, keys.File(plan.Prefix, corpus.ManifestName), filepath.Join(dir, corpus.ManifestName)); err != nil {
		cleanup()
		return nil, nil, nil, err
	}
	c, err := corpus.Open(dir, a.limits())
	if err != nil {
		cleanup()
		return nil, nil, nil, badInput("corpus %s: %v", plan.Name, err)
	}
	return sys, c, cleanup, nil
}

// modelFeed hands RunModel's conversations to the model one at a time,
// each admitted against the worker's memory budget while it runs, by
// what it holds there (modelCost): with
// others running it does not wait for memory they hold (detect.ErrBusy).
type modelFeed struct {
	ctx    context.Context
	a      *Activities
	in     ModelInput
	corpus *corpus.Corpus
	todo   []corpus.Conversation
	given  int               // conversations of todo handed out
	held   map[string]func() // each running conversation's release
	ran    int
}

func (f *modelFeed) next(ctx context.Context, busy bool) (*detect.Conversation, error) {
	if f.given == len(f.todo) {
		return nil, nil
	}
	id := f.todo[f.given].ID
	cost := modelCost(f.todo[f.given])
	release, ok := f.a.Memory.tryAdmit(cost)
	if !ok && busy {
		return nil, detect.ErrBusy
	}
	if !ok {
		var err error
		if release, err = f.a.Memory.admit(ctx, cost); err != nil {
			return nil, err
		}
	}
	conv, err := f.load(ctx, id)
	if err != nil {
		release()
		return nil, err
	}
	f.held[id] = release
	f.given++
	return conv, nil
}

// load copies one conversation's channels from the store to the scratch
// folder, where the model reads them a block at a time as its rows need
// them (fromcorpus.Stream): a running conversation holds a window of
// each channel, not the whole.
func (f *modelFeed) load(ctx context.Context, id string) (*detect.Conversation, error) {
	entry, err := f.a.materialise(ctx, f.in.Corpus, f.corpus, id)
	if err != nil {
		return nil, err
	}
	conv := fromcorpus.Stream(f.corpus, entry)
	open := conv.Open
	conv.Open = func(k int) (detect.ChannelReader, error) {
		r, err := open(k)
		if err != nil {
			return nil, badInput("%v", err)
		}
		return badInputReader{r}, nil
	}
	return conv, nil
}

// badInputReader is a channel of a stored corpus whose reading fails as
// bad input, as reading it whole did: its bytes matched the manifest's
// sum, so reading again fails again.
type badInputReader struct{ detect.ChannelReader }

func (r badInputReader) Read(p []float32) (int, error) {
	n, err := r.ChannelReader.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		err = badInput("%v", err)
	}
	return n, err
}

// done stores a conversation's output and lets go of its audio.
func (f *modelFeed) done(c *detect.Conversation, out *detect.ModelOutput) error {
	defer f.release(c.ID)
	var buf bytes.Buffer
	if err := detect.WriteModelOutput(&buf, out); err != nil {
		return fmt.Errorf("conversation %s: %w", c.ID, err)
	}
	if err := f.a.Store.Put(f.ctx, keys.ModelOutput(f.in.System.ModelHash, f.in.Corpus.Hash, c.ID), &buf); err != nil {
		return err
	}
	f.ran++
	return nil
}

func (f *modelFeed) release(id string) {
	os.RemoveAll(filepath.Join(f.corpus.Dir, id))
	if r, ok := f.held[id]; ok {
		r()
		delete(f.held, id)
	}
}

// releaseAll lets go of what conversations left running hold.
func (f *modelFeed) releaseAll() {
	for id := range f.held {
		f.release(id)
	}
}

// FloorInput asks for one system's score tracks on a batch of
// conversations, from its model stage's stored outputs.
type FloorInput struct {
	System        sweep.SystemRef
	Corpus        CorpusPlan
	Conversations []string
}

// MapFloor is a system's floor stage: for each conversation of the batch
// it reads the model output stored under the system's ModelHash, maps it
// to the tracks of the tasks the system scores (detect.System.MapOutput)
// and stores them as Infer does, the last task last. Conversations whose
// tracks are stored (and match their sums) are skipped. It reads no audio and runs no model, so
// it runs on the cpu queue.
func (a *Activities) MapFloor(ctx context.Context, in FloorInput) (err error) {
	defer permanent(&err)
	sys, err := detect.ParseSystem(in.System.YAML, in.System.Dir)
	if err != nil {
		return badInput("system %s: %v", in.System.Name, err)
	}
	sys.Name = in.System.Name
	todo, err := a.tracksToDo(ctx, in.System, in.Corpus, in.Conversations)
	if err != nil {
		return err
	}
	for _, conv := range todo {
		out, err := a.modelOutput(ctx, in, conv)
		if err != nil {
			return err
		}
		scores, err := sys.MapOutput(out)
		if err != nil {
			return badInput("system %s on %s: %v", in.System.Name, conv, err)
		}
		if err := a.putTracks(ctx, in.System, in.Corpus.Hash, conv, scores); err != nil {
			return err
		}
	}
	return nil
}

// modelOutput reads a stored model output; one that is missing means the
// model stage has not run, which retrying cannot change.
func (a *Activities) modelOutput(ctx context.Context, in FloorInput, conv string) (*detect.ModelOutput, error) {
	key := keys.ModelOutput(in.System.ModelHash, in.Corpus.Hash, conv)
	r, err := a.Store.Get(ctx, key)
	if errors.Is(err, store.ErrNotFound) {
		return nil, badInput("system %s on %s: model output %s is not stored (the model stage runs first)", in.System.Name, conv, key)
	}
	if err != nil {
		return nil, err
	}
	defer r.Close()
	out, err := detect.ReadModelOutput(r, a.limits())
	if err != nil {
		return nil, corrupt(key, err)
	}
	return out, nil
}

// putTracks stores a conversation's tracks of the tasks the system scores,
// in floor.Tasks order (INT last): a stored track of its last task means
// all are there. A detector that gives no track of a task the system
// scores, or one of a task it does not, is a bad system.
func (a *Activities) putTracks(ctx context.Context, sys sweep.SystemRef, corpusHash, id string, scores *detect.Scores) error {
	tasks := sys.ScoredTasks()
	for _, task := range floor.Tasks {
		tracks := scores.Tracks(task)
		switch scored := slices.Contains(tasks, task); {
		case scored && tracks == nil:
			return badInput("system %s on %s: its detector gave no %s tracks; the system scores %v", sys.Name, id, task, tasks)
		case !scored && tracks != nil:
			return badInput("system %s on %s: its detector gave %s tracks; the system scores %v only", sys.Name, id, task, tasks)
		case !scored:
			continue
		}
		var buf bytes.Buffer
		p := &score.ProbsFile{Task: task, FrameRate: scores.FrameRate,
			Conversations: []score.ConversationProbs{{ID: id, Speakers: tracks}}}
		if err := score.WriteProbs(&buf, p); err != nil {
			return err
		}
		if err := a.Store.Put(ctx, keys.Track(sys.Hash, corpusHash, id, task), &buf); err != nil {
			return err
		}
	}
	return nil
}

// tracksToDo are the conversations of convs whose tracks are not all
// stored and sound (tracksStored; putTracks writes the last task's last).
func (a *Activities) tracksToDo(ctx context.Context, sys sweep.SystemRef, plan CorpusPlan, convs []string) ([]string, error) {
	var todo []string
	for _, conv := range convs {
		done, err := a.tracksStored(ctx, sys, plan.Hash, conv)
		if err != nil {
			return nil, err
		}
		if !done {
			todo = append(todo, conv)
		}
	}
	return todo, nil
}
