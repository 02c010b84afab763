package audit

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/floorbench/floorbench/internal/corpus"
	"github.com/floorbench/floorbench/internal/detect"
	"github.com/floorbench/floorbench/internal/detect/fromcorpus"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/limits"
	"github.com/floorbench/floorbench/internal/score"
)

// Version is the audit's code version, part of every stored audit's key:
// bump it with any change that changes a report.
//
// 2: every rule under both negative windows, flagged under either;
// recall within each latency budget.
const Version = 2

// Options are an audit's parameters.
type Options struct {
	Params    score.Params
	FrameRate float64
	// Split is the split the frozen rules are scored on ("test"); the
	// threshold is picked on dev, or on Split itself when dev has no
	// labelled conversation.
	Split string
	// INTFlagRecall and EOTFlagRecall are the in-budget test recall at
	// which a feature is flagged as a shortcut on that task; 0 turns the
	// flag off.
	INTFlagRecall, EOTFlagRecall float64
	Resamples                    int
	Seed                         uint64
	// Progress, when set, is called after each conversation is read.
	Progress func() `json:"-"`
	// TracksDir, when set, is a folder (new, or empty) that Run fills
	// with every feature's score tracks of both splits as probability
	// files (writeTracks), before it scores them.
	TracksDir string `json:"-"`
}

// Defaults for Options.
const (
	DefaultFrameRate     = 100.0
	DefaultINTFlagRecall = 0.50
	DefaultResamples     = 1000
)

// DefaultOptions returns the published protocol with the audit's defaults.
func DefaultOptions() Options {
	return Options{Params: score.DefaultParams(), FrameRate: DefaultFrameRate, Split: "test",
		INTFlagRecall: DefaultINTFlagRecall, Resamples: DefaultResamples, Seed: 1}
}

func (o Options) validate(lim limits.Limits) error {
	if err := o.Params.Validate(lim); err != nil {
		return err
	}
	if !(o.FrameRate > 0 && o.FrameRate <= detect.SampleRate) {
		return fmt.Errorf("frame rate must be in (0, %d] Hz, got %v", detect.SampleRate, o.FrameRate)
	}
	if o.Split != "dev" && o.Split != "test" {
		return fmt.Errorf("split %q (want dev or test)", o.Split)
	}
	for _, r := range []float64{o.INTFlagRecall, o.EOTFlagRecall} {
		if !(r >= 0 && r <= 1) {
			return fmt.Errorf("shortcut recall must be in [0, 1] (0: off), got %v", r)
		}
	}
	if o.Resamples < 0 {
		return fmt.Errorf("bootstrap resamples must be >= 0, got %d", o.Resamples)
	}
	return lim.CheckResamples("bootstrap resamples", o.Resamples)
}

// labelledSplit is the gold and frames of one split's labelled
// conversations, in manifest order.
type labelledSplit struct {
	gold   *floor.GoldSet
	frames []*Frames
}

func (s *labelledSplit) probs(f Feature, fps float64) *score.ProbsFile {
	p := &score.ProbsFile{Task: f.Task, FrameRate: fps}
	for i, g := range s.gold.Conversations {
		c := score.ConversationProbs{ID: g.ID}
		for k := range s.frames[i].Speech {
			c.Speakers = append(c.Speakers, f.Track(s.frames[i], k))
		}
		p.Conversations = append(p.Conversations, c)
	}
	return p
}

