package activities

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"

	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/evaluate"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/score"
	"github.com/floorbench/floorbench/internal/store"
	"github.com/floorbench/floorbench/internal/sweep"
)

// EvaluateInput asks for one system's evaluation on one corpus.
type EvaluateInput struct {
	System    sweep.SystemRef
	Corpus    CorpusPlan
	Params    score.Params
	Resamples int
	Seed      uint64
	// Transfer, for a corpus without dev data, names the evaluation of the
	// same system whose dev operating points are used here.
	Transfer *Transfer
}

// Transfer is the source of transferred thresholds: a corpus and the
// stored evaluation of the system on it.
type Transfer struct {
	Corpus     string
	Evaluation string // key
}

// EvaluationKey is where an evaluation is stored; the key holds everything
// that determines it.
func EvaluationKey(in EvaluateInput) string {
	return evaluationKey(in, score.ProtocolVersion)
}

// evaluationKey is EvaluationKey under a given protocol version.
func evaluationKey(in EvaluateInput, protocol int) string {
	return keys.Evaluation(in.System.Hash, in.Corpus.Hash, struct {
		V int
		P score.Params
		R int
		S uint64
		T *Transfer `json:",omitempty"`
	}{protocol, in.Params, in.Resamples, in.Seed, in.Transfer})
}

// Evaluate loads a corpus's gold and a system's tracks and runs the
// evaluation of docs/protocol.md#sweep-and-operating-point (evaluate.System); it returns the key of
// the stored result.
func (a *Activities) Evaluate(ctx context.Context, in EvaluateInput) (_ string, err error) {
	defer permanent(&err)
	key := EvaluationKey(in)
	if done, err := a.reusable(ctx, key); err != nil || done {
		return key, err
	}
	// The sweep's spec was checked (CheckSpec); an evaluation started some
	// other way is checked here, before its bootstrap is allocated.
	if err := in.Params.Validate(a.limits()); err != nil {
		return "", badInput("%v", err)
	}
	if err := a.limits().CheckResamples("bootstrap resamples", in.Resamples); err != nil {
		return "", badInput("%v", err)
	}
	defer keepAlive(ctx, "evaluating")()
	c, err := a.LoadCorpus(ctx, in.Corpus)
	if err != nil {
		return "", err
	}
	release, err := a.Memory.admit(ctx, evaluateCost(c.Dev, c.Test))
	if err != nil {
		return "", err
	}
	defer release()
	bin := &evaluate.Input{System: in.System.Name, SystemHash: in.System.Hash, Corpus: c,
		Params: in.Params, Resamples: in.Resamples, Seed: in.Seed}
	if in.Transfer != nil {
		if bin.Transferred, err = a.transferred(ctx, *in.Transfer); err != nil {
			return "", err
		}
	}
	e, err := a.evaluateByTask(ctx, in, bin)
	if err != nil {
		return "", err
	}
	data, err := json.Marshal(e)
	if err != nil {
		return "", err
	}
	return key, store.PutBytes(ctx, a.Store, key, data)
}

// evaluateByTask runs evaluate.System one task at a time, holding one
// task's tracks (both splits) where it held every task's: each task is
// evaluated from its own tracks alone, so the result is the one
// evaluate.System gives from all at once, its tasks in the same order
// (floor.Tasks). A task the system does not score has no tracks and no
// result: it is absent from the evaluation, not scored empty.
func (a *Activities) evaluateByTask(ctx context.Context, in EvaluateInput, bin *evaluate.Input) (*evaluate.Evaluation, error) {
	bin.DevProbs, bin.TestProbs = map[floor.Task]*score.ProbsFile{}, map[floor.Task]*score.ProbsFile{}
	e, err := evaluate.System(bin) // no tracks: the evaluation without its tasks
	if err != nil {
		return nil, badInput("%v", err)
	}
	for _, task := range floor.Tasks {
		if !slices.Contains(in.System.ScoredTasks(), task) {
			continue
		}
		dev, err := a.loadTracks(ctx, in.System.Hash, in.Corpus.Hash, bin.Corpus.Dev, task)
		if err != nil {
			return nil, err
		}
		test, err := a.loadTracks(ctx, in.System.Hash, in.Corpus.Hash, bin.Corpus.Test, task)
		if err != nil {
			return nil, err
		}
		bin.DevProbs, bin.TestProbs = map[floor.Task]*score.ProbsFile{task: dev}, map[floor.Task]*score.ProbsFile{task: test}
		one, err := evaluate.System(bin)
		if err != nil {
			return nil, badInput("%v", err)
		}
		e.Tasks = append(e.Tasks, one.Tasks...)
	}
	return e, nil
}

