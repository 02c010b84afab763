package bundle

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/floorbench/floorbench/internal/agent"
	"github.com/floorbench/floorbench/internal/audit"
	"github.com/floorbench/floorbench/internal/digest"
	"github.com/floorbench/floorbench/internal/evaluate"
	"github.com/floorbench/floorbench/internal/floor"
	"github.com/floorbench/floorbench/internal/keys"
	"github.com/floorbench/floorbench/internal/report"
	"github.com/floorbench/floorbench/internal/score"
	"github.com/floorbench/floorbench/internal/store"
)

// SchemaVersion of manifest.json and results.json.
const SchemaVersion = 1

// InputRef identifies one input of a bundle by content hash.
type InputRef struct {
	Kind string `json:"kind"` // corpus or system
	Name string `json:"name"`
	Hash string `json:"hash"`
}

// Meta is what a bundle is built from besides the evaluations.
type Meta struct {
	Name        string          `json:"name"`
	SpecHash    string          `json:"spec_hash"`
	Spec        json.RawMessage `json:"spec"`
	Inputs      []InputRef      `json:"inputs"`
	CodeVersion string          `json:"code_version"`
	Protocol    score.Params    `json:"protocol"`
	Resamples   int             `json:"bootstrap_resamples"`
	Seed        uint64          `json:"bootstrap_seed"`
}

// ID is the bundle id of meta: the identity hash (digest.IdentityJSON) of
// everything that determines the results (spec, input hashes, code
// version, protocol, bootstrap), so the same inputs name the same bundle
// before any work is done.
func ID(m Meta) (string, error) {
	id, err := digest.IdentityJSON(m)
	if err != nil {
		return "", fmt.Errorf("bundle meta of %s: %w", m.Name, err)
	}
	return id, nil
}

// Manifest is manifest.json.
type Manifest struct {
	SchemaVersion int    `json:"schema_version"`
	BundleID      string `json:"bundle_id"`
	Meta
	Created string `json:"created"`
}

// Results is results.json: byte-identical for the same inputs.
type Results struct {
	SchemaVersion int                   `json:"schema_version"`
	BundleID      string                `json:"bundle_id"`
	Protocol      score.Params          `json:"protocol"`
	Resamples     int                   `json:"bootstrap_resamples"`
	Seed          uint64                `json:"bootstrap_seed"`
	Corpora       []evaluate.CorpusInfo `json:"corpora"`
	Leaderboards  []CorpusLeaderboard   `json:"leaderboards"`
	Evaluations   []evaluate.Evaluation `json:"evaluations"`
	// Agents are the sweep's voice agents scored on their scenario sets
	// (docs/agents.md#in-sweeps); absent when it has none.
	Agents *agent.Results `json:"agents,omitempty"`
	// Seated are the sweep's agents seated in its corpora as systems
	// (docs/agents.md#seated-agents-in-sweeps): their evaluations are
	// among Evaluations, ranked beside the detectors; absent when none.
	Seated []SeatedRun `json:"seated,omitempty"`
}

// CorpusLeaderboard is one corpus and task's leaderboard.
type CorpusLeaderboard struct {
	Corpus string `json:"corpus"`
	report.TaskLeaderboard
}

// File is one file of a bundle.
type File struct {
	Name string
	Data []byte
}

// Parts are what a bundle is built from besides its meta.
type Parts struct {
	// Evaluations are every system's (and seated agent's) evaluations, in
	// any order.
	Evaluations []evaluate.Evaluation
	// Audits are the audits of the corpora by corpus name (any subset).
	Audits map[string]*audit.Report
	// Agents are the agents' trial results (nil: none).
	Agents *agent.Results
	// Seated are the seated agents' runs, in the sweep's order.
	Seated []SeatedRun
}