// Run audits the native corpus in dir: every feature of Features through
// the protocol, per task. lim bounds the options and the corpus.
func Run(ctx context.Context, dir string, o Options, lim limits.Limits) (*Report, error) {
	if err := o.validate(lim); err != nil {
		return nil, err
	}
	c, err := corpus.Open(dir, lim)
	if err != nil {
		return nil, err
	}
	splits, info, err := load(ctx, c, o)
	if err != nil {
		return nil, err
	}
	sel, eval := splits["dev"], splits[o.Split]
	info.ThresholdSplit = "dev"
	if len(sel.gold.Conversations) == 0 {
		sel, info.ThresholdSplit = eval, o.Split
	}
	if len(eval.gold.Conversations) == 0 {
		return nil, fmt.Errorf("%s: no labelled %s conversations to audit", dir, o.Split)
	}
	var rs *score.Resamples
	if o.Resamples > 0 {
		rs = score.NewResamples(len(eval.gold.Conversations), o.Resamples, o.Seed)
	}
	r := &Report{SchemaVersion: SchemaVersion, Corpus: info, Params: newParams(o)}
	features := Features(info.WordCounts)
	if o.TracksDir != "" {
		if err := writeTracks(o.TracksDir, splits, features, o.FrameRate); err != nil {
			return nil, err
		}
	}
	for _, task := range floor.Tasks {
		ta := TaskAudit{Task: task}
		var evals []*score.TaskEvaluation
		for _, f := range features {
			if f.Task != task {
				continue
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			fr, e, err := auditFeature(f, sel, eval, o, rs)
			if err != nil {
				return nil, fmt.Errorf("feature %s: %w", f.Name, err)
			}
			ta.Features = append(ta.Features, fr)
			evals = append(evals, e)
		}
		ta.finish(evals, flagRecall(o, task))
		r.Tasks = append(r.Tasks, ta)
	}
	return r, nil
}

func flagRecall(o Options, t floor.Task) float64 {
	if t == floor.TaskINT {
		return o.INTFlagRecall
	}
	return o.EOTFlagRecall
}

// load reads every labelled conversation's gold and frames, by split.
func load(ctx context.Context, c *corpus.Corpus, o Options) (map[string]*labelledSplit, CorpusInfo, error) {
	info := CorpusInfo{Kind: c.Manifest.Kind}
	splits := map[string]*labelledSplit{}
	for _, s := range []string{"dev", "test"} {
		splits[s] = &labelledSplit{gold: &floor.GoldSet{TauPre: o.Params.TauPre, TauMax: o.Params.TauMax}}
	}
	convs, err := c.Conversations("")
	if err != nil {
		return nil, info, err
	}
	for _, conv := range convs {
		if err := ctx.Err(); err != nil {
			return nil, info, err
		}
		l, err := c.Labels(conv)
		if errors.Is(err, corpus.ErrUnlabelled) {
			info.Unlabelled++
			continue
		}
		if err != nil {
			return nil, info, err
		}
		audio, err := fromcorpus.Conversation(c, conv)
		if err != nil {
			return nil, info, err
		}
		fr, err := newFrames(ctx, audio, l.Events, o.FrameRate)
		if err != nil {
			return nil, info, err
		}
		if fr.Words != nil {
			info.WordCounts = true
		}
		s := splits[conv.Split]
		s.gold.Conversations = append(s.gold.Conversations, l.Gold)
		s.frames = append(s.frames, fr)
		if o.Progress != nil {
			o.Progress()
		}
	}
	info.Dev, info.Test = len(splits["dev"].gold.Conversations), len(splits["test"].gold.Conversations)
	if info.WordCounts {
		// A conversation without any word count still has a word track
		// (all zero), so the feature sees every conversation.
		for _, s := range splits {
			for _, fr := range s.frames {
				if fr.Words == nil {
					fr.Words = make([][]uint16, len(fr.Speech))
					for k := range fr.Words {
						fr.Words[k] = make([]uint16, len(fr.Speech[k]))
					}
				}
			}
		}
	}
	return splits, info, nil
}

// newFrames computes a conversation's frames: voice activity from the
// audio as the rms baseline sees it, frame energy, and word counts from
// events when any event has words.
func newFrames(ctx context.Context, c *detect.Conversation, events []floor.Event, fps float64) (*Frames, error) {
	act, err := detect.EnergyActivity(ctx, c, fps)
	if err != nil {
		return nil, err
	}
	n := score.FrameCount(c.Duration, fps)
	f := &Frames{FrameRate: fps}
	for k, a := range act {
		speech := make([]bool, n)
		for i, v := range a {
			speech[i] = v >= 0.5
		}
		f.Speech = append(f.Speech, speech)
		f.EnergyDB = append(f.EnergyDB, frameEnergy(c.Channels[k], n, fps))
	}
	if slices.ContainsFunc(events, func(e floor.Event) bool { return e.Words > 0 }) {
		for k := range act {
			f.Words = append(f.Words, wordCounts(events, k+1, n, fps))
		}
	}
	return f, nil
}

// auditFeature runs one feature through the protocol under each negative
// window: candidates and the operating point on sel, the threshold frozen
// on eval. It returns the evaluation under the configured window.
func auditFeature(f Feature, sel, eval *labelledSplit, o Options, rs *score.Resamples) (FeatureResult, *score.TaskEvaluation, error) {
	p := o.Params
	selProbs := sel.probs(f, o.FrameRate)
	evalProbs := selProbs
	if eval != sel {
		evalProbs = eval.probs(f, o.FrameRate)
	}
	evals, err := score.EvaluateTaskWindows(score.TaskInput{System: f.Name, DevGold: sel.gold, Dev: selProbs, TestGold: eval.gold, Test: evalProbs}, p)
	if err != nil {
		return FeatureResult{}, nil, err
	}
	// The AUC is read on eval over the same candidates, which every
	// window shares.
	thetas := make([]float64, len(evals[0].DevCurve))
	for i, c := range evals[0].DevCurve {
		thetas[i] = c.Theta
	}
	evalRows, err := score.Sweep(eval.gold, evalProbs, thetas, p)
	if err != nil {
		return FeatureResult{}, nil, err
	}
	r := FeatureResult{Name: f.Name, Label: f.Label, Oracle: f.Oracle, CrossChannel: f.CrossChannel, Unit: f.Kind.Unit(), Candidates: len(thetas)}
	var configured *score.TaskEvaluation
	for i, w := range score.NegativeWindows {
		e := evals[i]
		out := r.ByWindow.Under(w)
		out.Outcome = newOutcome(AUC(underWindow(evalRows, w)))
		if e.HasOperatingPoint {
			var ci *score.RateCIs
			if rs != nil {
				c := rs.CIs(e.TestByConv)
				ci = &c
			}
			out.setOperatingPoint(f, e, ci, p.LatencyBudgetsMS)
		}
		if w == p.NegativeWindow {
			r.Outcome, configured = out.Outcome, e
		}
	}
	return r, configured, nil
}

// underWindow returns rows with their counts under negative window w.
func underWindow(rows []score.SweepRow, w score.NegativeWindow) []score.SweepRow {
	out := make([]score.SweepRow, len(rows))
	for i, r := range rows {
		out[i] = score.SweepRow{Theta: r.Theta, Counts: r.Counts.UnderWindow(w), Backchannel: r.Backchannel.UnderWindow(w)}
	}
	return out
}

// AUC is the area under the recall-versus-fp_rate curve of sweep rows,
// with (0, 0) and (1, 1) added: points sorted by fp_rate then recall,
// trapezoids between them. Rows with an undefined rate are left out.
func AUC(rows []score.SweepRow) float64 {
	pts := [][2]float64{{0, 0}, {1, 1}}
	for _, r := range rows {
		fp, rec := r.Counts.FPRate(), r.Counts.Recall()
		if fp == fp && rec == rec {
			pts = append(pts, [2]float64{fp, rec})
		}
	}
	slices.SortFunc(pts, func(a, b [2]float64) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
	area := 0.0
	for i := 1; i < len(pts); i++ {
		area += (pts[i][0] - pts[i-1][0]) * (pts[i][1] + pts[i-1][1]) / 2
	}
	return area
}