// transferred reads the dev operating points of a stored evaluation.
func (a *Activities) transferred(ctx context.Context, t Transfer) (map[floor.Task]evaluate.TransferredTheta, error) {
	data, err := store.GetBytes(ctx, a.Store, t.Evaluation)
	if err != nil {
		return nil, err
	}
	var e evaluate.Evaluation
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, corrupt(t.Evaluation, err)
	}
	return e.OperatingPoints(t.Corpus), nil
}

// loadTracks assembles one split's probability file from per-conversation
// tracks, in gold order.
func (a *Activities) loadTracks(ctx context.Context, systemHash, corpusHash string, gold *floor.GoldSet, task floor.Task) (*score.ProbsFile, error) {
	out := &score.ProbsFile{Task: task}
	for _, g := range gold.Conversations {
		data, err := store.GetBytes(ctx, a.Store, keys.Track(systemHash, corpusHash, g.ID, task))
		if err != nil {
			return nil, err
		}
		p, err := score.ParseProbs(data)
		if err != nil {
			return nil, fmt.Errorf("tracks of %s: %w", g.ID, err)
		}
		out.FrameRate = p.FrameRate
		out.Conversations = append(out.Conversations, p.Conversations...)
	}
	return out, nil
}

// LoadCorpus reads a stored corpus's manifest and labels (no audio) into
// its gold per split (by the rules of its kind), attributes, error-anatomy
// labels (generated corpora) and human timing baseline. Unlabelled
// conversations are counted, not scored.
func (a *Activities) LoadCorpus(ctx context.Context, plan CorpusPlan) (_ *evaluate.Corpus, err error) {
	defer permanent(&err)
	dir, cleanup, err := a.scratch()
	if err != nil {
		return nil, err
	}
	defer cleanup()
	if err := a.download(ctx, keys.File(plan.Prefix, corpus.ManifestName), filepath.Join(dir, corpus.ManifestName)); err != nil {
		return nil, err
	}
	c, err := corpus.Open(dir, a.limits())
	if err != nil {
		return nil, badInput("corpus %s: %v", plan.Name, err)
	}
	kind := c.Manifest.Kind
	out := &evaluate.Corpus{Name: plan.Name, Hash: plan.Hash, Kind: kind, Conversations: map[string]evaluate.Conversation{},
		Dev:  &floor.GoldSet{TauPre: floor.DefaultTauPre, TauMax: floor.DefaultTauMax},
		Test: &floor.GoldSet{TauPre: floor.DefaultTauPre, TauMax: floor.DefaultTauMax}}
	var transfers []floor.Transfer
	for _, conv := range c.Manifest.Conversations {
		if conv.Unlabelled {
			out.Unlabelled++
			continue
		}
		if err := a.fetchFile(ctx, plan, c, conv, corpus.LabelsName(kind)); err != nil {
			return nil, err
		}
		l, err := c.Labels(conv)
		if err != nil {
			return nil, badInput("corpus %s: %v", plan.Name, err)
		}
		transfers = append(transfers, floor.Transfers(l.Floor)...)
		bc := evaluate.Conversation{ID: conv.ID, Split: conv.Split,
			Attributes: map[string]string{"speakers": fmt.Sprint(conv.Speakers), "type": conv.InteractionType}}
		if kind == corpus.KindMPTB {
			anatomy := floor.MPTBAnatomy(&l.Gold, l.Events)
			bc.Anatomy = &anatomy
			bc.Attributes["snr_band"] = SNRBand(conv.SNR)
		}
		out.Conversations[conv.ID] = bc
		if conv.Split == "dev" {
			out.Dev.Conversations = append(out.Dev.Conversations, l.Gold)
		} else {
			out.Test.Conversations = append(out.Test.Conversations, l.Gold)
		}
	}
	out.Timing = floor.NewTiming(transfers)
	return out, nil
}

// SNRBand is the breakdown band of a conversation's mean channel SNR:
// 5 dB wide, "20-25" ... "35-40" over MPTB's default 20-38 dB draw.
func SNRBand(snr []float64) string {
	if len(snr) == 0 {
		return "unknown"
	}
	mean := 0.0
	for _, v := range snr {
		mean += v
	}
	mean /= float64(len(snr))
	lo := 5 * math.Floor(mean/5)
	return fmt.Sprintf("%g-%g", lo, lo+5)
}