// Build assembles a bundle from its parts: results.json, report.md,
// events.csv, figures (SVG), predictions, and manifest.json stamped
// created.
func Build(meta Meta, parts Parts, created string) ([]File, *Results, error) {
	id, err := ID(meta)
	if err != nil {
		return nil, nil, err
	}
	evals, audits, agents := slices.Clone(parts.Evaluations), parts.Audits, parts.Agents
	slices.SortFunc(evals, func(a, b evaluate.Evaluation) int {
		return cmp.Or(cmp.Compare(a.Corpus, b.Corpus), cmp.Compare(a.System, b.System))
	})
	res := &Results{SchemaVersion: SchemaVersion, BundleID: id, Protocol: meta.Protocol, Resamples: meta.Resamples, Seed: meta.Seed,
		Evaluations: evals, Agents: agents, Seated: parts.Seated}
	for i := range evals {
		if info := evals[i].CorpusInfo; info != nil && (len(res.Corpora) == 0 || res.Corpora[len(res.Corpora)-1].Name != info.Name) {
			res.Corpora = append(res.Corpora, *info)
		}
		evals[i].CorpusInfo = nil
	}
	for i := range res.Corpora {
		res.Corpora[i].Audit = audits[res.Corpora[i].Name]
	}
	res.Leaderboards = leaderboards(evals, meta)
	resultsJSON, err := json.MarshalIndent(res, "", " ")
	if err != nil {
		return nil, nil, err
	}
	manifest, err := json.MarshalIndent(Manifest{SchemaVersion, id, meta, created}, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	files := []File{
		{keys.ManifestFile, append(manifest, '\n')},
		{keys.ResultsFile, append(resultsJSON, '\n')},
		{"report.md", Report(res, meta)},
		{"events.csv", eventsCSV(evals)},
	}
	figures, err := RenderFigures(res, "svg")
	if err != nil {
		return nil, nil, err
	}
	files = append(files, figures...)
	for _, e := range evals {
		// A submission holds both tasks: an EOT-only or INT-only system's
		// would need an empty track of the other, so its committed
		// predictions stay in results.json alone.
		if len(e.Tasks) < len(floor.Tasks) {
			continue
		}
		for _, t := range e.Tasks {
			if t.Predictions != nil && t.Task == floor.TaskEOT {
				files = append(files, File{fmt.Sprintf("predictions/%s/%s.json", store.SafeName(e.Corpus), store.SafeName(e.System)), submission(e)})
				break
			}
		}
	}
	return files, res, nil
}

// leaderboards ranks systems per corpus and task with score.Rank.
func leaderboards(evals []evaluate.Evaluation, meta Meta) []CorpusLeaderboard {
	type key struct {
		corpus string
		task   floor.Task
	}
	groups := map[key][]*score.TaskEvaluation{}
	var keys []key
	for _, e := range evals {
		for _, t := range e.Tasks {
			k := key{e.Corpus, t.Task}
			if _, ok := groups[k]; !ok {
				keys = append(keys, k)
			}
			te := t.TaskEvaluation(e.System)
			groups[k] = append(groups[k], te)
		}
	}
	slices.SortFunc(keys, func(a, b key) int { return cmp.Or(cmp.Compare(a.corpus, b.corpus), cmp.Compare(a.task, b.task)) })
	var out []CorpusLeaderboard
	for _, k := range keys {
		lb := report.NewTaskLeaderboard(k.task, score.Rank(groups[k], meta.Protocol, meta.Resamples, meta.Seed))
		out = append(out, CorpusLeaderboard{Corpus: k.corpus, TaskLeaderboard: lb})
	}
	return out
}

// eventsCSV is one row per gold item per system, corpus and task.
func eventsCSV(evals []evaluate.Evaluation) []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write([]string{"corpus", "system", "task", "conversation_id", "speaker", "kind", "start", "end", "outcome", "prediction", "latency_ms"})
	num := func(v report.Num) string {
		if f := float64(v); f == f {
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
		return ""
	}
	for _, e := range evals {
		for _, t := range e.Tasks {
			for _, r := range t.Events {
				_ = w.Write([]string{e.Corpus, e.System, string(t.Task), r.Conversation, strconv.Itoa(r.Speaker), r.Kind,
					strconv.FormatFloat(r.Start, 'g', -1, 64), strconv.FormatFloat(r.End, 'g', -1, 64), r.Outcome, num(r.Prediction), num(r.LatencyMS)})
			}
		}
	}
	w.Flush()
	return buf.Bytes()
}

// submission writes a system's committed test predictions on a corpus in
// TurnBench's submission format, so other scorers can check them.
func submission(e evaluate.Evaluation) []byte {
	byTask := map[floor.Task]map[string][][]float64{}
	var ids []string
	for _, t := range e.Tasks {
		byTask[t.Task] = t.Predictions
		for id := range t.Predictions {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	slices.Sort(ids)
	sub := &score.Submission{}
	for _, id := range ids {
		c := score.ConversationPredictions{ID: id}
		n := max(len(byTask[floor.TaskEOT][id]), len(byTask[floor.TaskINT][id]))
		for k := range n {
			var sp score.SpeakerPredictions
			if p := byTask[floor.TaskEOT][id]; k < len(p) {
				sp.EOT = p[k]
			}
			if p := byTask[floor.TaskINT][id]; k < len(p) {
				sp.INT = p[k]
			}
			if sp.EOT == nil {
				sp.EOT = []float64{}
			}
			if sp.INT == nil {
				sp.INT = []float64{}
			}
			c.Speakers = append(c.Speakers, sp)
		}
		sub.Conversations = append(sub.Conversations, c)
	}
	var buf bytes.Buffer
	_ = score.WriteSubmission(&buf, sub)
	return buf.Bytes()
}
